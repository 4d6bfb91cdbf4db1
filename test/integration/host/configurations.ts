/**
 * Runs inside code-server's extension host: issue 24's sequence and the Testing view. Try the Example evaluates the
 * harmful example with model A (the configured model); Evaluate Skill Library runs with model B; Compare Models
 * runs A and B. The skill's diagnostic and CodeLens must still show A's own verdict, say so, and link to B's. Then
 * the Testing view: its skills and tasks, the published results of Try the Example, and a re-run of one task's pair
 * with the model calls the response cache implies. configurations.test.ts asserts what this records; the outer
 * test takes a screenshot at each `shot`.
 */
import * as vscode from "vscode";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hostConfig, reportFacts, requestShot, serverCalls, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  workspace: string;
  controlUrl: string;
  apiKey: string;
  modelA: string;
  modelB: string;
  skill: string;
  harmedTask: string;
  rescuedTask: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

interface Shown {
  state: string;
  runFile: string;
  message?: string;
  expected?: string;
  actual?: string;
}
interface Item {
  id: string;
  label: string;
  description?: string;
  children: { forEach(fn: (i: Item) => void): void };
}
interface Api {
  services: {
    runner: { running: boolean };
    results: { get(file: string): { runFile: string; model: string; librarySize?: number } | undefined; others(file: string): { runFile: string; model: string; librarySize?: number }[] };
    testing: {
      controller: { items: { forEach(fn: (i: Item) => void): void } };
      shown: Map<string, Shown>;
      settled(): Promise<void>;
      profileLabels(): string[];
      runWith(label: string, ids: string[]): Promise<void>;
    };
  };
}

const diagnosticsOf = (uri: vscode.Uri) =>
  vscode.languages
    .getDiagnostics(uri)
    .filter((d) => String(typeof d.code === "object" ? d.code.value : d.code).startsWith("evaluation-"))
    .map((d) => ({ code: String(typeof d.code === "object" ? d.code.value : d.code), severity: vscode.DiagnosticSeverity[d.severity], message: d.message }));

async function lenses(uri: vscode.Uri) {
  const list = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri, 10)) ?? [];
  return list.filter((l) => l.command).map((l) => ({ title: l.command!.title, command: l.command!.command, arguments: JSON.parse(JSON.stringify(l.command!.arguments ?? [])) as unknown }));
}

function children(item: Item): Item[] {
  const out: Item[] = [];
  item.children.forEach((c) => out.push(c));
  return out;
}

