import { z } from "zod";
import { BadgeSchema } from "./vocabulary/index.js";

/**
 * The plain data the report webview renders: what one panel shows, already computed by the host from the core
 * report model (src/core/report). Everything in here is untrusted text as far as the webview is concerned:
 * skill names, task ids and reasons come from files and from model output, and are only ever set as textContent.
 */

/** A point estimate with its interval and p-value; `null` where the quantity is undefined (never 0). */
export const EstimateSchema = z.object({
  value: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  p: z.number().nullable(),
});
export type Estimate = z.infer<typeof EstimateSchema>;

/** The core report's badge (Holm-adjusted): harmful, helpful, inconclusive, or not-retrieved. */
export const FlagSchema = BadgeSchema;

/** One task whose outcome flipped between the conditions; enough to open its side-by-side view. */
export const TaskRefSchema = z.object({
  runFile: z.string(),
  taskId: z.string(),
  sample: z.number().int().nonnegative(),
  /** Skills returned in the enabled run. */
  skills: z.array(z.string()),
  /** The failing side's verdict reason. */
  reason: z.string(),
  /** Model label, for comparisons. */
  model: z.string().optional(),
});
export type TaskRef = z.infer<typeof TaskRefSchema>;

export const SkillRowSchema = z.object({
  name: z.string(),
  model: z.string().optional(),
  /** Tasks on which the skill was returned. */
  n: z.number().int(),
  rescued: z.number().int(),
  harmed: z.number().int(),
  bothPass: z.number().int(),
  bothFail: z.number().int(),
  /** `rae.p` is the skill's own (unadjusted) p-value, the one a single-skill evaluation would decide by. */
  rae: EstimateSchema,
  /** When the verdict depends on the family: "harmful alone (p 0.012); inconclusive among 12 skills (Holm p 0.082)". */
  note: z.string().optional(),
  /** Holm-adjusted p across the skills of this report. */
  pHolm: z.number().nullable(),
  flag: FlagSchema,
  /** Aggregate retrieval lift for this skill (acc⁺ retrieved − acc⁺ not retrieved). */
  lift: z.number().nullable(),
});
export type SkillRow = z.infer<typeof SkillRowSchema>;

/** One section of an ablated skill (issue 13): what removing it did, on the skill's ablation tasks. */
export const SectionRowSchema = z.object({
  skill: z.string(),
  model: z.string().optional(),
  id: z.string(),
  heading: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  n: z.number().int(),
  repaired: z.number().int(),
  broken: z.number().int(),
  /** (broken − repaired)/n with its Tango interval and mid-p: the section's contribution (negative = it harms). */
  effect: EstimateSchema,
  pHolm: z.number().nullable(),
  verdict: z.string(),
  repairedTasks: z.array(z.string()),
  brokenTasks: z.array(z.string()),
});
export type SectionRow = z.infer<typeof SectionRowSchema>;

export const ScatterPointSchema = z.object({
  label: z.string(),
  kind: z.enum(["skill", "model"]),
  lift: z.number().nullable(),
  rae: EstimateSchema,
});
export type ScatterPoint = z.infer<typeof ScatterPointSchema>;

export const RunSummarySchema = z.object({
  runFile: z.string(),
  model: z.string(),
  taskSet: z.string(),
  mode: z.string(),
  design: z.string(),
  createdAt: z.string(),
  samples: z.number().int(),
  tasks: z.number().int(),
  stopReason: z.string().optional(),
});

export const HeadlineSchema = z.object({
  rae: EstimateSchema,
  oae: EstimateSchema,
  /** The effect where nothing was retrieved (null when the design cannot estimate it). */
  nrae: EstimateSchema,
  lift: z.number().nullable(),
  /** acc⁻(retrieved) − acc⁻(not retrieved): the difficulty gap inside the lift. */
  selectionTerm: z.number().nullable(),
  /** The retrieved pair table's concordant cells (rescued and harmed below). */
  bothPass: z.number().int(),
  bothFail: z.number().int(),
  nRetrieved: z.number().int(),
  n: z.number().int(),
  rescued: z.number().int(),
  harmed: z.number().int(),
  paradox: z.boolean(),
  /** One sentence explaining the paradox when it fires. */
  paradoxText: z.string().optional(),
});
export type Headline = z.infer<typeof HeadlineSchema>;

