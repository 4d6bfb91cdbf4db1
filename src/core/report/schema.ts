import { z } from "zod";
import { BadgeSchema, DesignSchema, RetrievalModeSchema, SandboxInfoSchema, SkillRefSchema, StopWhenSchema } from "../../shared/vocabulary/index.js";
import { SectionPairResultSchema, SectionResultSchema, SkillAblationSchema } from "./sections-schema.js";
import { EvaluationSkillEvalFieldsSchema, SkillEvalFieldsSchema } from "./skill-evals-schema.js";

/**
 * The one report model (issue 2 "CLI contract" + issue 4). Plain data: the CLI renders it as text, JSON, markdown,
 * JUnit, CSV and HTML; the webview validates it with ReportSchema. Contract fields (never renamed or dropped):
 * evaluations[].{model, taskSet, mode, samples, overall, retrieved, notRetrieved, lift, skills[]}, each table
 * {n, bothPass, rescued, harmed, bothFail, effect, pMid, pExact, ci}, each skill {name, contentHash, table, pHolm,
 * rescuedTasks, harmedTasks}. Everything else is an addition. `null` always means "undefined", never 0.
 */
export const REPORT_VERSION = 1;

export const IntervalSchema = z.tuple([z.number(), z.number()]);

export const TableSchema = z.object({
  n: z.number().int().nonnegative(),
  bothPass: z.number().int().nonnegative(),
  rescued: z.number().int().nonnegative(),
  harmed: z.number().int().nonnegative(),
  bothFail: z.number().int().nonnegative(),
  /** (rescued − harmed)/n; null when n = 0. */
  effect: z.number().min(-1).max(1).nullable(),
  /** Two-sided McNemar mid-p (default test). */
  pMid: z.number().min(0).max(1).nullable(),
  /** Exact conditional McNemar (conservative; `--exact` makes it the decision p). */
  pExact: z.number().min(0).max(1).nullable(),
  /** Tango score interval for θ at 1 − alpha. */
  ci: IntervalSchema.nullable(),
  // ---- additions
  newcombe: IntervalSchema.nullable(),
  accEnabled: z.number().nullable(),
  accDisabled: z.number().nullable(),
  oneSided: z
    .object({ helpfulMid: z.number(), harmfulMid: z.number(), helpfulExact: z.number(), harmfulExact: z.number() })
    .nullable(),
  /** π̂ = rescued/(rescued + harmed) with a Wilson interval; null without discordant pairs. */
  rescueShare: z.object({ estimate: z.number(), wilson: IntervalSchema }).nullable(),
  /** No table with this many discordant pairs could reach p < alpha: "too few discordant pairs", not "no effect". */
  tooFewDiscordant: z.boolean(),
});
export type Table = z.infer<typeof TableSchema>;

export const SkillResultSchema = z.object({
  name: z.string(),
  contentHash: z.string(),
  /** Over the tasks on which this skill was returned (overlapping subsets; co-retrieved skills confound). */
  table: TableSchema,
  /** Holm-adjusted p across the skills with at least one discordant pair; null for skills left out of the family. */
  pHolm: z.number().min(0).max(1).nullable(),
  rescuedTasks: z.array(z.string()),
  harmedTasks: z.array(z.string()),
  // ---- additions
  /** Benjamini–Hochberg adjusted p, for ranking (FDR). */
  pBH: z.number().min(0).max(1).nullable(),
  /** helpful/harmful when Holm-adjusted p ≤ alpha, by the sign of rescued − harmed. */
  badge: BadgeSchema,
  description: z.string().optional(),
  file: z.string().optional(),
  /** True when the library in the run header has this skill (false: returned by a run but not in any header). */
  inLibrary: z.boolean(),
  /** The latest merged run has a different content hash for this name: this entry measures an older version. */
  stale: z.boolean(),
  /** acc₊ where this skill was returned − acc₊ where it was not (Figure 1 x axis; not causal). */
  lift: z.number().nullable(),
  /** lift and this skill's RAE have opposite signs. */
  paradox: z.boolean(),
  /** Section ablation (issue 13; sections-schema.ts): most harmful first; empty when no ablation ran. */
  sections: z.array(SectionResultSchema),
  /** `--ablate-pairs`: the pairs among the 3 most harmful sections. */
  sectionPairs: z.array(SectionPairResultSchema),
  /** Which ablation files, on which tasks, and the notes every renderer shows; null when no ablation ran. */
  ablation: SkillAblationSchema.nullable(),
  /** Skill evals (issue 12; skill-evals-schema.ts): triggering, and the pair table over its own evals where it was loaded. */
  ...SkillEvalFieldsSchema,
  ownEvals: TableSchema.extend({ rescuedTasks: z.array(z.string()), harmedTasks: z.array(z.string()) }).nullable(),
});
export type SkillResult = z.infer<typeof SkillResultSchema>;

export const TaskRowSchema = z.object({
  taskId: z.string(),
  outcome: z.enum(["rescued", "harmed", "both-pass", "both-fail"]),
  yEnabled: z.boolean(),
  yDisabled: z.boolean(),
  /** Skills returned to the enabled run(s). */
  retrieved: z.array(SkillRefSchema),
  enabledReason: z.string(),
  disabledReason: z.string(),
  /** Pass rates over all samples when samples > 1. */
  passRateEnabled: z.number().optional(),
  passRateDisabled: z.number().optional(),
});
export type TaskRow = z.infer<typeof TaskRowSchema>;

