import * as vscode from "vscode";
import { existsSync } from "node:fs";
import path from "node:path";
import { freshRunFile } from "../core/layout.js";
import { findSkillRoots, readSkillFile, scanSkills } from "../core/skills/index.js";
import type { Skill } from "../core/skills/types.js";
import { SKILL_EVALS, loadSkillEvals, loadTaskSet } from "../core/tasks/index.js";
import { COMMANDS } from "./command-ids.js";
import { runSettingsFromConfig } from "./config-schema.js";
import { requireTrust, type EvaluateOutcome } from "./evaluate-flow.js";
import { needs } from "./errors-ui.js";
import { resolveJudge, resolveModel } from "./models/client.js";
import type { LoadedRun, SkillResult } from "./report-view-model.js";
import type { Services } from "./services.js";
import { callsOf, outcomeLabel, outcomeMessage, skillTaskOutcomes, TEST_STATE, type TaskOutcome } from "./test-outcomes.js";
import { lensTitle } from "./verdict-text.js";

/**
 * The Testing view (issue 24): every skill of the workspace is a test item with the tasks of its shown result (the
 * configuration its CodeLens shows) as children, each passed, failed or skipped as test-outcomes.ts decides. A
 * finished evaluation, wherever it was started (palette, CodeLens, evaluate-on-save, a library run), is published as
 * a test run of the skills whose shown result it changed. There is a run profile per configuration the workspace
 * has results of ("Evaluate with <model> on <task set>") and one that asks. Running a skill evaluates it; running
 * tasks re-runs only their pairs, through the response cache, with the skills of the run they came from, in a run
 * file of their own that never replaces the skill's stored result.
 */
export const TEST_CONTROLLER_ID = "skillFollowing.tests";

/** A configuration a profile evaluates with (undefined fields: asked for, or taken from the shown result). */
interface ProfileConfig {
  model?: string;
  taskSetFile?: string;
  taskSet?: string;
}

/** What the view last showed for an item: the integration tests read it (VS Code gives no API to read results back). */
export interface ShownState {
  state: "passed" | "failed" | "skipped" | "errored" | "enqueued";
  runFile: string;
  /** The failure message, or the output line of a skipped task. */
  message?: string;
  expected?: string;
  actual?: string;
}

/** A re-run of some tasks' pairs: the run file it wrote, each task's new outcome, and the model calls it made. */
export interface TaskRerun {
  runFile: string;
  outcomes: TaskOutcome[];
  /** Model calls of the pairs: `cached` of them answered by the response cache, `sent` to the model. */
  calls: number;
  cached: number;
  sent: number;
  cancelled: boolean;
}

/** A skill's item as built from its shown result. */
interface Built {
  file: string;
  name: string;
  item: vscode.TestItem;
  result: SkillResult;
  runFile: string;
  outcomes: TaskOutcome[];
}

/**
 * A task's key in `shown` and for runWith: `<skill file>\0<task id>`. Its TestItem id is only `task:<task id>`:
 * ids need to be unique among siblings, and VS Code joins the ids of an item's chain with \0 itself.
 */
export const taskKey = (skillFile: string, taskId: string) => `${skillFile}\u0000${taskId}`;
const TASK_PREFIX = "task:";
const taskItemId = (taskId: string) => `${TASK_PREFIX}${taskId}`;
const lines = (s: string) => s.replace(/\r?\n/g, "\r\n") + "\r\n";

