import { z } from "zod";

/**
 * A skill's own evals (Agent Skills `evals/evals.json`, skill-creator's grading). One graded expectation in
 * skill-creator's `grading.json` shape: what was expected, whether the output met it, and the evidence.
 * `check` names the deterministic assertion type that graded it (absent: the LLM judge did); `votes` holds the
 * judge's verdict per repeat when it graded more than once (the `passed` field is their majority).
 */
export const ExpectationResultSchema = z.object({
  text: z.string(),
  passed: z.boolean(),
  evidence: z.string(),
  check: z.string().optional(),
  votes: z.array(z.boolean()).optional(),
});
export type ExpectationResult = z.infer<typeof ExpectationResultSchema>;

/** The deterministic assertion types an eval may use; every other typed assertion is refused, listing these. */
export const CheckTypeSchema = z.enum(["contains", "not_contains", "icontains", "regex", "equals", "json_valid"]);
export type CheckType = z.infer<typeof CheckTypeSchema>;

/** A file the agent read from a skill's folder with `read_skill_file` (progressive disclosure). */
export const FileReadSchema = z.object({ skill: z.string(), path: z.string() });
export type FileRead = z.infer<typeof FileReadSchema>;
