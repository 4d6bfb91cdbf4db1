/**
 * Runs inside code-server's extension host: the editor integration a skill author relies on after the first report.
 * Diagnostics for skills that are not open (after a library run), the Skill Following view, quick fixes, an open
 * report that follows evaluate-on-save (or says it is stale), diffs beside the report, deleting old runs.
 * editor.test.ts asserts what this records.
 */
import * as vscode from "vscode";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { hostConfig, reportFacts, serverCalls, setSetting, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  brokenSkillFile: string;
  taskSetFile: string;
  controlUrl: string;
  apiKey: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

const codesOf = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).map((d) => ({ code: String(typeof d.code === "object" ? d.code.value : d.code), severity: vscode.DiagnosticSeverity[d.severity], line: d.range.start.line, endLine: d.range.end.line, message: d.message }));

interface Panel {
  runFiles: string[];
  current?: { runs: { runFile: string }[]; stale?: { reason: string; latestRunFile?: string } };
  panel: { viewColumn?: number };
  lastRendered?: unknown;
  onDidRender: vscode.Event<unknown>;
}
interface Api {
  services: {
    runner: { onDidFinish: vscode.Event<unknown>; running: boolean };
    reports: { active?: Panel; all(): Panel[] };
    tree?: { getChildren(node?: unknown): unknown[] };
    layout: { runsDir: string };
  };
}

type TreeNode = { kind: string; id?: string; name?: string; result?: { flag: string }; runs?: unknown[]; run?: { file: string } };

async function body(): Promise<void> {
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  const api = (await ext!.activate()) as Api;
  const skillUri = vscode.Uri.file(config.skillFile);
  const opts = { taskSet: config.taskSetFile, model: "scripted-model" };
  await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);

  steps.push("library run, no skill open");
  const lib = (await vscode.commands.executeCommand("skillFollowing.evaluateLibrary", undefined, opts)) as { runFile: string } | undefined;
  facts.libraryRunFile = lib?.runFile ?? null;
  facts.skillOpen = vscode.workspace.textDocuments.some((d) => d.uri.fsPath === skillUri.fsPath);
  facts.libraryDiagnostics = await waitFor("a verdict on the closed skill", () => {
    const d = codesOf(skillUri).filter((x) => x.code.startsWith("evaluation-"));
    return d.length > 0 ? d : undefined;
  });

  steps.push("the Skill Following view");
  const tree = api.services.tree!;
  const groups = tree.getChildren() as TreeNode[];
  const skills = tree.getChildren(groups.find((g) => g.id === "skills")) as TreeNode[];
  const days = tree.getChildren(groups.find((g) => g.id === "runs")) as TreeNode[];
  facts.tree = {
    groups: groups.map((g) => g.id),
    skills: skills.map((s) => ({ name: s.name, flag: s.result?.flag ?? null })),
    runs: days.flatMap((d) => (tree.getChildren(d) as TreeNode[]).map((r) => path.basename(r.run!.file))),
  };

  steps.push("quick fix");
  const broken = vscode.Uri.file(config.brokenSkillFile);
  await vscode.window.showTextDocument(broken);
  const yaml = await waitFor("yaml-syntax diagnostic", () => vscode.languages.getDiagnostics(broken).find((d) => d.code === "yaml-syntax"));
  // Right after opening, the lightbulb's list can come before the diagnostics reach it: ask until ours is there.
  const actions = await waitFor("the quick fix", async () => {
    const list = (await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", broken, yaml.range)) ?? [];
    return list.some((a) => a.title.startsWith("Quote the description")) ? list : undefined;
  }).catch(async () => (await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", broken, yaml.range)) ?? []);
  facts.quickFixTitles = actions.map((a) => a.title);
  const quote = actions.find((a) => a.title.startsWith("Quote the description"));
  // The proof that the lint ran on the fixed text: the diagnostics of the file change after the edit (a fix that
  // changed nothing would leave them as they were, and this wait would end in the module's budget, named).
  const beforeFix = JSON.stringify(codesOf(broken));
  if (quote?.edit) await vscode.workspace.applyEdit(quote.edit);
  facts.afterQuickFix = quote?.edit
    ? await waitFor("the lint of the text after the quick fix", () => (JSON.stringify(codesOf(broken)) !== beforeFix ? codesOf(broken).map((d) => d.code) : undefined))
    : codesOf(broken).map((d) => d.code);

  steps.push("open report of the skill");
  await vscode.window.showTextDocument(skillUri);
  const first = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", skillUri, opts)) as { runFile: string } | undefined;
  const panel = await waitFor("report panel", () => api.services.reports.all().find((p) => p.runFiles[0] === first?.runFile));
  facts.firstRunFile = first?.runFile;

  steps.push("evaluate on save with the report open");
  await setSetting(api.services, "evaluateOnSave", true);
  const doc = await vscode.workspace.openTextDocument(skillUri);
  const editor = await vscode.window.showTextDocument(doc);
  await editor.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), "4. Say which unit the answer is in.\n"));
  const finished = new Promise((resolve) => {
    const sub = api.services.runner.onDidFinish(() => {
      sub.dispose();
      resolve(undefined);
    });
  });
  await doc.save();
  await finished;
  // A retarget sets the panel's files at once and renders the new run after it loads: until then `current` is the
  // old run's view, whose banner rightly says a newer run exists. Wait for the view of the new run itself.
  const shown = await waitFor("the panel's view of the new run", () => {
    const runFile = panel.current?.runs[0]?.runFile;
    return runFile && runFile !== first?.runFile && runFile === panel.runFiles[0] ? panel.current : undefined;
  });
  facts.afterSave = { runFile: shown.runs[0]!.runFile, stale: shown.stale ?? null };

  steps.push("changed again: stale banner");
  await setSetting(api.services, "evaluateOnSave", false);
  await editor.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), "5. Check the answer once more.\n"));
  await doc.save();
  facts.staleAfterSecondEdit = await waitFor("stale banner", () => panel.current?.stale);

  steps.push("diff beside the report");
  // The reader is in the report when they click a harmed task.
  await vscode.commands.executeCommand("skillFollowing.openReport", [panel.runFiles[0]]);
  const harmed = "T2-harmed";
  await vscode.commands.executeCommand("skillFollowing.openTaskComparison", panel.runFiles[0], harmed, 0);
  const diffGroup = await waitFor("diff tab", () => vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputTextDiff)));
  const reportGroup = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith("Report")));
  facts.diffBeside = { diffColumn: diffGroup.viewColumn, reportColumn: reportGroup?.viewColumn ?? null, reportStillVisible: reportGroup?.activeTab?.label.startsWith("Report") ?? false };

  steps.push("delete old runs");
  const before = readdirSync(api.services.layout.runsDir).filter((f) => f.endsWith(".jsonl"));
  const deleted = await vscode.commands.executeCommand<number>("skillFollowing.deleteOldRuns", true);
  const after = readdirSync(api.services.layout.runsDir).filter((f) => f.endsWith(".jsonl"));
  facts.deleteOldRuns = { before: before.length, deleted, after: after.length, latestKept: existsSync(panel.runFiles[0]!) };
  facts.calls = await serverCalls(config.controlUrl);
}

export function run(): Promise<void> {
  // A step that hangs still reports where it was (the test waits 240 s for the facts).
  return reportFacts(config.resultsFile, facts, body, steps, 220_000);
}
