import { agentLabel } from "./agent-picker.js";
import * as vscode from "vscode";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { taskSetCacheDir } from "../core/layout.js";
import { TASK_SET_CATALOG } from "../core/tasks/download.js";
import { listModels } from "../core/models/list-models.js";
import { DEFAULT_BASE_URL } from "../core/models/openai-client.js";
import { SKILL_EVALS } from "../core/tasks/skill-evals.js";
import { COMMANDS } from "./command-ids.js";
import { modelsCacheDir } from "../core/layout.js";
import { localRuntime } from "./models/local.js";
import { localPickerEntry } from "./models/local-choice.js";
import type { Services } from "./services.js";

/** Task-set and model pickers. Both remember the last choice (globalState) and offer it first. */
const LAST_TASK_SET = "skillFollowing.lastTaskSet";
const LAST_MODEL = "skillFollowing.lastModel";

/** Where versions before the shared task-set cache kept downloads; still offered, so nothing is downloaded twice. */
function legacyTaskSetDir(svc: Services): string {
  return path.join(svc.ext.globalStorageUri.fsPath, "task-sets");
}

export async function rememberTaskSet(svc: Services, file: string): Promise<void> {
  await svc.ext.globalState.update(LAST_TASK_SET, file);
}

/** The sample task sets shipped in the extension (`samples/*.jsonl`): a first evaluation needs no download. */
export interface BuiltinTaskSet {
  file: string;
  title: string;
  tasks: number;
}

const BUILTIN_TITLES: Record<string, string> = { "python-basics.jsonl": "Python basics", "math-word.jsonl": "Math word problems" };

export function builtinTaskSets(extensionPath: string): BuiltinTaskSet[] {
  const dir = path.join(extensionPath, "samples");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      const tasks = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").length;
      return { file, title: BUILTIN_TITLES[f] ?? path.basename(f, ".jsonl"), tasks };
    });
}

/** The built-in task set of this kind of task ("math", "python"), for Try the Example. */
export function builtinTaskSet(extensionPath: string, name: "math-word" | "python-basics"): string | undefined {
  return builtinTaskSets(extensionPath).find((t) => path.basename(t.file) === `${name}.jsonl`)?.file;
}

interface FileItem extends vscode.QuickPickItem {
  file?: string;
  action?: "browse" | "download";
}

/**
 * The task-set picker. `ownEvals`: the skill being evaluated has evals/evals.json, so they come first (their item's
 * file is the SKILL_EVALS keyword; choosing them is not remembered as the last task file).
 */
export async function pickTaskSet(svc: Services, ownEvals?: { skill: string; cases: number }): Promise<string | undefined> {
  const last = svc.ext.globalState.get<string>(LAST_TASK_SET);
  const items: FileItem[] = [];
  const seen = new Set<string>();
  if (ownEvals) {
    items.push({ label: `$(beaker) ${ownEvals.skill}'s own evals`, description: `evals/evals.json · ${ownEvals.cases} cases`, detail: "Graded by their assertions and a blind judge model", file: SKILL_EVALS });
  }
  const add = (file: string, label: string, description: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    items.push({ label, description, detail: file, file });
  };
  if (last) add(last, path.basename(last), "last used");
  for (const b of builtinTaskSets(svc.ext.extensionUri.fsPath)) add(b.file, b.title, `built-in · ${b.tasks} tasks`);
  for (const dir of [taskSetCacheDir(), legacyTaskSetDir(svc)]) {
    for (const e of TASK_SET_CATALOG) add(path.join(dir, e.name, e.fileName), e.title, `downloaded · ${e.records} tasks`);
  }
  const found = await vscode.workspace.findFiles("**/*.{jsonl,jsonl.gz}", "**/{node_modules,.skill-following,.git}/**", 50);
  for (const uri of found) add(uri.fsPath, path.basename(uri.fsPath), vscode.workspace.asRelativePath(uri));
  items.push({ label: "$(cloud-download) Download a public task set…", action: "download" }, { label: "$(folder-opened) Browse for a task file…", action: "browse" });
  const choice = await vscode.window.showQuickPick(items, { title: "Task set", placeHolder: "Pick the tasks to evaluate on", matchOnDetail: true, ignoreFocusOut: true });
  if (!choice) return undefined;
  let file = choice.file;
  if (choice.action === "download") file = await vscode.commands.executeCommand<string | undefined>(COMMANDS.downloadTaskSet.id);
  if (choice.action === "browse") {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: "Use task set", filters: { "Task sets": ["jsonl", "gz", "json"] } });
    file = picked?.[0]?.fsPath;
  }
  if (file && file !== SKILL_EVALS) await rememberTaskSet(svc, file);
  return file;
}

