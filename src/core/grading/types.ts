import type { Task } from "../tasks/schema.js";

/** Why a verdict is what it is. `reason` is one line a person can act on. */
export interface Verdict {
  pass: boolean;
  /** e.g. `plus input #12 (1, [2, 3]): expected 5, got 6`, `timeout after 4.0 s on base input #0`, `no python code block in the answer`. */
  reason: string;
  /** Optional structured detail of the first failure (shown in the side-by-side view). */
  failure?: {
    input?: string;
    expected?: string;
    actual?: string;
    error?: string;
    kind: "wrong-answer" | "error" | "timeout" | "memory" | "output-limit" | "no-answer" | "sandbox";
  };
}

export interface GradeOptions {
  signal?: AbortSignal;
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
