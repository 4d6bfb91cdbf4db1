import { z } from "zod";
import { ExpectationResultSchema } from "./skill-evals.js";

/** Why a failing answer failed. `sandbox` and `timeout` are the grader's own trouble, re-checked and never cached. */
export const FailureKindSchema = z.enum(["wrong-answer", "error", "timeout", "memory", "output-limit", "no-answer", "sandbox"]);
export type FailureKind = z.infer<typeof FailureKindSchema>;

/** A grader's verdict on one answer, and why. `reason` is one line a person can act on. */
export const VerdictSchema = z.object({
  pass: z.boolean(),
  /** e.g. `plus input #12 (1, [2, 3]): expected 5, got 6`, `timeout after 4.0 s on base input #0`, `no python code block in the answer`. */
  reason: z.string(),
  /** Optional structured detail of the first failure (shown in the side-by-side view). */
  failure: z
    .object({
      input: z.string().optional(),
      expected: z.string().optional(),
      actual: z.string().optional(),
      error: z.string().optional(),
      kind: FailureKindSchema,
    })
    .optional(),
  /** Skill evals: every assertion and expectation of the task, graded (skill-creator's `grading.json` entries). */
  expectations: z.array(ExpectationResultSchema).optional(),
});
export type Verdict = z.infer<typeof VerdictSchema>;

/** A skill's verdict in a report: helpful/harmful when its Holm-adjusted p ≤ alpha, by the sign of rescued − harmed. */
export const BadgeSchema = z.enum(["helpful", "harmful", "inconclusive", "not-retrieved"]);
export type Badge = z.infer<typeof BadgeSchema>;