const CountSchema = z.object({ n: z.number().int(), loaded: z.number().int() });

/** A library's own evals (issue 12): triggering per skill, the skill × owner matrix, the judge's reliability. */
export const SkillEvalsViewSchema = z.object({
  model: z.string(),
  /** Rows: skills; columns: whose evals; loaded[i][j] of n[i][j] enabled runs loaded skill i. */
  triggerMatrix: z.object({ skills: z.array(z.string()), owners: z.array(z.string()), loaded: z.array(z.array(z.number().int())), n: z.array(z.array(z.number().int())) }),
  skills: z.array(z.object({ name: z.string(), ownEvals: CountSchema, nearMiss: CountSchema, otherEvals: CountSchema, raeOwn: z.number().nullable(), nOwn: z.number().int() })),
  /** Expectation pass rates per condition (null without expectations). */
  expectations: z.object({ enabled: z.number().nullable(), disabled: z.number().nullable() }),
  judge: z.object({ model: z.string(), repeats: z.number().int(), agreement: z.number().nullable(), kappa: z.number().nullable(), unstablePairs: z.array(z.string()) }).nullable(),
});
export type SkillEvalsView = z.infer<typeof SkillEvalsViewSchema>;
/** One row of the subset table every export shows: all tasks (OAE), retrieved (RAE), not retrieved (NRAE). */
export const SubsetRowSchema = z.object({
  label: z.string(),
  /** Null when the design cannot estimate this subset (the note says why). */
  table: z
    .object({ n: z.number().int(), bothPass: z.number().int(), rescued: z.number().int(), harmed: z.number().int(), bothFail: z.number().int(), effect: EstimateSchema, verdict: z.string() })
    .nullable(),
  note: z.string().optional(),
});
export type SubsetRow = z.infer<typeof SubsetRowSchema>;

export const ExplainerPartSchema = z.object({ id: z.enum(["pairs", "lift", "holm"]), title: z.string(), paragraphs: z.array(z.string()) });

/** Why the report no longer shows the latest: the skill changed, or a newer run of it exists. */
export const StaleSchema = z.object({
  reason: z.string(),
  /** The newer run file "Show latest" opens. */
  latestRunFile: z.string().optional(),
  /** The skill file "Evaluate again" re-evaluates. */
  skillFile: z.string().optional(),
});
export type Stale = z.infer<typeof StaleSchema>;

export const ReportViewSchema = z.object({
  title: z.string(),
  runs: z.array(RunSummarySchema),
  /** The headline of the report (of the first model in a comparison). */
  headline: HeadlineSchema,
  /** In a model comparison, every model's headline, in the order compared (absent for one model). */
  models: z.array(HeadlineSchema.extend({ model: z.string() })).optional(),
  points: z.array(ScatterPointSchema),
  skills: z.array(SkillRowSchema),
  rescued: z.array(TaskRefSchema),
  harmed: z.array(TaskRefSchema),
  alpha: z.number(),
  /** Section ablation rows, most harmful first per skill (absent or empty when no ablation ran). */
  sections: z.array(SectionRowSchema).optional(),
  /** Caveats the reader must see (e.g. "temperature cannot be set for vscode.lm models; use samples > 1"). */
  notes: z.array(z.string()),
  /** Skill evals, one entry per evaluation that has them (absent otherwise). */
  skillEvals: z.array(SkillEvalsViewSchema).optional(),
  /** The subset table of the (first) evaluation, as the exports show it. */
  subsets: z.array(SubsetRowSchema),
  /** The facts list of the exported HTML (tasks, sandbox, α, lift and its selection term, noise floor, costs, …). */
  facts: z.array(z.string()),
  /** How tables are formed and what "retrieved" means. */
  definitions: z.array(z.string()),
  /** Skills in the Holm family. */
  family: z.number().int(),
  /** The "?" explainer, with this report's numbers. */
  explainer: z.array(ExplainerPartSchema),
  /** Set by the host when the skill or the run changed since (the page shows a banner with Show latest). */
  stale: StaleSchema.optional(),
});
export type ReportView = z.infer<typeof ReportViewSchema>;