export class SkillTests implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly shown = new Map<string, ShownState>();
  private readonly profiles = new Map<string, vscode.TestRunProfile>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Skill file → the run file whose results the view last published for it. */
  private readonly published = new Map<string, string>();
  /** Skill file → name, from the last scan of the skill folders and the stored results. */
  private skills = new Map<string, string>();
  /** A profile's run is publishing its own results: the results-store listener then only updates the items. */
  private running = 0;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(private readonly svc: Services) {
    this.controller = vscode.tests.createTestController(TEST_CONTROLLER_ID, "Skill Following");
    this.disposables.push(this.controller);
    this.controller.refreshHandler = () => this.rescan();
    this.profile({}, true);
    svc.results.onDidChange((files) => void this.update(files), this, this.disposables);
    const watcher = vscode.workspace.createFileSystemWatcher("**/SKILL.md", false, true, false);
    this.disposables.push(watcher, watcher.onDidCreate(() => void this.rescan()), watcher.onDidDelete(() => void this.rescan()));
    // What VS Code restored from the last session is what the view would publish: nothing new to report. Taken here,
    // before any await, so a result stored later (during the first scan too) is new and goes through update().
    for (const file of svc.results.files()) {
      const result = svc.results.get(file);
      if (result) this.published.set(file, path.resolve(result.runFile));
    }
    void this.rescan();
  }

  /** Waits for the item updates started so far (tests, and a run that reads the items). */
  settled(): Promise<void> {
    return this.refreshing;
  }

  /** Finds the skills again (skill folders and stored results) and rebuilds every item, publishing nothing. */
  rescan(): Promise<void> {
    return this.enqueue(async () => {
      const ws = vscode.workspace.workspaceFolders?.[0];
      const roots = ws ? findSkillRoots(ws.uri.fsPath, this.svc.config.get().skillFolders) : [];
      const scan = roots.length ? await scanSkills(roots) : { skills: [] };
      const skills = new Map<string, string>(scan.skills.map((s) => [path.resolve(s.file), s.name]));
      for (const file of this.svc.results.files()) if (!skills.has(file)) skills.set(file, this.svc.results.get(file)?.name ?? path.basename(path.dirname(file)));
      this.skills = skills;
      for (const [id] of this.controller.items) if (!skills.has(id)) this.controller.items.delete(id);
      for (const file of skills.keys()) await this.build(file);
    });
  }

  /**
   * Results changed (an evaluation finished): rebuild those skills' items, and publish the skills whose shown result
   * is new as one test run (a library run changes many skills at once).
   */
  private update(files: string[]): Promise<void> {
    return this.enqueue(async () => {
      const fresh: Built[] = [];
      for (const file of files) {
        if (!this.skills.has(file)) this.skills.set(file, this.svc.results.get(file)?.name ?? path.basename(path.dirname(file)));
        const built = await this.build(file);
        if (built && this.running === 0 && this.published.get(file) !== built.runFile) fresh.push(built);
        if (built) this.published.set(file, built.runFile);
      }
      if (fresh.length === 0) return;
      const first = fresh[0]!.result;
      const what = fresh.length === 1 ? fresh[0]!.name : `${fresh.length} skills`;
      const testRun = this.controller.createTestRun(new vscode.TestRunRequest(fresh.map((b) => b.item)), `${what} \u00b7 ${first.model} on ${first.taskSet}`, true);
      for (const b of fresh) this.report(testRun, b.file, b.name, b.runFile, b.outcomes);
      testRun.end();
    });
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.refreshing = this.refreshing.then(work).catch((err: unknown) => this.svc.logger.warn(`Testing view: ${err instanceof Error ? err.message : String(err)}`));
    return this.refreshing;
  }

  /** The skill's item with its shown result's tasks as children; what it shows, when there is a result. */
  private async build(file: string): Promise<Built | undefined> {
    const name = this.skills.get(file) ?? path.basename(path.dirname(file));
    let item = this.controller.items.get(file);
    if (!item) {
      item = this.controller.createTestItem(file, name, vscode.Uri.file(file));
      this.controller.items.add(item);
    }
    item.label = name;
    const result = this.svc.results.get(file);
    for (const r of [result, ...this.svc.results.others(file)]) if (r) this.profile(configOf(r), false);
    if (!result) {
      item.description = "not evaluated";
      item.children.replace([]);
      return undefined;
    }
    item.description = lensTitle(result, false);
    let run: LoadedRun;
    try {
      run = await this.svc.runs.load(result.runFile);
    } catch {
      item.description = `${lensTitle(result, false)} \u00b7 run file missing`;
      item.children.replace([]);
      return undefined;
    }
    const outcomes = skillTaskOutcomes(run, result.name);
    item.children.replace(outcomes.map((o) => this.taskItem(file, o)));
    return { file, name, item, result, runFile: run.file, outcomes };
  }

  private taskItem(file: string, o: TaskOutcome): vscode.TestItem {
    const item = this.controller.createTestItem(taskItemId(o.taskId), o.taskId);
    item.description = outcomeLabel(o);
    return item;
  }

  /** Reports each task's outcome into `testRun` (the items are the skill's children with these ids). */
  private report(testRun: vscode.TestRun, file: string, name: string, runFile: string, outcomes: readonly TaskOutcome[]): void {
    const parent = this.controller.items.get(file);
    for (const o of outcomes) {
      const item = parent?.children.get(taskItemId(o.taskId));
      if (!item) continue;
      item.description = outcomeLabel(o);
      const state = TEST_STATE[o.kind];
      const m = outcomeMessage(o, name);
      this.shown.set(taskKey(file, o.taskId), { state, runFile, message: m.message, ...(m.expected !== undefined ? { expected: m.expected, actual: m.actual! } : {}) });
      const duration = (o.enabled?.latencyMs ?? 0) + (o.disabled?.latencyMs ?? 0);
      if (state === "passed") {
        testRun.appendOutput(lines(m.message), undefined, item);
        testRun.passed(item, duration);
      } else if (state === "skipped") {
        // A skipped test carries no message: the reason goes to the output, attached to the task.
        testRun.appendOutput(lines(m.message), undefined, item);
        testRun.skipped(item);
      } else {
        const message = m.expected !== undefined ? vscode.TestMessage.diff(m.message, m.expected, m.actual!) : new vscode.TestMessage(m.message);
        if (state === "failed") testRun.failed(item, message, duration);
        else testRun.errored(item, message, duration);
      }
    }
  }

  /** The profile of a configuration, created once; `{}` is the one that asks for the model and the task set. */
  private profile(config: ProfileConfig, isDefault: boolean): vscode.TestRunProfile {
    const key = config.model && config.taskSetFile ? `${config.model}\u0000${config.taskSetFile}` : "";
    const existing = this.profiles.get(key);
    if (existing) return existing;
    const label = key ? `Evaluate with ${config.model} on ${config.taskSet ?? path.basename(config.taskSetFile!)}` : "Evaluate (choose model and task set)";
    // One default (VS Code runs every default profile): the first configuration of the configured model, else the one that asks.
    const ask = this.profiles.get("");
    const becomesDefault = isDefault || (key !== "" && config.model === this.svc.config.get().model && ask?.isDefault === true);
    const profile = this.controller.createRunProfile(label, vscode.TestRunProfileKind.Run, (request, token) => this.run(config, request, token), becomesDefault);
    if (becomesDefault && ask && key !== "") ask.isDefault = false;
    this.profiles.set(key, profile);
    this.disposables.push(profile);
    return profile;
  }

  /** The profiles by label (integration tests run one as the Testing view would). */
  profileLabels(): string[] {
    return [...this.profiles.values()].map((p) => p.label);
  }

  runWith(label: string, itemIds: string[]): Promise<void> {
    const profile = [...this.profiles.values()].find((p) => p.label === label);
    if (!profile) throw new Error(`no run profile "${label}" (have: ${this.profileLabels().join(", ")})`);
    const items = itemIds.map((id) => this.findItem(id));
    const source = new vscode.CancellationTokenSource();
    return Promise.resolve(profile.runHandler(new vscode.TestRunRequest(items, undefined, profile), source.token)).finally(() => source.dispose());
  }

  private findItem(id: string): vscode.TestItem {
    const [file, taskId] = id.split("\u0000");
    const skill = this.controller.items.get(file!);
    const item = taskId === undefined ? skill : skill?.children.get(taskItemId(taskId));
    if (!item) throw new Error(`no test item ${JSON.stringify(id)}`);
    return item;
  }

  /** A profile's run: each skill asked for is evaluated; tasks asked for (without their skill) re-run their pairs. */
  private async run(config: ProfileConfig, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    await this.settled();
    const excluded = new Set(request.exclude ?? []);
    const include = request.include ?? [...this.controller.items].map(([, item]) => item);
    const whole = new Set<string>();
    const tasks = new Map<string, string[]>();
    for (const item of include) {
      if (excluded.has(item)) continue;
      if (!item.parent) whole.add(item.id);
      else if (item.id.startsWith(TASK_PREFIX)) tasks.set(item.parent.id, [...(tasks.get(item.parent.id) ?? []), item.id.slice(TASK_PREFIX.length)]);
    }
    for (const file of whole) tasks.delete(file);
    if (!(await requireTrust())) return;
    const testRun = this.controller.createTestRun(request, undefined, true);
    const cancel = token.onCancellationRequested(() => this.svc.runner.cancel());
    this.running++;
    try {
      for (const file of whole) {
        if (token.isCancellationRequested) break;
        await this.evaluateSkill(testRun, file, config);
      }
      for (const [file, ids] of tasks) {
        if (token.isCancellationRequested) break;
        await this.rerunInto(testRun, file, ids, config);
      }
    } finally {
      cancel.dispose();
      this.running--;
      testRun.end();
    }
  }

  private async evaluateSkill(testRun: vscode.TestRun, file: string, config: ProfileConfig): Promise<void> {
    const item = this.controller.items.get(file);
    if (item) testRun.started(item);
    const opts = config.model && config.taskSetFile ? { model: config.model, taskSet: config.taskSetFile, background: true } : { background: true };
    const out = await vscode.commands.executeCommand<EvaluateOutcome | undefined>(COMMANDS.evaluateSkill.id, vscode.Uri.file(file), opts);
    if (!out || out.cancelled) {
      if (item) testRun.skipped(item);
      return;
    }
    await this.settled();
    this.svc.runs.forget(out.runFile);
    const run = await this.svc.runs.load(out.runFile);
    const name = this.skills.get(file) ?? run.header.skills.find((s) => path.resolve(s.file) === file)?.name ?? "";
    // The items show the skill's shown configuration; a run of another one reports the tasks both have.
    this.report(testRun, file, name, run.file, skillTaskOutcomes(run, name));
  }

  private async rerunInto(testRun: vscode.TestRun, file: string, taskIds: string[], config: ProfileConfig): Promise<void> {
    const parent = this.controller.items.get(file);
    const items = taskIds.map((id) => parent?.children.get(taskItemId(id))).filter((i): i is vscode.TestItem => i !== undefined);
    for (const i of items) testRun.started(i);
    try {
      const out = await rerunTasks(this.svc, file, taskIds, config);
      if (!out) {
        for (const i of items) testRun.skipped(i);
        return;
      }
      const name = this.skills.get(file) ?? "";
      this.report(testRun, file, name, out.runFile, out.outcomes);
      testRun.appendOutput(lines(`Re-ran ${taskIds.length === 1 ? `the pair of ${taskIds[0]}` : `${taskIds.length} pairs`}: ${out.calls} model calls, ${out.cached} answered by the response cache, ${out.sent} sent to the model (${path.basename(out.runFile)}).`));
      for (const id of taskIds) if (!out.outcomes.some((o) => o.taskId === id)) {
        const i = parent?.children.get(taskItemId(id));
        if (i) testRun.errored(i, new vscode.TestMessage(`${id} is not in the task set of this configuration.`));
      }
    } catch (err) {
      const message = new vscode.TestMessage(err instanceof Error ? err.message : String(err));
      for (const i of items) testRun.errored(i, message);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function configOf(r: SkillResult): ProfileConfig {
  return { model: r.model, taskSetFile: r.taskSetFile, taskSet: r.taskSet };
}

/**
 * Re-runs the pairs of `taskIds` for the skill in `skillFile`: with the skills of the run its shown result came from
 * (the same library, so the same prompts and the response cache's keys), the profile's model and task set (else the
 * shown result's). Writes a run file of its own and does not touch the stored results: a few tasks are not a verdict.
 */
export async function rerunTasks(svc: Services, skillFile: string, taskIds: readonly string[], config: ProfileConfig = {}): Promise<TaskRerun | undefined> {
  if (!(await requireTrust())) return undefined;
  if (svc.runner.running) {
    await needs("An evaluation is already running.", "Cancel It", () => vscode.commands.executeCommand(COMMANDS.cancelEvaluation.id));
    return undefined;
  }
  const shown = svc.results.get(skillFile);
  const model = config.model ?? shown?.model;
  const taskSetFile = config.taskSetFile ?? shown?.taskSetFile;
  if (!model || !taskSetFile) throw new Error(`${path.basename(path.dirname(skillFile))} has no result to re-run tasks of: evaluate the skill first.`);
  const base = shown ? await svc.runs.load(shown.runFile).catch(() => undefined) : undefined;
  const files = base ? base.header.skills.map((s) => path.resolve(s.file)) : [path.resolve(skillFile)];
  if (!files.includes(path.resolve(skillFile))) files.push(path.resolve(skillFile));
  const skills: Skill[] = [];
  for (const f of files) {
    const { skill, findings } = await readSkillFile(f);
    if (!skill) throw new Error(`${f} cannot be read: ${findings[0]?.message ?? "it does not parse"} (line ${findings[0]?.line ?? 1}).`);
    skills.push(skill);
  }
  const full = taskSetFile === SKILL_EVALS ? loadSkillEvals(skills) : await loadTaskSet(taskSetFile);
  const wanted = new Set(taskIds);
  const taskSet = { ...full, tasks: full.tasks.filter((t) => wanted.has(t.id)) };
  const name = skills.find((s) => path.resolve(s.file) === path.resolve(skillFile))?.name ?? path.basename(path.dirname(skillFile));
  if (taskSet.tasks.length === 0) return { runFile: "", outcomes: [], calls: 0, cached: 0, sent: 0, cancelled: false };

  // The task set's own settings, but all of the chosen tasks: a limit or a stop rule is about a whole set.
  const { limit: _limit, ...settings } = runSettingsFromConfig(svc.config.get());
  const resolved = await resolveModel(svc, model, settings);
  const { modelName, baseUrl, dispose } = resolved;
  const judge = await resolveJudge(svc, settings, { modelName, ...(baseUrl ? { baseUrl } : {}) });
  const label = taskSet.tasks.length === 1 ? `${name} ${taskSet.tasks[0]!.id}` : `${name} ${taskSet.tasks.length} tasks`;
  // A label of its own ("<skill> <task>"), so Delete Old Runs never takes this run for the skill's latest.
  const runFile = freshRunFile(svc.layout, { label: `${name}-task-rerun`, taskSet: full.name, model: modelName });
  svc.logger.info(`re-running ${taskSet.tasks.length} pair(s) of ${name} on ${full.name} with ${modelName} → ${runFile}`);
  const outcome = await svc.runner
    .run({ skills, taskSet, model: resolved, ...(judge ? { judge } : {}), settings, label, runFile, resume: false })
    .finally(() => dispose?.());
  if (!existsSync(runFile)) return { runFile, outcomes: [], calls: 0, cached: 0, sent: 0, cancelled: true };
  svc.runs.forget(runFile);
  const run = await svc.runs.load(runFile);
  const outcomes = skillTaskOutcomes(run, name).filter((o) => wanted.has(o.taskId));
  return { runFile, outcomes, ...callsOf(run.records), cancelled: outcome.cancelled };
}