async function body(): Promise<void> {
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  const api = (await ext!.activate()) as Api;
  await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);
  const skillFile = path.join(config.workspace, "skills", config.skill, "SKILL.md");
  const skillUri = vscode.Uri.file(skillFile);

  steps.push("Try the Example with model A");
  // The workspace's settings name model A: the example evaluates with it and asks nothing (no picker to accept).
  const a = (await vscode.commands.executeCommand("skillFollowing.tryExample", { folder: config.workspace })) as { runFile: string; cancelled: boolean } | undefined;
  facts.exampleRun = a ? path.basename(a.runFile) : null;
  const own = api.services.results.get(skillFile);
  facts.afterExample = { lens: await waitFor("the example's CodeLens", async () => ((await lenses(skillUri)).some((l) => l.title.startsWith("RAE")) ? lenses(skillUri) : undefined)), diagnostics: diagnosticsOf(skillUri) };
  await requestShot(config.resultsFile, "1-example-model-a");
  const taskSetFile = (own as unknown as { taskSetFile: string }).taskSetFile;

  steps.push("Evaluate Skill Library with model B");
  const b = (await vscode.commands.executeCommand("skillFollowing.evaluateLibrary", undefined, { taskSet: taskSetFile, model: config.modelB })) as { runFile: string } | undefined;
  facts.libraryRun = b ? path.basename(b.runFile) : null;
  await requestShot(config.resultsFile, "2-library-model-b");

  steps.push("Compare Models A and B");
  const compared = (await vscode.commands.executeCommand("skillFollowing.compareModels", [config.modelA, config.modelB], taskSetFile)) as string[] | undefined;
  facts.compareRuns = (compared ?? []).map((f) => path.basename(f));
  await requestShot(config.resultsFile, "3-compare-a-b");

  steps.push("the skill's verdict afterwards");
  // A fresh editor of the skill, as when the author opens it after the runs.
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  await vscode.window.showTextDocument(skillUri, { preview: false });
  const shown = api.services.results.get(skillFile)!;
  facts.shown = { runFile: path.basename(shown.runFile), model: shown.model, librarySize: shown.librarySize ?? null };
  facts.others = api.services.results.others(skillFile).map((r) => ({ runFile: path.basename(r.runFile), model: r.model, librarySize: r.librarySize ?? null }));
  facts.after = { lens: await lenses(skillUri), diagnostics: diagnosticsOf(skillUri) };
  const active = vscode.window.activeTextEditor?.document.uri;
  facts.activeEditor = { uri: active?.toString() ?? null, skillUri: skillUri.toString(), lens: active ? (await lenses(active)).map((l) => l.title) : [] };
  await vscode.commands.executeCommand("workbench.actions.view.problems");
  // The editor asks for CodeLenses again a moment after it is shown: let the picture catch up with the facts.
  await new Promise((r) => setTimeout(r, 3000));
  await requestShot(config.resultsFile, "4-verdict-still-model-a");

  steps.push("the Testing view");
  const testing = api.services.testing;
  await testing.settled();
  await vscode.commands.executeCommand("workbench.view.testing.focus");
  const items: Item[] = [];
  testing.controller.items.forEach((i) => items.push(i));
  const skillItem = items.find((i) => i.id === skillFile);
  facts.testing = {
    skills: items.map((i) => i.label).sort(),
    skillDescription: skillItem?.description ?? null,
    tasks: skillItem ? children(skillItem).map((c) => c.label) : [],
    states: Object.fromEntries(skillItem ? children(skillItem).map((c) => [c.label, testing.shown.get(`${skillFile}\u0000${c.label}`)?.state ?? null]) : []),
    publishedFrom: skillItem ? path.basename(testing.shown.get(`${skillFile}\u0000${config.harmedTask}`)?.runFile ?? "") : null,
    harmedMessage: testing.shown.get(`${skillFile}\u0000${config.harmedTask}`) ?? null,
    profiles: testing.profileLabels(),
  };
  const harmedItem = skillItem ? children(skillItem).find((c) => c.label === config.harmedTask) : undefined;
  if (harmedItem) await vscode.commands.executeCommand("vscode.revealTestInExplorer", harmedItem).then(undefined, () => undefined);
  await requestShot(config.resultsFile, "5-testing-view");

  steps.push("re-run one task's pair, unchanged skill");
  const profile = `Evaluate with ${config.modelA} on math-word`;
  const taskId = `${skillFile}\u0000${config.harmedTask}`;
  let before = await serverCalls(config.controlUrl);
  await testing.runWith(profile, [taskId]);
  const rerun = testing.shown.get(taskId);
  facts.rerunUnchanged = { calls: (await serverCalls(config.controlUrl)) - before, state: rerun?.state ?? null, runFile: path.basename(rerun?.runFile ?? "") };

  steps.push("re-run one task's pair after an edit of the skill's body");
  writeFileSync(skillFile, `${readFileSync(skillFile, "utf8")}\nKeep the currency symbol in the answer.\n`);
  before = await serverCalls(config.controlUrl);
  await testing.runWith(profile, [`${skillFile}\u0000${config.rescuedTask}`]);
  facts.rerunEdited = { calls: (await serverCalls(config.controlUrl)) - before, state: testing.shown.get(`${skillFile}\u0000${config.rescuedTask}`)?.state ?? null };
  facts.shownAfterReruns = path.basename(api.services.results.get(skillFile)?.runFile ?? "");
  await requestShot(config.resultsFile, "6-testing-view-rerun");
}

export function run(): Promise<void> {
  return reportFacts(config.resultsFile, facts, body, steps, 400_000);
}
