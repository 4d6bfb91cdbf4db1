import { z } from "zod";
import {
  ConditionSchema, ControlSampleSchema, DesignSchema, FileReadSchema, RetrievalModeSchema, SandboxInfoSchema, SearchOptionsSchema, SkillRefSchema,
  StopWhenSchema, VerdictSchema, type Condition,
} from "../../shared/vocabulary/index.js";
import { ToolCallRecordSchema } from "../agent/types.js";
import { HarnessInfoSchema } from "../agents/types.js";

/**
 * The run file: append-only JSONL in `.skill-following/runs/`. Line 1 is a header; then one `run` record per
 * finished task × condition × sample, and optionally `stop` records. This is the contract between the engine,
 * the report model, the CLI and the extension. Bump RUN_FORMAT_VERSION on any incompatible change.
 */
export const RUN_FORMAT_VERSION = 1;

export const EvalTaskInfoSchema = z.object({
  id: z.string(),
  owner: z.string(),
  shouldTrigger: z.boolean(),
  triggerOnly: z.boolean(),
  /** How many of its criteria the judge grades. */
  judged: z.number().int().nonnegative(),
});
export type EvalTaskInfo = z.infer<typeof EvalTaskInfoSchema>;

export const JudgeInfoSchema = z.object({
  /** The judge client's id (endpoint and model, no credentials). */
  id: z.string(),
  model: z.string(),
  repeats: z.number().int().positive(),
  /** The judge's prompt and grading rules (JUDGE_VERSION); absent in files written before it was recorded. */
  version: z.string().optional(),
});
export type JudgeInfo = z.infer<typeof JudgeInfoSchema>;

export const RunHeaderSchema = z.object({
  type: z.literal("header"),
  formatVersion: z.number().int(),
  toolVersion: z.string(),
  runId: z.string(),
  createdAt: z.string(),
  model: z.object({
    id: z.string(),
    name: z.string(),
    baseUrl: z.string().optional(),
    /** A model run in-process (local GGUF): the file and its sha256, so a report says exactly which weights answered. */
    weights: z.object({ file: z.string(), sha256: z.string(), bytes: z.number().int() }).optional(),
  }),
  params: z.object({
    temperature: z.number().optional(),
    seed: z.number().int().optional(),
    maxTokens: z.number().int().optional(),
    samples: z.number().int().positive(),
    maxTurns: z.number().int().positive(),
  }),
  taskSet: z.object({ name: z.string(), format: z.string(), file: z.string(), hash: z.string(), size: z.number().int() }),
  /** Tasks selected for this run, in run order (after --limit and any seeded shuffle). */
  taskIds: z.array(z.string()),
  skills: z.array(SkillRefSchema.extend({ file: z.string(), description: z.string() })),
  /** sha256 over the sorted `name:contentHash` lines of the library. */
  skillLibraryHash: z.string(),
  mode: RetrievalModeSchema,
  design: DesignSchema,
  search: SearchOptionsSchema.optional(),
  promptVersion: z.string(),
  /** How generated code was isolated: a permission-model child process, or the weaker worker fallback. */
  sandbox: SandboxInfoSchema,
  stopWhen: StopWhenSchema.default("never"),
  shuffleSeed: z.number().int().optional(),
  /** RAE-only design: the control sample (see ControlSampleSchema). */
  control: ControlSampleSchema.optional(),
  /**
   * Skill evals: whose eval each task is, whether it should load its owner (false: a near miss) and whether it is a
   * trigger case (enabled condition only), so the report can tell own evals, others' evals and near misses apart.
   */
  evalTasks: z.array(EvalTaskInfoSchema).optional(),
  /** The LLM judge of skill evals' free-text expectations (absent when no task has one). */
  judge: JudgeInfoSchema.optional(),
  /**
   * `run --shard k/n` (shard.ts): shard `index` of `count`, out of the `total` tasks of the unsharded selection;
   * `positions[i]` is where `taskIds[i]` sits in that selection. Absent in an unsharded (or merged) run file.
   */
  shard: z
    .object({
      index: z.number().int().positive(),
      count: z.number().int().positive(),
      total: z.number().int().nonnegative(),
      positions: z.array(z.number().int().nonnegative()),
    })
    .optional(),
  /** "batch": the model calls went through the provider's batch API at its batch price. Absent: synchronous calls. */
  pricing: z.enum(["synchronous", "batch"]).optional(),
  /** A real agent harness ran the tasks (src/core/agents): which one, its version and binary hash, its settings, its confinement. Absent: the built-in loop. */
  agent: HarnessInfoSchema.optional(),
});
export type RunHeader = z.infer<typeof RunHeaderSchema>;

/** A transcript message as stored (OpenAI chat shape, tool calls flattened). */
export const TranscriptMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  toolCallId: z.string().optional(),
});

export const RunRecordSchema = z.object({
  type: z.literal("run"),
  /** `${taskId}\u0000${condition}\u0000${sample}` — unique per run file. */
  key: z.string(),
  taskId: z.string(),
  condition: ConditionSchema,
  sample: z.number().int().nonnegative(),
  /** Skills returned by tool calls in this run (deduplicated, in order of first return). Empty for disabled. */
  retrieved: z.array(SkillRefSchema),
  toolCalls: z.array(ToolCallRecordSchema),
  /** Files read from skill folders (read_skill_file); absent when none. */
  filesRead: z.array(FileReadSchema).optional(),
  answer: z.string().nullable(),
  verdict: VerdictSchema,
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int() }),
  latencyMs: z.number(),
  modelCalls: z.number().int(),
  cachedCalls: z.number().int(),
  turns: z.number().int(),
  /** Set when the agent loop ended abnormally (turn limit, model error after retries); the verdict is then a failure. */
  error: z.string().optional(),
  transcript: z.array(TranscriptMessageSchema),
  finishedAt: z.string(),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * What the report, the planner and the stopping rule need of a finished run: the record without its transcript,
 * answer and tool calls. An evaluation and a report hold these, never whole records, so memory stays bounded by
 * the number of runs times a few hundred bytes however long the transcripts are (issue 16, scale of one machine).
 */
export type RunSummary = Omit<RunRecord, "transcript" | "answer" | "toolCalls">;

/** A record's summary (a new object: the record, with its transcript, can then be collected). */
export function summarizeRun(record: RunRecord): RunSummary {
  const { transcript: _t, answer: _a, toolCalls: _c, ...summary } = record;
  return summary;
}

export const StopRecordSchema = z.object({
  type: z.literal("stop"),
  reason: z.string(),
  at: z.string(),
  tasksDone: z.number().int(),
});
export type StopRecord = z.infer<typeof StopRecordSchema>;

export function runKey(taskId: string, condition: Condition, sample: number): string {
  return `${taskId}\u0000${condition}\u0000${sample}`;
}
