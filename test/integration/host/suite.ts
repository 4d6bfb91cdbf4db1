/**
 * Runs inside code-server's extension host (bundled by the node test with esbuild, loaded through
 * extensionTestsPath). It drives the extension through its commands and the VS Code API, and writes what it
 * observed to a JSON file; the node test (extension.test.ts) makes the assertions. An exception is recorded too,
 * so a failure shows up as a failing assertion with its message, not as a timeout.
 */
import * as vscode from "vscode";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hostConfig, reportFacts, serverCalls, setSetting, waitFor } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  pythonTaskSetFile: string;
  controlUrl: string;
  apiKey: string;
  exportDir: string;
  /** Set when a task-set mirror is served (the shared data copies exist). */
  mirror?: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

const calls = (): Promise<number> => serverCalls(config.controlUrl);

function diagnosticsOf(uri: vscode.Uri) {
  return vscode.languages.getDiagnostics(uri).map((d) => ({
    code: typeof d.code === "object" ? String(d.code.value) : String(d.code),
    source: d.source,
    severity: vscode.DiagnosticSeverity[d.severity],
    line: d.range.start.line,
    message: d.message,
  }));
}

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri, 10)) ?? [];
  return lenses.map((l) => l.command?.title ?? "").filter((t) => t !== "");
}

interface Api {
  services: {
    runner: { onDidFinish: vscode.Event<unknown>; running: boolean };
    reports: { active?: { lastRendered?: unknown; onDidRender: vscode.Event<unknown>; runFiles: string[] }; all(): unknown[] };
    results: { get(file: string): unknown };
  };
}

