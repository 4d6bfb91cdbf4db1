import * as vscode from "vscode";
import path from "node:path";
import { withSkillText } from "../core/runs/rerun.js";
import { readSkillFile, skillContentHash } from "../core/skills/index.js";
import { COMMANDS } from "./command-ids.js";
import { editLensTitle, keepSkillVersion, keptSkillVersion, recordEdit, type EditEntry, type EditHistory } from "./edit-history.js";
import { needs } from "./errors-ui.js";
import { evaluateSkill, runEvaluation } from "./evaluate-flow.js";
import { pickModels, pickTaskSet } from "./pickers.js";
import type { Services } from "./services.js";
import { transcriptUri } from "./transcripts.js";

/**
 * "What did my edit change" in the editor (issue 28): an edit opens as the two SKILL.md versions side by side
 * (VS Code's diff editor on the kept texts), with its improved, regressed and trigger-changed tasks in a pick list,
 * each opening the two versions' transcripts of that task side by side. Compare with Committed Version evaluates the
 * SKILL.md at HEAD (through the built-in git extension's API) and the working copy, and records that as an edit.
 */
export const SKILL_VERSION_SCHEME = "skill-following-version";

/** A kept text as a read-only document; `label` (the side: "HEAD", "previous evaluation", "this version") is in the path, so each comparison gets its own diff tab. */
export function versionUri(contentHash: string, label: string): vscode.Uri {
  const side = label.replace(/[^A-Za-z0-9._~-]+/g, "-").slice(0, 40) || "version";
  return vscode.Uri.from({ scheme: SKILL_VERSION_SCHEME, path: `/${contentHash.slice(0, 12)}/${side}/SKILL.md`, query: contentHash });
}

export function registerSkillVersions(svc: Services): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SKILL_VERSION_SCHEME, {
    provideTextDocumentContent: (uri) => keptSkillVersion(svc.layout, uri.query),
  });
}

/** A pair name of a diff's task lists: `task` or, with several samples, `task#sample`. */
export function pairOf(name: string, severalSamples: boolean): { taskId: string; sample: number } {
  const m = severalSamples ? /^(.*)#(\d+)$/.exec(name) : null;
  return m ? { taskId: m[1]!, sample: Number(m[2]) } : { taskId: name, sample: 0 };
}

interface TaskPick extends vscode.QuickPickItem {
  taskId?: string;
  sample?: number;
}

/** The pick list of an edit's tasks: improved, regressed, then trigger changes (not counted). */
export function editTaskItems(e: EditEntry): TaskPick[] {
  const d = e.diff;
  const several = d.note !== undefined;
  const group = (label: string, names: string[], detail: string): TaskPick[] =>
    names.length === 0 ? [] : [{ label, kind: vscode.QuickPickItemKind.Separator }, ...names.map((n) => ({ label: n, description: detail, ...pairOf(n, several) }))];
  return [
    ...group("Improved (failed before, passes now)", d.improvedTasks, "improved"),
    ...group("Regressed (passed before, fails now)", d.regressedTasks, "regressed"),
    ...group("Now loads the skill (trigger change, not counted)", d.triggerChanged.gained, "loads the skill now"),
    ...group("No longer loads the skill (trigger change, not counted)", d.triggerChanged.lost, "no longer loads it"),
  ];
}

/** The two versions' enabled transcripts of one task, before left, after right. */
export async function openEditTask(e: EditEntry, taskId: string, sample = 0): Promise<void> {
  const left = transcriptUri(e.beforeRun, taskId, sample, "enabled");
  const right = transcriptUri(e.afterRun, taskId, sample, "enabled");
  await vscode.commands.executeCommand("vscode.diff", left, right, `${taskId}: before ↔ after the edit`, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}

/** Opens an edit: the two texts side by side, then its tasks to pick from (a task opens its transcripts). */
export async function openEditDiff(history: EditHistory, fileArg: unknown, index?: unknown, taskId?: unknown): Promise<EditEntry | undefined> {
  const file = fileArg instanceof vscode.Uri ? fileArg.fsPath : typeof fileArg === "string" ? fileArg : vscode.window.activeTextEditor?.document.uri.fsPath;
  const entry = file ? history.of(file)[typeof index === "number" ? index : 0] : undefined;
  if (!entry) {
    await needs("No edit of this skill has been evaluated yet: save an edit with evaluate-on-save, Re-evaluate, or Compare with Committed Version.", "Compare with Committed Version", () =>
      vscode.commands.executeCommand(COMMANDS.compareWithCommitted.id, fileArg),
    );
    return undefined;
  }
  const d = entry.diff;
  if (typeof taskId === "string") {
    const p = pairOf(taskId, d.note !== undefined);
    await openEditTask(entry, p.taskId, p.sample);
    return entry;
  }
  const title = `${d.skill}: ${entry.beforeLabel} ↔ this version — ${editLensTitle(d).replace(/^\$\([a-z]+\) /, "").replace(/^this edit: /, "")}`;
  await vscode.commands.executeCommand("vscode.diff", versionUri(d.before.hash, entry.beforeLabel), versionUri(d.after.hash, "this version"), title, { preview: false });
  const items = editTaskItems(entry);
  if (items.length === 0) return entry;
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: "A task opens its transcripts with the old and the new text side by side", ignoreFocusOut: true });
  if (pick?.taskId !== undefined) await openEditTask(entry, pick.taskId, pick.sample ?? 0);
  return entry;
}

