import { existsSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { judgeEndpoint as coreJudgeEndpoint, type ModelEndpoint } from "../core/runs/factory.js";
import type { RunSettings } from "../core/settings.js";
import type { Skill } from "../core/skills/types.js";
import { TASK_SET_CATALOG, downloadTaskSet } from "../core/tasks/download.js";
import { SKILL_EVALS, loadSkillEvals, loadTaskSet, loadTriggerEvals, withTriggerTasks, type TaskLoadIssue, type TaskSet } from "../core/tasks/index.js";
import { taskSetCacheDir } from "../core/layout.js";

/** `file:line:column: message`, as editors and terminals link it. */
export function issueText(i: TaskLoadIssue): string {
  return `${i.file}:${i.line}${i.column !== undefined ? `:${i.column}` : ""}: ${i.message}`;
}

/**
 * The tasks of a run: a task file, a public set by name, or `skill-evals` (every scanned skill's evals/evals.json),
 * plus any skill-creator trigger sets (enabled condition only). Load issues are logged, located.
 */
export async function resolveTaskSet(
  tasks: string | undefined,
  triggerFiles: readonly string[],
  skills: readonly Skill[],
  logger: Logger,
  signal: AbortSignal,
  mirror?: string,
): Promise<TaskSet> {
  let taskSet: TaskSet | undefined;
  if (tasks === SKILL_EVALS) taskSet = loadSkillEvals(skills);
  else if (tasks !== undefined) taskSet = await loadTaskSet(await resolveTasksFile(tasks, mirror, logger, signal));
  for (const file of triggerFiles) {
    if (taskSet && taskSet.format !== "skill-evals") throw new InputError(`--trigger-evals ${file}: trigger cases go with --tasks ${SKILL_EVALS} or alone, not with ${taskSet.name}`);
    const abs = path.resolve(file);
    if (!existsSync(abs)) throw new InputError(`--trigger-evals ${file}: no such file`);
    const triggers = loadTriggerEvals(abs, skills);
    taskSet = withTriggerTasks(taskSet, triggers.tasks, abs, triggers.issues);
  }
  if (!taskSet) throw new InputError("--tasks is required (or --trigger-evals)");
  for (const issue of taskSet.issues) logger.warn(issueText(issue));
  return taskSet;
}

/** `--tasks` is a file, or the name of a public set (downloaded once into the user's cache). */
async function resolveTasksFile(value: string, mirror: string | undefined, logger: Logger, signal: AbortSignal): Promise<string> {
  if (existsSync(value)) return path.resolve(value);
  const entry = TASK_SET_CATALOG.find((e) => e.name === value);
  if (!entry) throw new InputError(`--tasks ${value}: no such file, and not a known task set (${[...TASK_SET_CATALOG.map((e) => e.name), SKILL_EVALS].join(", ")})`);
  const result = await downloadTaskSet(entry.name, { cacheDir: taskSetCacheDir(), logger, signal, ...(mirror ? { baseUrl: mirror } : {}) });
  return result.file;
}

/**
 * The judge's endpoint when the settings name another model or URL; undefined means the evaluated model judges.
 * Its key is SKILL_FOLLOWING_JUDGE_API_KEY, else (same endpoint) the evaluated model's key.
 */
export function judgeEndpoint(
  settings: RunSettings,
  evaluated: { baseURL?: string; apiKey?: string; model: string },
  env: NodeJS.ProcessEnv,
  cacheDir: string,
  logger: Logger,
): ModelEndpoint | undefined {
  // Built by the core (runs/factory.ts); the CLI's part is where the judge's key comes from.
  return coreJudgeEndpoint(settings, evaluated, {
    apiKey: (sameEndpoint) => env.SKILL_FOLLOWING_JUDGE_API_KEY || (sameEndpoint ? evaluated.apiKey : undefined),
    dirs: { responsesDir: cacheDir },
    logger,
  });
}