export const RepeatedSchema = z.object({
  deltaHat: z.number().nullable(),
  se: z.number().nullable(),
  ci: IntervalSchema.nullable(),
  p: z.number().nullable(),
  tasks: z.number().int(),
  degenerate: z.boolean(),
});
export type Repeated = z.infer<typeof RepeatedSchema>;

export const EvaluationSchema = z.object({
  /** Model display name (the id is in modelId). */
  model: z.string(),
  /** Task-set name (hash and file below). */
  taskSet: z.string(),
  mode: RetrievalModeSchema,
  samples: z.number().int().positive(),
  /** All complete pairs (→ OAE). Null in the RAE-only design, where it is not estimable. */
  overall: TableSchema.nullable(),
  /** Tasks whose enabled run returned at least one skill (→ RAE). */
  retrieved: TableSchema,
  /** Complete pairs without retrieval (→ NRAE). Null in the RAE-only design. */
  notRetrieved: TableSchema.nullable(),
  /** acc₊(retrieved) − acc₊(not retrieved); not causal. Null when either group is empty. */
  lift: z.number().nullable(),
  skills: z.array(SkillResultSchema),
  // ---- additions
  modelId: z.string(),
  taskSetHash: z.string(),
  taskSetFile: z.string(),
  design: DesignSchema,
  alpha: z.number(),
  /** Which p-value decides: "mid-p" (default) or "exact" (--exact). */
  decisionP: z.enum(["mid-p", "exact"]),
  runIds: z.array(z.string()),
  createdAt: z.string(),
  toolVersion: z.string(),
  promptVersion: z.string(),
  /** Weakest isolation across the merged runs. */
  sandbox: SandboxInfoSchema,
  /** Tasks in the run(s); complete = both sides present (by design in RAE-only); incomplete = left out of all tables. */
  tasks: z.object({ planned: z.number().int(), complete: z.number().int(), incomplete: z.number().int(), incompleteIds: z.array(z.string()) }),
  metrics: z.object({
    OAE: z.number().nullable(),
    RAE: z.number().nullable(),
    NRAE: z.number().nullable(),
    retrievalRate: z.number().nullable(),
    /** acc₋(retrieved) − acc₋(not retrieved): the difficulty gap. lift = selectionTerm + RAE − NRAE. */
    selectionTerm: z.number().nullable(),
    /** lift and RAE have opposite signs. */
    paradox: z.boolean(),
    paradoxExplanation: z.string().nullable(),
    /** RAE-only design: OAE estimated under A0 (retrieving nothing = disabled) as retrievalRate·RAE. */
    oaeUnderA0: z.number().nullable(),
  }),
  /** How tables are formed and what "retrieved" means; one sentence each, shown in every rendering. */
  definitions: z.object({ tables: z.string(), retrieved: z.string() }),
  /** samples > 1: task-level paired-t (headline) over all samples, overall and retrieved. */
  repeated: z
    .object({ overall: RepeatedSchema.nullable(), retrieved: RepeatedSchema, aaFloor: z.number().nullable() })
    .nullable(),
  /** Noise floor and observed discordance ((rescued + harmed)/n), to compare the effect with run-to-run noise. */
  noise: z.object({
    floor: z.number().nullable(),
    floorSource: z.string(),
    observedDiscordanceRetrieved: z.number().nullable(),
  }),
  costs: z.object({
    runs: z.number().int(),
    modelCalls: z.number().int(),
    cachedCalls: z.number().int(),
    /** Runs the full paired design needs: n·(k₊ + k₋). */
    fullDesignRuns: z.number().int(),
    /** Expected saving of the RAE-only design at the observed retrieval rate: (1 − r)·k₋/(k₊ + k₋). */
    raeOnlyExpectedSaving: z.number().nullable(),
    /** 1 − runs/fullDesignRuns; null for a paired design (nothing was skipped). */
    actualSaving: z.number().nullable(),
  }),
  stopping: z
    .object({
      rule: StopWhenSchema,
      reason: z.string().nullable(),
      decided: z.enum(["helpful", "harmful"]).nullable(),
      eHelp: z.number(),
      eHarm: z.number(),
      threshold: z.number(),
      /** Anytime-valid betting CS for RAE, valid at the data-dependent stop. */
      cs: IntervalSchema,
      tasksObserved: z.number().int(),
    })
    .nullable(),
  /** Every complete pair in task order, compactly (JUnit lists each as a test case). */
  pairs: z.array(z.object({ taskId: z.string(), outcome: TaskRowSchema.shape.outcome, retrieved: z.boolean() })),
  /** Detailed rows for the rescued and harmed tasks (side-by-side views open from these). */
  taskRows: z.array(TaskRowSchema),
  /** Skill evals (issue 12; skill-evals-schema.ts): the judge's reliability, the trigger matrix, expectation pass rates. */
  ...EvaluationSkillEvalFieldsSchema,
});
export type Evaluation = z.infer<typeof EvaluationSchema>;

export const ReportSchema = z.object({
  reportVersion: z.literal(REPORT_VERSION),
  evaluations: z.array(EvaluationSchema),
});
export type Report = z.infer<typeof ReportSchema>;
