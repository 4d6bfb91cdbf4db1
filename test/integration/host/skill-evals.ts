/**
 * In-host module of the skill-evals integration test (skill-evals.test.ts asserts): open an evals/evals.json and
 * ask for completions and diagnostics, evaluate the non-code example skill through Evaluate This Skill (accepting
 * the first item the task picker offers: its own evals), then read what the report webview drew and the side by side
 * of a judged task.
 */
import * as vscode from "vscode";
import { hostConfig, reportFacts, serverCalls, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  evalsFile: string;
  controlUrl: string;
  apiKey: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

interface Api {
  services: { runner: { running: boolean }; reports: { active?: { lastRendered?: { triggerCells?: number; skills: number } } } };
}

/** Completion labels at a fresh line inside the first eval object (the JSON language service asks our schema). */
async function completionsInEval(doc: vscode.TextDocument, editor: vscode.TextEditor): Promise<string[]> {
  const line = doc.getText().split("\n").findIndex((l) => l.includes('"id": 1,'));
  await editor.edit((e) => e.insert(new vscode.Position(line + 1, 0), '      "",\n'));
  const at = new vscode.Position(line + 1, 7);
  return waitFor("schema completions", async () => {
    const list = await vscode.commands.executeCommand<vscode.CompletionList>("vscode.executeCompletionItemProvider", doc.uri, at);
    const labels = list.items.map((i) => (typeof i.label === "string" ? i.label : i.label.label));
    // "assertions" is in no word of this file: only the schema offers it (word completions come first, alone).
    return labels.some((l) => l.includes("assertions")) ? labels : undefined;
  });
}

async function body(): Promise<void> {
  steps.push("activate");
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  if (!ext) throw new Error("extension not found");
  const api = (await ext.activate()) as Api;
  await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);

  steps.push("evals.json: completion");
  const evalsUri = vscode.Uri.file(config.evalsFile);
  const evalsDoc = await vscode.workspace.openTextDocument(evalsUri);
  const editor = await vscode.window.showTextDocument(evalsDoc);
  const original = evalsDoc.getText();
  /** Puts the file back as it was, saved (the editor may save edits on its own). */
  const restore = async () => {
    const all = new vscode.WorkspaceEdit();
    all.replace(evalsUri, new vscode.Range(evalsDoc.positionAt(0), evalsDoc.positionAt(evalsDoc.getText().length)), original);
    await vscode.workspace.applyEdit(all);
    await evalsDoc.save();
  };
  facts.completions = await completionsInEval(evalsDoc, editor);
  await restore();

  steps.push("evals.json: a wrong field");
  const text = evalsDoc.getText();
  const at = text.indexOf('"expectations"');
  await editor.edit((e) => e.replace(new vscode.Range(evalsDoc.positionAt(at), evalsDoc.positionAt(at + '"expectations"'.length)), '"expectation"'));
  facts.wrongFieldLine = evalsDoc.positionAt(at).line + 1;
  // The completion step's `"",` left a "Colon expected" on another line, cleared only when the JSON server validates
  // again: any diagnostic could be that one. Wait for one on the wrong field's line (its message is asserted).
  facts.squiggles = await waitFor("a diagnostic on the wrong field", () => {
    const d = vscode.languages.getDiagnostics(evalsUri).map((x) => ({ message: x.message, line: x.range.start.line + 1, column: x.range.start.character + 1, severity: vscode.DiagnosticSeverity[x.severity], source: x.source }));
    return d.some((x) => x.line === facts.wrongFieldLine) ? d : undefined;
  });
  await restore();
  facts.restored = evalsDoc.getText() === original;

  steps.push("evaluate this skill on its own evals");
  const skillUri = vscode.Uri.file(config.skillFile);
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(skillUri));
  const before = await serverCalls(config.controlUrl);
  const evaluation = vscode.commands.executeCommand("skillFollowing.evaluateSkill", skillUri, { model: "scripted-model" }) as Thenable<
    { runFile: string; cancelled: boolean; view?: Record<string, unknown> } | undefined
  >;
  // The task-set picker opens with the skill's own evals first: take the first item (until the run starts, since
  // the picker opens a moment after the command).
  let settled = false;
  void Promise.resolve(evaluation).finally(() => (settled = true));
  await waitFor("the evaluation to start from the picker", async () => {
    if (settled || api.services.runner.running) return true;
    await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    return undefined;
  });
  const outcome = await evaluation;
  if (!outcome?.view) throw new Error("evaluateSkill returned no report (see the log)");
  facts.evaluation = { calls: (await serverCalls(config.controlUrl)) - before, runFile: outcome.runFile, view: outcome.view };

  steps.push("report webview");
  facts.rendered = await waitFor("the report drew its heat map", () => {
    const r = api.services.reports.active?.lastRendered;
    return r?.triggerCells !== undefined ? r : undefined;
  });

  steps.push("side by side of a judged task");
  await vscode.commands.executeCommand("skillFollowing.openTaskComparison", outcome.runFile, "release-notes/1", 0);
  const tab = await waitFor("diff tab", () => {
    const t = vscode.window.tabGroups.activeTabGroup.activeTab;
    return t && t.input instanceof vscode.TabInputTextDiff ? t : undefined;
  });
  const input = tab.input as vscode.TabInputTextDiff;
  facts.sideBySide = { label: tab.label, left: (await vscode.workspace.openTextDocument(input.original)).getText(), right: (await vscode.workspace.openTextDocument(input.modified)).getText() };
}

export async function run(): Promise<void> {
  // A step that hangs still reports where it was (the test waits 200 s for the facts).
  await reportFacts(config.resultsFile, facts, body, steps, 180_000);
}