async function body(): Promise<void> {
  steps.push("activate");
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  if (!ext) throw new Error("extension skill-following.skill-following not found");
  const api = (await ext.activate()) as Api;
  facts.activated = ext.isActive;
  facts.vscodeVersion = vscode.version;
  facts.registeredCommands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith("skillFollowing."));
  facts.manifestCommands = (ext.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);

  steps.push("lint diagnostics");
  const uri = vscode.Uri.file(config.skillFile);
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  // "No findings" needs proof that the lint ran on this text. The lint runs on each SKILL.md as it opens, in the
  // order they open: a broken SKILL.md opened after this one (not shown, and outside the workspace, so not part of
  // its library) has findings only once this one has been linted.
  const control = path.join(path.dirname(config.resultsFile), "lint-control", "SKILL.md");
  mkdirSync(path.dirname(control), { recursive: true });
  writeFileSync(control, "---\nname: Lint_Control\ndescription: A skill whose name breaks the rules.\n---\n\n# Body\n");
  await vscode.workspace.openTextDocument(vscode.Uri.file(control));
  await waitFor("the lint's findings on a broken SKILL.md opened after the valid one", () => vscode.languages.getDiagnostics(vscode.Uri.file(control)).length > 0);
  facts.diagnosticsValid = diagnosticsOf(uri);
  // Break the name: an uppercase/underscore name that also differs from its folder.
  const nameLine = doc.getText().split("\n").findIndex((l) => l.startsWith("name:"));
  await editor.edit((e) => e.replace(doc.lineAt(nameLine).range, "name: Units_Helper"));
  facts.diagnosticsBroken = await waitFor("lint findings", () => {
    const d = diagnosticsOf(uri);
    return d.length > 0 ? d : undefined;
  });
  await editor.edit((e) => e.replace(doc.lineAt(nameLine).range, "name: units-helper"));
  facts.diagnosticsFixed = await waitFor("findings cleared", () => (diagnosticsOf(uri).length === 0 ? [] : undefined));
  await doc.save();
  facts.lensBefore = await lensTitles(uri);

  steps.push("no key yet");
  const callsAtStart = await calls();
  const noKey = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model" })) as { runFile: string; cancelled: boolean } | undefined;
  facts.withoutKey = { returned: noKey ?? null, calls: (await calls()) - callsAtStart };

  steps.push("set key");
  facts.setKey = await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);

  steps.push("evaluate");
  const before = await calls();
  const started = Date.now();
  const outcome = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model" })) as
    | { runFile: string; cancelled: boolean; view?: { headline: unknown; harmed: { taskId: string }[]; rescued: { taskId: string }[]; skills: unknown[] } }
    | undefined;
  if (!outcome) throw new Error("evaluateSkill returned nothing (see the log)");
  facts.evaluation = {
    ms: Date.now() - started,
    calls: (await calls()) - before,
    runFile: outcome.runFile,
    cancelled: outcome.cancelled,
    headline: outcome.view?.headline,
    harmed: outcome.view?.harmed.map((t) => t.taskId),
    rescued: outcome.view?.rescued.map((t) => t.taskId),
    skills: outcome.view?.skills,
  };

  steps.push("report rendered");
  facts.rendered = await waitFor("report webview rendered", () => api.services.reports.active?.lastRendered);

  steps.push("verdict diagnostics and lens");
  facts.diagnosticsAfterRun = await waitFor("verdict diagnostic", () => {
    const d = diagnosticsOf(uri);
    return d.some((x) => x.code.startsWith("evaluation-")) ? d : undefined;
  });
  const verdict = vscode.languages.getDiagnostics(uri).find((d) => String(d.code).startsWith("evaluation-"));
  const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>("vscode.executeCodeActionProvider", uri, verdict!.range)) ?? [];
  facts.codeActions = actions.map((a) => ({ title: a.title, command: a.command?.command }));
  facts.lensAfterRun = await lensTitles(uri);

  steps.push("side by side");
  const harmedId = (facts.evaluation as { harmed: string[] }).harmed[0]!;
  await vscode.commands.executeCommand("skillFollowing.openTaskComparison", outcome.runFile, harmedId, 0);
  const tab = await waitFor("diff tab", () => {
    const t = vscode.window.tabGroups.activeTabGroup.activeTab;
    return t && t.input instanceof vscode.TabInputTextDiff ? t : undefined;
  });
  const input = tab.input as vscode.TabInputTextDiff;
  const left = await vscode.workspace.openTextDocument(input.original);
  const right = await vscode.workspace.openTextDocument(input.modified);
  facts.sideBySide = { label: tab.label, left: left.getText(), right: right.getText(), scheme: input.modified.scheme };

  steps.push("export");
  const exported: Record<string, string> = {};
  for (const format of ["html", "csv", "json", "markdown"]) {
    const target = `${config.exportDir}/report.${format}`;
    // The report panel is the active report after the evaluation opened it.
    const file = await vscode.commands.executeCommand<string | undefined>("skillFollowing.exportReport", format, target);
    exported[format] = file ? readFileSync(file, "utf8") : "";
  }
  facts.exports = exported;

  steps.push("stale after edit");
  const editor2 = await vscode.window.showTextDocument(doc);
  await editor2.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), "4. State the unit in the final answer.\n"));
  facts.lensStale = await waitFor("stale lens", async () => {
    const t = await lensTitles(uri);
    return t.some((x) => x.includes("stale")) ? t : undefined;
  });

  steps.push("evaluate on save");
  await setSetting(api.services, "evaluateOnSave", true);
  const beforeSave = await calls();
  const finished = new Promise((resolve) => {
    const sub = api.services.runner.onDidFinish((o) => {
      sub.dispose();
      resolve(o);
    });
  });
  // Saving a document that is not dirty does nothing: no save event, no re-evaluation, and the wait below would hang.
  // (code-server, as any web VS Code, saves after 1 s by default; extension.test.ts turns files.autoSave off.)
  if (!doc.isDirty) throw new Error("SKILL.md was saved before this step (is files.autoSave on?): the save below would be a no-op");
  let sawSave = 0;
  const saveSub = vscode.workspace.onDidSaveTextDocument((d) => d.uri.toString() === doc.uri.toString() && sawSave++);
  await doc.save();
  await waitFor("the save event", () => sawSave > 0);
  saveSub.dispose();
  // The module's budget (reportFacts) bounds a save that never finishes, and names this step.
  await finished;
  // Results are stored right after the run finishes; wait for the lens to pick them up.
  facts.lensAfterSave = await waitFor("fresh lens", async () => {
    const t = await lensTitles(uri);
    return t.some((x) => x.startsWith("RAE") && !x.includes("stale")) ? t : undefined;
  });
  const afterSave = api.services.results.get(config.skillFile) as { runFile: string } | undefined;
  const records = afterSave
    ? readFileSync(afterSave.runFile, "utf8")
        .split("\n")
        .filter((l) => l.includes('"type":"run"'))
        .map((l) => JSON.parse(l) as { condition: string; modelCalls: number; cachedCalls: number })
    : [];
  facts.evaluateOnSave = {
    calls: (await calls()) - beforeSave,
    newRunFile: afterSave?.runFile,
    // In run records, modelCalls counts calls that reached the endpoint; cachedCalls those served by the cache.
    issuedByCondition: {
      enabled: records.filter((r) => r.condition === "enabled").reduce((s, r) => s + r.modelCalls, 0),
      disabled: records.filter((r) => r.condition === "disabled").reduce((s, r) => s + r.modelCalls, 0),
    },
    cachedByCondition: {
      enabled: records.filter((r) => r.condition === "enabled").reduce((s, r) => s + r.cachedCalls, 0),
      disabled: records.filter((r) => r.condition === "disabled").reduce((s, r) => s + r.cachedCalls, 0),
    },
  };
  await vscode.workspace.getConfiguration("skillFollowing").update("evaluateOnSave", undefined, vscode.ConfigurationTarget.Workspace);

  steps.push("cancel and resume");
  // A model name the cache has never seen, one call at a time, so the run is still going when we cancel.
  // Seen by the extension before the run: at the default of 4, up to 4 calls would be in flight at the cancel.
  await setSetting(api.services, "concurrency", 1);
  const beforeCancel = await calls();
  const cancelled = vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model-b" }) as Thenable<
    { runFile: string; cancelled: boolean } | undefined
  >;
  const runsDir = `${config.skillFile.replace(/\/skills\/.*$/, "")}/.skill-following/runs`;
  const partial = await waitFor("a few finished runs", () => {
    const file = readdirSync(runsDir).find((f) => f.includes("scripted-model-b"));
    if (!file) return undefined;
    const n = readFileSync(`${runsDir}/${file}`, "utf8").split("\n").filter((l) => l.includes('"type":"run"')).length;
    return n >= 2 ? `${runsDir}/${file}` : undefined;
  });
  facts.cancelCommand = await vscode.commands.executeCommand("skillFollowing.cancelEvaluation");
  const c1 = await cancelled;
  const recordsAtCancel = readFileSync(partial, "utf8").split("\n").filter((l) => l.includes('"type":"run"')).length;
  const resumed = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.taskSetFile, model: "scripted-model-b" })) as
    | { runFile: string; cancelled: boolean; view?: { headline: { rae: { value: number | null } } } }
    | undefined;
  const keys = readFileSync(partial, "utf8")
    .split("\n")
    .filter((l) => l.includes('"type":"run"'))
    .map((l) => (JSON.parse(l) as { key: string }).key);
  facts.cancelResume = {
    cancelled: c1?.cancelled,
    recordsAtCancel,
    sameFile: resumed?.runFile === partial && c1?.runFile === partial,
    resumedCancelled: resumed?.cancelled,
    records: keys.length,
    uniqueKeys: new Set(keys).size,
    calls: (await calls()) - beforeCancel,
    rae: resumed?.view?.headline.rae.value,
  };
  await vscode.workspace.getConfiguration("skillFollowing").update("concurrency", undefined, vscode.ConfigurationTarget.Workspace);

  steps.push("library and comparison");
  const lib = (await vscode.commands.executeCommand("skillFollowing.evaluateLibrary", undefined, { taskSet: config.taskSetFile, model: "scripted-model" })) as
    | { runFile: string; view?: { skills: { name: string }[]; headline: { rae: { value: number | null } } } }
    | undefined;
  facts.library = { skills: lib?.view?.skills.map((x) => x.name), rae: lib?.view?.headline.rae.value };
  const compared = (await vscode.commands.executeCommand("skillFollowing.compareModels", ["scripted-model", "scripted-model-b"], config.taskSetFile)) as string[] | undefined;
  const panel = api.services.reports.active as unknown as { runFiles: string[]; current?: { skills: { model?: string }[]; points: { kind: string; label: string }[] } } | undefined;
  facts.comparison = {
    runFiles: compared?.length,
    panelRuns: panel?.runFiles.length,
    skillModels: panel?.current?.skills.map((x) => x.model),
    points: panel?.current?.points.map((p) => `${p.kind}:${p.label}`),
  };

  steps.push("python tasks in the sandbox");
  const py = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", uri, { taskSet: config.pythonTaskSetFile, model: "scripted-model" })) as
    | { runFile: string; view?: { rescued: { taskId: string }[]; harmed: { taskId: string; reason: string }[] } }
    | undefined;
  const pyLines = py ? readFileSync(py.runFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  const pyHeader = pyLines.find((l) => l.type === "header") as { sandbox?: { isolation: string; detail?: string } } | undefined;
  const p1Disabled = pyLines.find((l) => l.type === "run" && l.taskId === "P1-add-one" && l.condition === "disabled") as { verdict?: { reason: string; failure?: unknown } } | undefined;
  facts.python = {
    rescued: py?.view?.rescued.map((t) => t.taskId),
    harmed: py?.view?.harmed.map((t) => t.taskId),
    harmedReason: py?.view?.harmed[0]?.reason,
    isolation: pyHeader?.sandbox?.isolation,
    sandboxDetail: pyHeader?.sandbox?.detail,
    p1DisabledVerdict: p1Disabled?.verdict,
  };

  steps.push("verdict severities");
  // The same verdict mapper with other outcomes: significant harm after Holm is an error, help is information.
  const results = api.services.results as unknown as { get(f: string): Record<string, unknown>; set(r: unknown[]): Promise<void> };
  const real = results.get(config.skillFile);
  const severityFor = async (patch: Record<string, unknown>) => {
    await results.set([{ ...real, ...patch }]);
    return waitFor("verdict update", () => {
      const d = diagnosticsOf(uri).find((x) => x.code.startsWith("evaluation-"));
      return d && d.code === patch.expectCode ? d : undefined;
    });
  };
  facts.verdictHarmful = await severityFor({ harmed: 9, rescued: 1, flag: "harmful", pHolm: 0.004, rae: -0.4, low: -0.6, high: -0.2, expectCode: "evaluation-harmful" });
  facts.verdictHelps = await severityFor({ harmed: 1, rescued: 6, flag: "inconclusive", pHolm: 0.1, rae: 0.25, low: -0.05, high: 0.5, expectCode: "evaluation-helps" });
  await results.set([real]);

  if (config.mirror) {
    steps.push("download task set");
    await setSetting(api.services, "taskSetMirror", config.mirror);
    const first = await vscode.commands.executeCommand<string | undefined>("skillFollowing.downloadTaskSet", "gsm8k");
    const second = await vscode.commands.executeCommand<string | undefined>("skillFollowing.downloadTaskSet", "gsm8k");
    facts.download = { first, second, lines: first ? readFileSync(first, "utf8").split("\n").filter(Boolean).length : 0 };
    await vscode.workspace.getConfiguration("skillFollowing").update("taskSetMirror", undefined, vscode.ConfigurationTarget.Workspace);
  }

  steps.push("settings have no key");
  facts.settingsKeys = Object.keys(vscode.workspace.getConfiguration("skillFollowing"));
}

export function run(): Promise<void> {
  // A step that hangs still reports where it was (the test waits 360 s for the facts).
  return reportFacts(config.resultsFile, facts, body, steps, 340_000);
}
