import * as vscode from "vscode";
import { findSkillRoots, scanSkills } from "../core/skills/index.js";
import { downloadTaskSet, TASK_SET_CATALOG, type TaskSetName } from "../core/tasks/download.js";
import { COMMANDS, succeeded, WALKTHROUGH_STEP_OF, type CommandKey } from "./command-ids.js";
import { completeStep } from "./walkthrough.js";
import { needs, showError } from "./errors-ui.js";
import { evaluateSkill, runEvaluation, requireTrust, type EvaluateOptions } from "./evaluate-flow.js";
import { exportOpenReport } from "./export-report.js";
import { taskSetCacheDir } from "../core/layout.js";
import { pickModels, pickTaskSet, rememberTaskSet } from "./pickers.js";
import type { Services } from "./services.js";
import { openTaskComparison } from "./transcripts.js";
import { findWhatHarms, removeSectionAndReevaluate } from "./ablation.js";
import { chooseAgent } from "./agent-picker.js";
import { chooseEndpoint, resumePendingEndpoint, tryExample } from "./first-run.js";
import { modelOrdinal } from "../shared/progress.js";
import { deleteOldRuns, deleteRun } from "./results-tree.js";
import { compareWithCommitted, openEditDiff } from "./edit-diff.js";
import { EditHistory } from "./edit-history.js";

/**
 * The command table: every contributed command id → its handler. Typed `Record<CommandKey, …>`, so a command in
 * command-ids.ts without a handler does not compile, and a unit test diffs command-ids.ts with package.json.
 * Handlers return values so tests (and other commands) can use the outcome.
 */
type Handler = (svc: Services, ...args: unknown[]) => Promise<unknown>;

async function evaluateLibrary(svc: Services, folder?: unknown, opts: EvaluateOptions = {}) {
  if (!(await requireTrust())) return undefined;
  const ws = vscode.workspace.workspaceFolders?.[0];
  const roots = folder instanceof vscode.Uri ? [folder.fsPath] : ws ? findSkillRoots(ws.uri.fsPath, svc.config.get().skillFolders) : [];
  if (roots.length === 0) {
    await needs("No skill folders found (skills/, .agents/skills/, .claude/skills/, .github/skills/ or skillFollowing.skillFolders).", "Open Settings", () =>
      vscode.commands.executeCommand("workbench.action.openSettings", "skillFollowing.skillFolders"),
    );
    return undefined;
  }
  const scan = await scanSkills(roots);
  for (const f of scan.findings.filter((x) => x.severity === "error")) svc.logger.warn(`${f.file}:${f.line}:${f.column}: ${f.message}`);
  if (scan.skills.length === 0) {
    await needs(`No valid skill in ${roots.join(", ")}.`, "Show Log", async () => svc.logger.show());
    return undefined;
  }
  return runEvaluation(svc, scan.skills, `library (${scan.skills.length} skill${scan.skills.length === 1 ? "" : "s"})`, opts);
}

async function compareModels(svc: Services, models?: unknown, taskSet?: unknown) {
  if (!(await requireTrust())) return undefined;
  const ws = vscode.workspace.workspaceFolders?.[0];
  const roots = ws ? findSkillRoots(ws.uri.fsPath, svc.config.get().skillFolders) : [];
  const scan = await scanSkills(roots);
  if (scan.skills.length === 0) {
    await needs("Compare Models… evaluates the workspace's skill library, and none was found.", "Open Settings", () =>
      vscode.commands.executeCommand("workbench.action.openSettings", "skillFollowing.skillFolders"),
    );
    return undefined;
  }
  const names = Array.isArray(models) ? models.map(String) : await pickModels(svc, true);
  if (!names || names.length === 0) return undefined;
  const file = typeof taskSet === "string" ? taskSet : await pickTaskSet(svc);
  if (!file) return undefined;
  const runFiles: string[] = [];
  for (const [i, model] of names.entries()) {
    const out = await runEvaluation(svc, scan.skills, "library", { taskSet: file, model, background: true, ordinal: modelOrdinal(i, names.length, model) });
    if (!out || out.cancelled) return undefined;
    runFiles.push(out.runFile);
  }
  await svc.reports.open(runFiles);
  return runFiles;
}

async function openReport(svc: Services, files?: unknown) {
  let runFiles = Array.isArray(files) ? files.map(String) : typeof files === "string" ? [files] : undefined;
  if (!runFiles) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: true,
      openLabel: "Open Report",
      defaultUri: vscode.Uri.file(svc.layout.runsDir),
      filters: { "Run files": ["jsonl"] },
    });
    runFiles = picked?.map((u) => u.fsPath);
  }
  if (!runFiles || runFiles.length === 0) return undefined;
  return svc.reports.open(runFiles);
}

