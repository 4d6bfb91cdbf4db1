import { z } from "zod";

/**
 * A skill's own evals in the report (issue 12). Contract fields: per evaluation `judge: {model, repeats, agreement,
 * kappa, unstablePairs}` (null without a judge) and `triggerMatrix: {skills, owners, loaded, n}` (null without skill
 * evals); per skill `trigger: {ownEvals, otherEvals, nearMiss}` (each `{n, loaded}`, counted over enabled runs) and
 * `ownEvals`, the usual pair table over its own evals on which it was loaded. Everything else is an addition.
 */
const CountSchema = z.object({ n: z.number().int().nonnegative(), loaded: z.number().int().nonnegative() });

export const SkillTriggerSchema = z.object({
  /** Enabled runs of this skill's own evals that should load it; loaded = those that did (trigger recall = loaded/n). */
  ownEvals: CountSchema,
  /** Enabled runs of evals owned by other skills; loaded = false triggers. */
  otherEvals: CountSchema,
  /** Enabled runs of this skill's near misses (`should_trigger: false`); loaded = false triggers. */
  nearMiss: CountSchema,
});
export type SkillTrigger = z.infer<typeof SkillTriggerSchema>;

const PassRateSchema = z.object({ passed: z.number().int().nonnegative(), total: z.number().int().nonnegative(), rate: z.number().nullable() });

/** Expectations passed, over every run of the tasks in question, per condition. */
export const ExpectationPassRatesSchema = z.object({ enabled: PassRateSchema, disabled: PassRateSchema });
export type ExpectationPassRates = z.infer<typeof ExpectationPassRatesSchema>;

export const JudgeBlockSchema = z.object({
  model: z.string(),
  repeats: z.number().int().positive(),
  /** Mean share of repeat pairs that agree, per graded expectation; null with one repeat. */
  agreement: z.number().min(0).max(1).nullable(),
  /** Cohen's kappa between repeats (Light's mean over pairs of repeats when k > 2); null with one repeat or when undefined. */
  kappa: z.number().nullable(),
  /** Tasks whose paired outcome differs between the judge's repeats, in task order. */
  unstablePairs: z.array(z.string()),
  // ---- additions
  id: z.string(),
  fleissKappa: z.number().nullable(),
  /** Graded expectation × run items the agreement is computed over. */
  items: z.number().int().nonnegative(),
  /** Per task and expectation: agreement over its runs, lowest first. */
  perExpectation: z.array(z.object({ taskId: z.string(), text: z.string(), agreement: z.number().min(0).max(1), runs: z.number().int().positive() })),
  /** RAE over the retrieved pairs, with and without the unstable pairs. */
  rae: z.object({ all: z.number().nullable(), withoutUnstable: z.number().nullable(), nAll: z.number().int(), nWithoutUnstable: z.number().int() }),
  /** The judge is the evaluated model (the same model name): it graded its own outputs. */
  sameModel: z.boolean(),
});
export type JudgeBlock = z.infer<typeof JudgeBlockSchema>;

export const TriggerMatrixSchema = z.object({
  /** Rows: every skill of the library. */
  skills: z.array(z.string()),
  /** Columns: the skills whose evals were run (near misses left out; they are in each skill's `trigger.nearMiss`). */
  owners: z.array(z.string()),
  /** loaded[i][j]: enabled runs of owners[j]'s evals that loaded skills[i]. */
  loaded: z.array(z.array(z.number().int().nonnegative())),
  /** n[i][j]: enabled runs of owners[j]'s evals (the same down a column). */
  n: z.array(z.array(z.number().int().nonnegative())),
});
export type TriggerMatrix = z.infer<typeof TriggerMatrixSchema>;

/** Per-skill additions for skill evals. */
export const SkillEvalFieldsSchema = {
  trigger: SkillTriggerSchema.nullable(),
  /** Expectation pass rates over this skill's own evals; null without skill evals. */
  ownExpectations: ExpectationPassRatesSchema.nullable(),
};

/** Per-evaluation additions for skill evals. */
export const EvaluationSkillEvalFieldsSchema = {
  judge: JudgeBlockSchema.nullable(),
  triggerMatrix: TriggerMatrixSchema.nullable(),
  /** Over every run of every skill-eval task; null without skill evals. */
  expectations: ExpectationPassRatesSchema.nullable(),
};