export async function rememberModel(svc: Services, model: string): Promise<void> {
  await svc.ext.globalState.update(LAST_MODEL, model);
}

export async function lmModelItems(): Promise<vscode.QuickPickItem[]> {
  try {
    const models = await vscode.lm.selectChatModels();
    return models.map((m) => ({ label: m.id, description: `${m.vendor} · ${m.family}`, detail: m.name }));
  } catch {
    return [];
  }
}

/** The local model entry, where node-llama-cpp's binary loads here (models/local-choice.ts). */
async function localItems(): Promise<ModelItem[]> {
  const entry = localPickerEntry((await localRuntime()).ok, modelsCacheDir());
  return entry ? [entry] : [];
}

type ModelItem = vscode.QuickPickItem & { model?: string };

/**
 * The models the configured endpoint lists (GET /models with the stored key; OpenAI's own list narrowed to its chat
 * models), so the model pickers and Compare Models offer them; nothing when it does not answer in a few seconds.
 */
async function servedModels(svc: Services, baseUrl: string): Promise<string[]> {
  const listed = await listModels(baseUrl, (await svc.secrets.getApiKey())?.key, { timeoutMs: 3000 });
  if (!listed.ok) {
    svc.logger.info(`${baseUrl} lists no models for the picker (${listed.detail})`);
    return [];
  }
  return listed.models.filter((m) => baseUrl !== DEFAULT_BASE_URL || /^(gpt-|o\d)/.test(m)).sort();
}

/** One model, or several when `many` (Compare Models…). */
export async function pickModels(svc: Services, many: boolean): Promise<string[] | undefined> {
  const cfg = svc.config.get();
  const last = svc.ext.globalState.get<string>(LAST_MODEL);
  let items: ModelItem[];
  const local = await localItems();
  if (cfg.modelProvider === "vscode-lm") {
    items = [...(await lmModelItems()), ...local];
    if (items.length === 0) {
      const open = "Open Settings";
      const pick = await vscode.window.showWarningMessage(
        "No VS Code language model is available. Install and sign in to a provider (e.g. GitHub Copilot), or use an OpenAI-compatible endpoint.",
        open,
      );
      if (pick === open) await vscode.commands.executeCommand("workbench.action.openSettings", "skillFollowing.modelProvider");
      return undefined;
    }
  } else {
    const served = await servedModels(svc, cfg.baseUrl);
    const names = [...new Set([last, cfg.model, ...cfg.models, ...served].filter((m): m is string => !!m && !local.some((l) => l.model === m)))];
    items = names.map((n) => ({ label: n, description: n === last ? "last used" : n === cfg.model ? "skillFollowing.model" : served.includes(n) ? `served by ${cfg.baseUrl}` : cfg.baseUrl }));
    items.push(...local, { label: "$(edit) Other model…", description: "type a model name" });
  }
  if (last) items.sort((a, b) => Number((b.model ?? b.label) === last) - Number((a.model ?? a.label) === last));
  const picked = many
    ? await vscode.window.showQuickPick(items, { title: cfg.agent === "builtin" ? "Models to compare" : `Models to compare (${agentLabel(cfg.agent)})`, canPickMany: true, ignoreFocusOut: true })
    : await vscode.window.showQuickPick(items, { title: cfg.agent === "builtin" ? "Model" : `Model (${agentLabel(cfg.agent)})`, placeHolder: cfg.modelProvider === "vscode-lm" ? "VS Code language model" : cfg.baseUrl, ignoreFocusOut: true }).then((p) => (p ? [p] : undefined));
  if (!picked || picked.length === 0) return undefined;
  const out: string[] = [];
  for (const p of picked) {
    if (p.label.startsWith("$(edit)")) {
      const typed = await vscode.window.showInputBox({ title: "Model name", prompt: `Model name at ${cfg.baseUrl}`, ignoreFocusOut: true });
      if (typed?.trim()) out.push(typed.trim());
    } else out.push(p.model ?? p.label);
  }
  if (out.length === 1) await rememberModel(svc, out[0]!);
  return out.length ? out : undefined;
}
