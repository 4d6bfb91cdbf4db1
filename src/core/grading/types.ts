import type { Verdict } from "../../shared/vocabulary/index.js";
import type { Task } from "../tasks/schema.js";
import type { JudgeConfig } from "./judge.js";

export type { Verdict } from "../../shared/vocabulary/index.js";

export interface GradeOptions {
  signal?: AbortSignal;
  /** The judge of skill evals' free-text expectations (the engine passes it from the settings). */
  judge?: JudgeConfig;
}

/**
 * A grader checks one extracted answer against a task. It never throws for bad answers (that is a failing
 * verdict); it throws only when the grader itself cannot work (sandbox unavailable, bad task config).
 */
export interface Grader {
  grade(task: Task, answer: string | null, options?: GradeOptions): Promise<Verdict>;
  /** Releases processes and caches. Idempotent. */
  dispose(): Promise<void>;
}
