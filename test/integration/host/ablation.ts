/**
 * In-host module of the Find What Harms integration test (ablation.test.ts asserts): evaluate the harmful example
 * skill, run Find What Harms, read the diagnostics, CodeLenses and quick fixes it leaves, edit one section, then
 * apply the quick fix and record the re-evaluated verdict and the calls each step cost.
 */
import * as vscode from "vscode";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hostConfig, reportFacts, serverCalls, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  controlUrl: string;
  apiKey: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];
const calls = (): Promise<number> => serverCalls(config.controlUrl);

function diagnosticsOf(uri: vscode.Uri) {
  return vscode.languages.getDiagnostics(uri).map((d) => ({
    code: typeof d.code === "object" ? String(d.code.value) : String(d.code),
    severity: vscode.DiagnosticSeverity[d.severity],
    startLine: d.range.start.line + 1,
    endLine: d.range.end.line + 1,
    message: d.message,
    related: (d.relatedInformation ?? []).map((r) => ({ line: r.location.range.start.line + 1, message: r.message })),
  }));
}

async function lenses(uri: vscode.Uri): Promise<{ line: number; title: string }[]> {
  const all = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri, 50)) ?? [];
  return all.map((l) => ({ line: l.range.start.line + 1, title: l.command?.title ?? "" })).filter((l) => l.title !== "");
}

/**
 * Waits until the lint of every edit made so far has run. The lint of an edited SKILL.md runs a fixed delay after
 * its last edit (lintDelayMs), one timer per document, in the order they were set: so once an edit made now to a
 * control SKILL.md (outside the workspace, never part of the library) shows in its diagnostics, every earlier
 * edit's lint has run too. Each call flips the control between a valid and a broken name.
 */
let control: { doc: vscode.TextDocument; broken: boolean } | undefined;
async function lintRoundTrip(): Promise<void> {
  if (!control) {
    const file = path.join(path.dirname(config.resultsFile), "lint-control", "SKILL.md");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "---\nname: lint-control\ndescription: A control skill for waiting on the lint.\n---\n\n# Body\n");
    control = { doc: await vscode.workspace.openTextDocument(vscode.Uri.file(file)), broken: false };
    const doc = control.doc;
    await waitFor("the lint of the control SKILL.md", () => vscode.languages.getDiagnostics(doc.uri).length === 0);
  }
  const { doc } = control;
  control.broken = !control.broken;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, doc.lineAt(1).range, control.broken ? "name: Lint_Control" : "name: lint-control");
  await vscode.workspace.applyEdit(edit);
  const broken = control.broken;
  await waitFor("the lint of an edit to the control SKILL.md", () => (vscode.languages.getDiagnostics(doc.uri).length > 0) === broken);
}

async function body(): Promise<void> {
  steps.push("activate");
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  if (!ext) throw new Error("extension not found");
  await ext.activate();
  await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);
  const uri = vscode.Uri.file(config.skillFile);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);

  steps.push("Find What Harms before any evaluation");
  facts.beforeEvaluation = (await vscode.commands.executeCommand("skillFollowing.findWhatHarms", uri, { confirm: false })) ?? null;

  steps.push("evaluate");
  let before = await calls();
  const evaluation = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model", background: true })) as
    | { view?: { headline: { harmed: number; rescued: number } } }
    | undefined;
  facts.evaluation = { calls: (await calls()) - before, harmed: evaluation?.view?.headline.harmed, rescued: evaluation?.view?.headline.rescued };
  facts.lensesAfterEvaluation = await waitFor("the Find what harms lens after the evaluation", async () => {
    const l = await lenses(uri);
    return l.some((x) => x.title === "$(search) Find what harms") ? l : undefined;
  });

  steps.push("find what harms");
  before = await calls();
  const found = (await vscode.commands.executeCommand("skillFollowing.findWhatHarms", uri, { confirm: false })) as { ablationFile: string; cancelled: boolean; result?: { sections: unknown[] } } | undefined;
  if (!found) throw new Error("findWhatHarms returned nothing (see the log)");
  facts.ablation = { calls: (await calls()) - before, cancelled: found.cancelled, ablationFile: found.ablationFile, sections: found.result?.sections };
  await waitFor("the section diagnostics of the ablation", () => vscode.languages.getDiagnostics(uri).some((d) => d.code === "section-harms"));
  facts.diagnostics = diagnosticsOf(uri);
  facts.lenses = await lenses(uri);
  const harmful = vscode.languages.getDiagnostics(uri).find((d) => d.code === "section-harms");
  const actions = harmful ? ((await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", uri, harmful.range)) ?? []) : [];
  facts.codeActions = actions.map((a) => ({ title: a.title, command: a.command?.command, args: a.command?.arguments?.slice(1) }));
  const verdict = vscode.languages.getDiagnostics(uri).find((d) => String(d.code).startsWith("evaluation-"));
  const verdictActions = verdict ? ((await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", uri, verdict.range)) ?? []) : [];
  facts.verdictActions = verdictActions.map((a) => a.title);
  facts.ablatedAgain = { calls: 0 };
  before = await calls();
  await vscode.commands.executeCommand("skillFollowing.findWhatHarms", uri, { confirm: false });
  facts.ablatedAgain = { calls: (await calls()) - before };

  steps.push("edit one section");
  const whyLine = doc.getText().split("\n").findIndex((l) => l === "## Why") + 1;
  // A WorkspaceEdit: the report panel opened over the editor, which closed it.
  const insert = new vscode.WorkspaceEdit();
  insert.insert(uri, new vscode.Position(whyLine, 0), "An extra sentence.\n");
  await vscode.workspace.applyEdit(insert);
  await lintRoundTrip();
  facts.lensesAfterEdit = await lenses(uri);
  facts.diagnosticsAfterEdit = diagnosticsOf(uri).filter((d) => d.code.startsWith("section-"));
  const undo = new vscode.WorkspaceEdit();
  undo.delete(uri, new vscode.Range(whyLine, 0, whyLine + 1, 0));
  await vscode.workspace.applyEdit(undo);
  await doc.save();
  await lintRoundTrip();

  steps.push("quick fix");
  const fix = actions.find((a) => a.command?.command === "skillFollowing.removeSectionAndReevaluate");
  if (!fix?.command) throw new Error("no quick fix on the harmful section");
  const verdictOf = () => diagnosticsOf(uri).find((d) => d.code.startsWith("evaluation-"))?.code;
  const verdictBeforeFix = verdictOf();
  before = await calls();
  const after = (await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []))) as { view?: { headline: { harmed: number; rescued: number } } } | undefined;
  facts.quickFix = { calls: (await calls()) - before, harmed: after?.view?.headline.harmed, rescued: after?.view?.headline.rescued, text: doc.getText() };
  // The new run's verdict and the section diagnostics come from one update of the file's diagnostics: wait for the
  // verdict's code to change from the one before the fix (the lint of the edited text alone keeps the old code).
  await waitFor("the verdict of the run after the quick fix", () => verdictOf() !== verdictBeforeFix);
  facts.diagnosticsAfterFix = diagnosticsOf(uri);
  facts.lensesAfterFix = await lenses(uri);
}

export async function run(): Promise<void> {
  // A hang guard below the node test's 200 s: the waits have no deadlines of their own (see waitFor).
  await reportFacts(config.resultsFile, facts, body, steps, 180_000);
}
