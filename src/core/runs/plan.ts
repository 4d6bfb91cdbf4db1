import { createHash } from "node:crypto";
import { mulberry32 } from "../stats/bootstrap.js";
import type { Task } from "../tasks/schema.js";
import type { Condition, ControlSample, Design } from "../../shared/vocabulary/index.js";
import { runKey, type RunSummary } from "./types.js";

/** One model run to perform: a task in a condition, for one sample index. */
export interface Job {
  key: string;
  task: Task;
  condition: Condition;
  sample: number;
}

/** Whether a task is in the control sample: sha256(seed:id) read as a uniform number in [0, 1), below q. */
export function inControlSample(taskId: string, control: ControlSample | undefined): boolean {
  if (!control) return false;
  const u = Number.parseInt(createHash("sha256").update(`${control.seed}:${taskId}`).digest("hex").slice(0, 12), 16) / 2 ** 48;
  return u < control.q;
}

/**
 * Decides which runs are needed. Full paired design: every task × sample in both conditions. RAE-only design:
 * every enabled run, and the disabled runs of a task only once its enabled runs show a retrieval
 * ("retrieved" = any enabled sample returned a skill; fixed in advance as stats-spec §8 asks). With a control
 * sample, its tasks run both conditions from the start (they need the disabled runs either way).
 * Completed keys (from a resumed run file) are never planned again.
 */
export class Planner {
  private readonly enabledDone = new Map<string, { done: number; retrieved: boolean }>();
  private readonly completed = new Set<string>();
  /** Tasks whose disabled runs the RAE-only design needs (kept so progress totals cost O(1)). */
  private readonly unlocked = new Set<string>();
  private readonly enabledOnlyCount: number;
  private readonly enabledOnlyIds: Set<string>;
  private readonly byId: Map<string, Task>;

  constructor(
    readonly tasks: readonly Task[],
    readonly samples: number,
    readonly design: Design,
    existing: readonly RunSummary[],
    readonly control?: ControlSample,
  ) {
    this.enabledOnlyIds = new Set(tasks.filter(enabledOnly).map((t) => t.id));
    this.enabledOnlyCount = this.enabledOnlyIds.size;
    this.byId = new Map(tasks.map((t) => [t.id, t]));
    if (design === "rae-only") for (const t of tasks) if (!enabledOnly(t) && inControlSample(t.id, control)) this.unlocked.add(t.id);
    for (const r of existing) this.noteDone(r);
  }

  /** Jobs that can start now, in task order: enabled and disabled of a task next to each other. */
  initialJobs(): Job[] {
    const jobs: Job[] = [];
    for (const task of this.tasks) {
      for (let s = 0; s < this.samples; s++) this.push(jobs, task, "enabled", s);
      if (enabledOnly(task)) continue;
      if (this.design === "paired" || this.unlocked.has(task.id)) {
        for (let s = 0; s < this.samples; s++) this.push(jobs, task, "disabled", s);
      }
    }
    return jobs;
  }

  /** Records a finished run; returns the jobs it unlocks (RAE-only: the disabled runs of a retrieving task). */
  onFinished(record: RunSummary): Job[] {
    const wasUnlocked = this.unlocked.has(record.taskId);
    this.noteDone(record);
    if (this.design !== "rae-only" || record.condition !== "enabled" || wasUnlocked || !this.disabledUnlocked(record.taskId)) return [];
    const task = this.byId.get(record.taskId);
    const jobs: Job[] = [];
    if (task && !enabledOnly(task)) for (let s = 0; s < this.samples; s++) this.push(jobs, task, "disabled", s);
    return jobs;
  }

  /** Number of runs the design needs given what is known now (grows in RAE-only mode as retrievals appear). */
  plannedTotal(): number {
    const perCondition = this.tasks.length * this.samples;
    const paired = this.tasks.length - this.enabledOnlyCount;
    return this.design === "paired" ? perCondition + paired * this.samples : perCondition + this.unlocked.size * this.samples;
  }

  isCompleted(key: string): boolean {
    return this.completed.has(key);
  }

  private noteDone(r: RunSummary): void {
    this.completed.add(r.key);
    if (r.condition !== "enabled") return;
    const e = this.enabledDone.get(r.taskId) ?? { done: 0, retrieved: false };
    e.done++;
    e.retrieved ||= r.retrieved.length > 0;
    this.enabledDone.set(r.taskId, e);
    if (this.disabledUnlocked(r.taskId) && !this.enabledOnlyIds.has(r.taskId)) this.unlocked.add(r.taskId);
  }

  private disabledUnlocked(taskId: string): boolean {
    const e = this.enabledDone.get(taskId);
    return !!e && e.done >= this.samples && e.retrieved;
  }

  private push(jobs: Job[], task: Task, condition: Condition, sample: number): void {
    const key = runKey(task.id, condition, sample);
    if (!this.completed.has(key)) jobs.push({ key, task, condition, sample });
  }
}

/** Trigger cases of skill evals run in the enabled condition only: they measure triggering, not an effect. */
export function enabledOnly(task: Task): boolean {
  return task.kind === "skill-eval" && task.triggerOnly;
}

/** A reproducible permutation (Fisher–Yates over the stats module's seeded PRNG). */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const rand = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
