/**
 * In-host module of the Find What Harms integration test (ablation.test.ts asserts): evaluate the harmful example
 * skill, run Find What Harms, read the diagnostics, CodeLenses and quick fixes it leaves, edit one section, then
 * apply the quick fix and record the re-evaluated verdict and the calls each step cost.
 */
import * as vscode from "vscode";
import { hostConfig, reportFacts, serverCalls } from "./common.js";

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

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 700));
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
  await settle();
  facts.lensesAfterEvaluation = await lenses(uri);

  steps.push("find what harms");
  before = await calls();
  const found = (await vscode.commands.executeCommand("skillFollowing.findWhatHarms", uri, { confirm: false })) as { ablationFile: string; cancelled: boolean; result?: { sections: unknown[] } } | undefined;
  if (!found) throw new Error("findWhatHarms returned nothing (see the log)");
  facts.ablation = { calls: (await calls()) - before, cancelled: found.cancelled, ablationFile: found.ablationFile, sections: found.result?.sections };
  await settle();
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
  await settle();
  facts.lensesAfterEdit = await lenses(uri);
  facts.diagnosticsAfterEdit = diagnosticsOf(uri).filter((d) => d.code.startsWith("section-"));
  const undo = new vscode.WorkspaceEdit();
  undo.delete(uri, new vscode.Range(whyLine, 0, whyLine + 1, 0));
  await vscode.workspace.applyEdit(undo);
  await doc.save();
  await settle();

  steps.push("quick fix");
  const fix = actions.find((a) => a.command?.command === "skillFollowing.removeSectionAndReevaluate");
  if (!fix?.command) throw new Error("no quick fix on the harmful section");
  before = await calls();
  const after = (await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []))) as { view?: { headline: { harmed: number; rescued: number } } } | undefined;
  facts.quickFix = { calls: (await calls()) - before, harmed: after?.view?.headline.harmed, rescued: after?.view?.headline.rescued, text: doc.getText() };
  await settle();
  facts.diagnosticsAfterFix = diagnosticsOf(uri);
  facts.lensesAfterFix = await lenses(uri);
}

export async function run(): Promise<void> {
  await reportFacts(config.resultsFile, facts, body, steps);
}
