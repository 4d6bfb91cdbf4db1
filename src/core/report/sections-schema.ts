import { z } from "zod";

/**
 * Section ablation results in the report (issue 13). Contract fields, per skill:
 * `sections: [{id, heading, startLine, endLine, table: {n, repaired, broken, effect, pMid, pExact, ci}, pHolm,
 * repairedTasks, brokenTasks}]`, empty when no ablation ran. The table compares the full skill with the skill
 * without this section on the same tasks: repaired = full failed, ablated passed; broken = full passed, ablated
 * failed; effect = (broken − repaired)/n, the section's contribution (negative: the section harms). Lines are
 * 1-based in the SKILL.md as evaluated. Everything else is an addition.
 */
const Interval = z.tuple([z.number(), z.number()]);

export const SectionTableSchema = z.object({
  n: z.number().int().nonnegative(),
  repaired: z.number().int().nonnegative(),
  broken: z.number().int().nonnegative(),
  /** (broken − repaired)/n: accuracy with the section minus without it; null when n = 0. */
  effect: z.number().min(-1).max(1).nullable(),
  /** Two-sided McNemar mid-p on (broken, repaired). */
  pMid: z.number().min(0).max(1).nullable(),
  pExact: z.number().min(0).max(1).nullable(),
  /** Tango score interval for the effect at 1 − alpha. */
  ci: Interval.nullable(),
  // ---- additions
  bothPass: z.number().int().nonnegative(),
  bothFail: z.number().int().nonnegative(),
  tooFewDiscordant: z.boolean(),
});
export type SectionTable = z.infer<typeof SectionTableSchema>;

/**
 * harms: removing the section repairs significantly more tasks than it breaks after Holm across the skill's
 * sections; harms-unadjusted: only before adjustment; helps / helps-unadjusted: the reverse; no-effect: removing it
 * changed no outcome; inconclusive: some changed, not significantly; not-evaluated: no task paired.
 */
export const SectionVerdictSchema = z.enum(["harms", "harms-unadjusted", "helps", "helps-unadjusted", "no-effect", "inconclusive", "not-evaluated"]);
export type SectionVerdict = z.infer<typeof SectionVerdictSchema>;

export const SectionResultSchema = z.object({
  id: z.string(),
  heading: z.string(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  table: SectionTableSchema,
  /** Holm-adjusted decision p across this skill's single sections with a discordant pair; null otherwise. */
  pHolm: z.number().min(0).max(1).nullable(),
  repairedTasks: z.array(z.string()),
  brokenTasks: z.array(z.string()),
  // ---- additions
  kind: z.enum(["preamble", "heading", "block", "description"]),
  path: z.array(z.string()),
  contentHash: z.string(),
  verdict: SectionVerdictSchema,
  /** Ablated runs on which the skill was not loaded (a pre-load call missed the cache and the model went another way): left out of the table. */
  notLoaded: z.number().int().nonnegative(),
});
export type SectionResult = z.infer<typeof SectionResultSchema>;

export const SectionPairResultSchema = z.object({
  /** `idA+idB`. */
  id: z.string(),
  sections: z.tuple([z.string(), z.string()]),
  headings: z.tuple([z.string(), z.string()]),
  table: SectionTableSchema,
  repairedTasks: z.array(z.string()),
  brokenTasks: z.array(z.string()),
  /** effect(pair) − effect(A) − effect(B) on the same tasks: non-zero when the two sections act together. */
  interaction: z.number().nullable(),
});
export type SectionPairResult = z.infer<typeof SectionPairResultSchema>;

export const SkillAblationSchema = z.object({
  files: z.array(z.string()),
  /** The skill as ablated (the sections' lines refer to this version). */
  contentHash: z.string(),
  tasks: z.number().int(),
  samples: z.number().int(),
  control: z.object({ q: z.number(), sampled: z.number().int(), of: z.number().int() }),
  /** What the table means and what single-section ablation cannot see; shown by every renderer. */
  notes: z.array(z.string()),
});
export type SkillAblation = z.infer<typeof SkillAblationSchema>;