/** The subset of the built-in git extension's API (vscode.git, getAPI(1)) used here. */
export interface GitApiLike {
  getRepository(uri: vscode.Uri): { show(ref: string, path: string): Promise<string> } | null;
  /** Opens the repository at a folder the extension has not discovered (yet). */
  openRepository?(root: vscode.Uri): Promise<{ show(ref: string, path: string): Promise<string> } | null>;
}

interface GitApiV1 extends GitApiLike {
  state?: "uninitialized" | "initialized";
  onDidChangeState?: vscode.Event<"uninitialized" | "initialized">;
}

/** The built-in git extension's API, once it has looked for the workspace's repositories (at most 10 s). */
async function gitApi(): Promise<GitApiLike | undefined> {
  const ext = vscode.extensions.getExtension<{ getAPI(version: 1): GitApiV1 }>("vscode.git");
  if (!ext) return undefined;
  const exports = ext.isActive ? ext.exports : await ext.activate();
  const api = exports.getAPI(1);
  if (api.state === "uninitialized" && api.onDidChangeState) {
    const change = api.onDidChangeState;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      const sub = change((s) => {
        if (s !== "initialized") return;
        clearTimeout(timer);
        sub.dispose();
        resolve();
      });
    });
  }
  return api;
}

/** The SKILL.md's text at `ref`, through the git extension; a message for the user when there is none. */
export async function committedText(api: GitApiLike | undefined, uri: vscode.Uri, ref = "HEAD"): Promise<{ text: string } | { problem: string }> {
  if (!api) return { problem: "The built-in Git extension is not available (is git installed and the Git extension enabled?)." };
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri;
  const repo = api.getRepository(uri) ?? (folder && api.openRepository ? await api.openRepository(folder).catch(() => null) : null);
  if (!repo) return { problem: `${vscode.workspace.asRelativePath(uri)} is not in a git repository.` };
  try {
    return { text: await repo.show(ref, uri.fsPath) };
  } catch (err) {
    return { problem: `${vscode.workspace.asRelativePath(uri)} has no committed version at ${ref} (${err instanceof Error ? err.message.split("\n")[0] : String(err)}). Commit it first.` };
  }
}

/** Compare with Committed Version: evaluates the SKILL.md at HEAD and as saved, and records the difference as an edit. */
export async function compareWithCommitted(svc: Services, history: EditHistory, uriArg?: unknown, api?: GitApiLike): Promise<EditEntry | undefined> {
  const uri = uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
  if (!uri || path.basename(uri.fsPath) !== "SKILL.md") {
    await needs("Open a SKILL.md to compare it with its committed version.", "Open a SKILL.md", () => vscode.commands.executeCommand("workbench.action.quickOpen", "SKILL.md"));
    return undefined;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) await open.save();
  const committed = await committedText(api ?? (await gitApi()), uri);
  if ("problem" in committed) {
    svc.logger.warn(`Compare with Committed Version: ${committed.problem}`);
    void vscode.window.showWarningMessage(committed.problem);
    return undefined;
  }
  const current = await readSkillFile(uri.fsPath);
  if (!current.skill) {
    await needs(`${path.basename(path.dirname(uri.fsPath))}/SKILL.md does not load: fix it before comparing.`, "Show Problems", () => vscode.commands.executeCommand("workbench.actions.view.problems"));
    return undefined;
  }
  const name = current.skill.name;
  if (skillContentHash(committed.text) === current.skill.contentHash) {
    void vscode.window.showInformationMessage(`${name}: SKILL.md is the same as at HEAD; there is no edit to compare.`);
    return undefined;
  }
  const [headSkill] = withSkillText([], name, uri.fsPath, committed.text, `HEAD:${vscode.workspace.asRelativePath(uri)}`);
  const last = svc.results.get(uri.fsPath);
  const taskSet = last?.taskSetFile ?? (await pickTaskSet(svc));
  if (!taskSet) return undefined;
  const model = last?.model ?? (await pickModels(svc, false))?.[0];
  if (!model) return undefined;
  keepSkillVersion(svc.layout, headSkill!.contentHash, committed.text);
  svc.logger.info(`Compare with Committed Version: evaluating ${name} as committed at HEAD (${headSkill!.contentHash.slice(0, 12)}) on ${taskSet} with ${model}`);
  const before = await runEvaluation(svc, [headSkill!], `${name} at HEAD`, { taskSet, model, background: true, detached: true });
  if (!before || before.cancelled) return undefined;
  // The saved text: the CodeLens's run when it evaluated exactly this text with this configuration, else a new one.
  const reuse = last && last.contentHash === current.skill.contentHash && last.taskSetFile === taskSet && last.model === model ? last.runFile : undefined;
  const after = reuse ?? (await evaluateSkill(svc, uri, { taskSet, model, background: true }))?.runFile;
  if (!after) return undefined;
  const entry = await recordEdit(svc, history, name, uri.fsPath, before.runFile, after, "HEAD");
  if (!entry) {
    void vscode.window.showWarningMessage(`${name}: the runs at HEAD and now could not be paired (see the log).`);
    return undefined;
  }
  await openEditDiff(history, uri.fsPath, 0);
  return entry;
}