async function downloadTaskSetCommand(svc: Services, name?: unknown) {
  let chosen = typeof name === "string" ? name : undefined;
  if (!chosen) {
    const items = [
      ...TASK_SET_CATALOG.map((e) => ({ label: e.title, description: `${e.records} tasks · ${e.kind}`, detail: `${e.url} · ${e.license}`, name: e.name })),
      { label: "$(folder-opened) Use a local file instead…", name: "local" },
    ];
    chosen = (await vscode.window.showQuickPick(items, { title: "Download a task set (sha256-checked, cached)", ignoreFocusOut: true }))?.name;
  }
  if (!chosen) return undefined;
  if (chosen === "local") {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { "Task sets": ["jsonl", "gz", "json"] } });
    const file = picked?.[0]?.fsPath;
    if (file) await rememberTaskSet(svc, file);
    return file;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Downloading ${chosen}`, cancellable: true },
    (_p, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      const mirror = svc.config.get().taskSetMirror;
      return downloadTaskSet(chosen as TaskSetName, {
        cacheDir: taskSetCacheDir(),
        logger: svc.logger,
        signal: controller.signal,
        ...(mirror ? { baseUrl: mirror } : {}),
      });
    },
  );
  await rememberTaskSet(svc, result.file);
  void vscode.window.showInformationMessage(`${chosen} ${result.cached ? "was already downloaded" : "downloaded"} (sha256 ${result.sha256.slice(0, 12)}…).`);
  return result.file;
}

async function setApiKey(svc: Services, value?: unknown) {
  const key =
    typeof value === "string"
      ? value
      : await vscode.window.showInputBox({
          title: "API key for the OpenAI-compatible endpoint",
          prompt: `Stored in VS Code's secret storage, used for ${svc.config.get().baseUrl}. Leave empty to remove the stored key.`,
          password: true,
          ignoreFocusOut: true,
        });
  if (key === undefined) return false;
  if (key.trim() === "") {
    await svc.secrets.deleteApiKey();
    void vscode.window.showInformationMessage("API key removed.");
    return true;
  }
  await svc.secrets.setApiKey(key.trim());
  void vscode.window.showInformationMessage("API key saved in secret storage.");
  // An endpoint setup that stopped on "needs an API key" continues now, wherever the key was set from.
  await resumePendingEndpoint(svc);
  return true;
}

async function exportReport(svc: Services, format?: unknown, target?: unknown) {
  const panel = svc.reports.active ?? svc.reports.all()[0];
  if (!panel?.reportModel) {
    await needs("Open a report first.", "Open Report…", () => vscode.commands.executeCommand(COMMANDS.openReport.id));
    return undefined;
  }
  return exportOpenReport(svc, panel, format, target);
}

async function showHarmedTasks(svc: Services, uri?: unknown) {
  const file = uri instanceof vscode.Uri ? uri.fsPath : vscode.window.activeTextEditor?.document.uri.fsPath;
  const result = file ? svc.results.get(file) : undefined;
  if (!result) {
    await needs("This skill has not been evaluated yet.", "Evaluate This Skill", () => vscode.commands.executeCommand(COMMANDS.evaluateSkill.id, uri));
    return undefined;
  }
  return svc.reports.open([result.runFile], { v: 1, type: "focus", section: "harmed" });
}

/** A skill from the Skill Following view arrives as its tree node: the commands take its file as a Uri. */
function asUri(arg: unknown): unknown {
  const file = arg && typeof arg === "object" && !(arg instanceof vscode.Uri) ? (arg as { file?: unknown }).file : undefined;
  return typeof file === "string" ? vscode.Uri.file(file) : arg;
}

export const COMMAND_HANDLERS: Record<CommandKey, Handler> = {
  evaluateSkill: (svc, uri, opts) => evaluateSkill(svc, asUri(uri), opts ?? {}),
  evaluateLibrary: (svc, folder, opts) => evaluateLibrary(svc, folder, opts ?? {}),
  compareModels: (svc, models, taskSet) => compareModels(svc, models, taskSet),
  openReport: (svc, files) => openReport(svc, files),
  downloadTaskSet: (svc, name) => downloadTaskSetCommand(svc, name),
  setApiKey: (svc, value) => setApiKey(svc, value),
  cancelEvaluation: async (svc) => {
    if (svc.runner.cancel()) return true;
    void vscode.window.showInformationMessage("No evaluation is running.");
    return false;
  },
  exportReport: (svc, format, target) => exportReport(svc, format, target),
  showLog: async (svc) => svc.logger.show(),
  tryExample: (svc, opts) => tryExample(svc, opts ?? {}),
  chooseEndpoint: (svc, choice) => chooseEndpoint(svc, choice),
  chooseAgent: (svc, choice) => chooseAgent(svc, choice),
  chooseTaskSet: (svc) => pickTaskSet(svc),
  deleteRun: (svc, node, confirmed) => deleteRun(svc, node, confirmed === true),
  deleteOldRuns: (svc, confirmed) => deleteOldRuns(svc, confirmed === true),
  refreshResults: async (svc) => svc.tree?.refresh(),
  openTaskComparison: (_svc, runFile, taskId, sample) => openTaskComparison(String(runFile), String(taskId), Number(sample ?? 0)),
  showHarmedTasks: (svc, uri) => showHarmedTasks(svc, asUri(uri)),
  findWhatHarms: (svc, uri, opts) => findWhatHarms(svc, uri, opts ?? {}),
  removeSectionAndReevaluate: (svc, uri, sectionId) => removeSectionAndReevaluate(svc, uri, sectionId),
  compareWithCommitted: (svc, uri) => compareWithCommitted(svc, editsOf(svc), asUri(uri)),
  showEditDiff: (svc, file, index, taskId) => openEditDiff(editsOf(svc), asUri(file), index, taskId),
};

/** The edit history (activate() sets it; a test's services may not). */
function editsOf(svc: Services): EditHistory {
  svc.edits ??= new EditHistory(svc.ext.workspaceState);
  return svc.edits;
}

export function registerCommands(svc: Services): vscode.Disposable[] {
  return (Object.keys(COMMANDS) as CommandKey[]).map((key) =>
    vscode.commands.registerCommand(COMMANDS[key].id, async (...args: unknown[]) => {
      try {
        const outcome = await COMMAND_HANDLERS[key](svc, ...args);
        const step = WALKTHROUGH_STEP_OF[key];
        if (step && succeeded(outcome)) await completeStep(step);
        return outcome;
      } catch (err) {
        await showError(err, svc.logger);
        return undefined;
      }
    }),
  );
}
