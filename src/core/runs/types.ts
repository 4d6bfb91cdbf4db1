import { z } from "zod";

/**
 * The run file: append-only JSONL in `.skill-following/runs/`. Line 1 is a header; then one `run` record per
 * finished task × condition × sample, and optionally `stop` records. This is the contract between the engine,
 * the report model, the CLI and the extension. Bump RUN_FORMAT_VERSION on any incompatible change.
 */
export const RUN_FORMAT_VERSION = 1;

export const ConditionSchema = z.enum(["enabled", "disabled"]);
export type Condition = z.infer<typeof ConditionSchema>;

export const RetrievalModeSchema = z.enum(["catalog", "search"]);
export type RetrievalMode = z.infer<typeof RetrievalModeSchema>;

export const SkillRefSchema = z.object({ name: z.string(), contentHash: z.string() });
export type SkillRef = z.infer<typeof SkillRefSchema>;

export const RunHeaderSchema = z.object({
  type: z.literal("header"),
  formatVersion: z.number().int(),
  toolVersion: z.string(),
  runId: z.string(),
  createdAt: z.string(),
  model: z.object({ id: z.string(), name: z.string(), baseUrl: z.string().optional() }),
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
  design: z.enum(["paired", "rae-only"]),
  search: z.object({ topK: z.number().int().positive(), threshold: z.number() }).optional(),
  promptVersion: z.string(),
  /** How generated code was isolated: a permission-model child process, or the weaker worker fallback. */
  sandbox: z.object({ isolation: z.enum(["process-permission", "worker-fallback", "none"]), detail: z.string().optional() }),
  stopWhen: z.enum(["never", "decided"]).default("never"),
  shuffleSeed: z.number().int().optional(),
  /**
   * RAE-only design: a random control sample (fraction q, chosen by a seeded hash of the task id, so fixed before
   * any run) whose disabled runs are made whatever the enabled run does, so NRAE is estimable and A0 testable.
   */
  control: z.object({ q: z.number().gt(0).lte(1), seed: z.number().int() }).optional(),
});
export type RunHeader = z.infer<typeof RunHeaderSchema>;

export const ToolCallRecordSchema = z.object({
  name: z.string(),
  arguments: z.string(),
  /** True when the call returned at least one skill (a retrieval event). */
  retrieved: z.array(SkillRefSchema),
  error: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

export const VerdictSchema = z.object({
  pass: z.boolean(),
  reason: z.string(),
  failure: z
    .object({
      input: z.string().optional(),
      expected: z.string().optional(),
      actual: z.string().optional(),
      error: z.string().optional(),
      kind: z.enum(["wrong-answer", "error", "timeout", "memory", "output-limit", "no-answer", "sandbox"]),
    })
    .optional(),
});

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
