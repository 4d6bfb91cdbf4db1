import { z } from "zod";
import { AgentIdSchema, DesignSchema, PythonRuntimeSchema, RetrievalModeSchema, StopWhenSchema } from "../shared/vocabulary/index.js";
import { InputError } from "./errors.js";

/**
 * Every option of an evaluation, with its default, range and a description that names no host. The CLI builds it
 * from its flags (src/cli/settings.ts) and the extension from its settings (src/extension/config-schema.ts); both
 * print these descriptions (usage text, package.json), and a unit test holds the three in step. What identifies
 * the endpoint (model, base URL, key) is not here: it comes with the model client.
 */
export const RunSettingsSchema = z
  .object({
    mode: RetrievalModeSchema.default("catalog").describe(
      "How the enabled condition reaches the skills: catalog (names and descriptions in the system prompt, load_skill returns a body; how Claude Code, Copilot and Codex work) or search (search_skills returns the best matches; the paper's interface).",
    ),
    topK: z.number().int().min(1).max(100).default(3).describe("Search mode: the most skills one search returns."),
    searchThreshold: z.number().min(0).max(1e9).default(0).describe("Search mode: the lowest BM25 score a skill needs to be returned."),
    design: DesignSchema.default("paired").describe(
      "paired runs every task in both conditions (OAE, RAE and lift); rae-only runs the disabled condition only where the enabled run retrieved a skill (cheaper; RAE only).",
    ),
    raeOnlyControl: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        "RAE-only design: also run the disabled condition on this random fraction of all tasks (a control sample fixed before the run), so NRAE is estimated and the assumption behind OAE = r·RAE can be tested. 0 = none.",
      ),
    samples: z.number().int().min(1).max(100).default(1).describe("Samples per task and condition (use more than 1 with a temperature above 0)."),
    temperature: z.number().min(0).max(2).default(0).describe("Sampling temperature, the same in both conditions. Models that cannot set it (such as editor-provided language models) ignore it."),
    seed: z.number().int().min(0).optional().describe("Sampling seed, where the endpoint supports one."),
    maxTokens: z.number().int().min(1).optional().describe("Maximum completion tokens per model call."),
    maxTurns: z.number().int().min(1).max(50).default(6).describe("Agent turns per task before giving up."),
    concurrency: z.number().int().min(1).max(64).default(4).describe("Model calls in flight at once."),
    limit: z.number().int().min(1).optional().describe("Evaluate only the first N tasks of the task set (after the seeded shuffle when stopping early)."),
    stopWhen: StopWhenSchema.default("never").describe(
      "never runs every task; decided runs the tasks in a seeded random order and stops once the sign of RAE is decided (anytime-valid).",
    ),
    shuffleSeed: z.number().int().min(0).default(1).describe("Seed of the task order when stopping early, and of the RAE-only control sample."),
    alpha: z.number().min(1e-6).max(0.5).default(0.05).describe("Significance level for intervals, Holm-adjusted verdicts and the early-stopping rule."),
    timeoutSeconds: z.number().min(1).max(3600).default(120).describe("Seconds before a model request to an OpenAI-compatible endpoint is abandoned (and retried)."),
    judgeModel: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe("Skill evals: the model that grades free-text expectations (blind, at temperature 0). Default: the evaluated model, which then grades its own outputs (the run warns)."),
    judgeBaseUrl: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe("Skill evals: the OpenAI-compatible endpoint of the judge model. Default: the evaluated model's endpoint."),
    judgeRepeats: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(1)
      .describe(
        "Skill evals: how many times the judge grades each output. Above 1 the report gives the judge's self-agreement, Cohen's kappa, the pairs whose outcome flips between gradings, and RAE without them. An expectation passes when more than half of its gradings pass, so a tie fails it: choose an odd number.",
      ),
    responseCache: z
      .boolean()
      .default(true)
      .describe("Reuse cached model responses and verdicts, so a re-run costs only the calls whose input changed; without it every call goes to the model and every answer is checked again."),
    batch: z
      .boolean()
      .default(false)
      .describe(
        "Send each agent turn of all pending runs as one batch job through the provider's batch API (OpenAI's /v1/batches: about half the price, answers within the provider's window of up to 24 hours). An interrupted run re-attaches to its batches. Only for endpoints with a batch API, not for editor-provided language models.",
      ),
    sandboxPython: PythonRuntimeSchema.default("auto").describe(
      "The Python that checks generated code: auto (the default) picks cpython wherever its probe passes and pyodide elsewhere; pyodide (every platform: a fresh Pyodide process per answer under Node's permission model and the OS confinement; the most layers); cpython (Linux with bubblewrap and CPython 3.11+: a fresh native CPython per answer under bubblewrap, a seccomp filter and rlimits; many times faster, with fewer layers between an answer and the machine; an error elsewhere). The run header and the report record which one ran and why.",
    ),
    agent: AgentIdSchema.default("builtin").describe(
      "The agent that runs the tasks: builtin (this product's loop: the skill catalog or search tools, the paper's setting) or a real agent harness run headless against the model through a local recording proxy, with the skills installed in its project skills folder in the enabled condition: codex (Codex CLI), claude-code (Claude Code), opencode (OpenCode) or gemini (Gemini CLI), installed with npm (@openai/codex, @anthropic-ai/claude-code, opencode-ai, @google/gemini-cli).",
    ),
    agentUnconfined: z.boolean().default(false).describe(
      "Run a harness agent without bubblewrap confinement (only where bubblewrap is unavailable): its shell commands then run with your user's rights and network. The run header records the choice.",
    ),
  })
  .superRefine((s, ctx) => {
    if (s.raeOnlyControl > 0 && s.design !== "rae-only") {
      ctx.addIssue({ code: "custom", path: ["raeOnlyControl"], message: "a control sample needs the RAE-only design" });
    }
  });

export type RunSettings = z.output<typeof RunSettingsSchema>;
/** What a host passes: any option may be left out for its default. */
export type RunSettingsInput = z.input<typeof RunSettingsSchema>;
export type RunSettingKey = keyof RunSettings;

const SHAPE = RunSettingsSchema.shape;
export const RUN_SETTING_KEYS = Object.keys(SHAPE) as RunSettingKey[];

/** The schema of one option (for hosts that convert or validate one value at a time). */
export function runSettingSchema(key: RunSettingKey): z.ZodType {
  return SHAPE[key];
}

/** Every option at its default. */
export const DEFAULT_RUN_SETTINGS: RunSettings = RunSettingsSchema.parse({});

/** One option as the hosts present it: its JSON-schema type, range, default and description. */
export interface RunSettingSpec {
  type: "integer" | "number" | "string" | "boolean";
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  /** Absent for options that are off unless given (seed, maxTokens, limit). */
  default?: number | string | boolean;
  description: string;
}

/** Every option's spec, read off the schema itself (so usage text, package.json and validation cannot drift). */
export const RUN_SETTING_SPECS: Readonly<Record<RunSettingKey, RunSettingSpec>> = (() => {
  const props = z.toJSONSchema(RunSettingsSchema, { io: "input" }).properties as Record<string, Record<string, unknown>>;
  const out = {} as Record<RunSettingKey, RunSettingSpec>;
  for (const key of RUN_SETTING_KEYS) {
    const p = props[key]!;
    const bound = (v: unknown) => (typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);
    const min = bound(p.minimum);
    const max = bound(p.maximum);
    out[key] = {
      type: p.type as RunSettingSpec["type"],
      ...(Array.isArray(p.enum) ? { enum: p.enum as string[] } : {}),
      ...(min !== undefined ? { minimum: min } : {}),
      ...(max !== undefined ? { maximum: max } : {}),
      ...(p.default !== undefined ? { default: p.default as RunSettingSpec["default"] } : {}),
      description: String(p.description),
    };
  }
  return out;
})();

/** "a whole number from 1 to 100", "one of catalog, search": what an option takes, for error texts in any host. */
export function describeAccepted(spec: RunSettingSpec): string {
  if (spec.enum) return `one of ${spec.enum.join(", ")}`;
  if (spec.type === "boolean") return "true or false";
  if (spec.type === "string") return "a non-empty text";
  const what = spec.type === "integer" ? "a whole number" : "a number";
  if (spec.minimum !== undefined && spec.maximum !== undefined) return `${what} from ${spec.minimum} to ${spec.maximum}`;
  if (spec.minimum !== undefined) return `${what} ≥ ${spec.minimum}`;
  return what;
}

/**
 * Validates and completes a host's options. A bad value is an InputError naming the option by its key (a hint id),
 * which each host renders as its flag or setting.
 */
export function parseRunSettings(input: RunSettingsInput): RunSettings {
  const r = RunSettingsSchema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const key = String(issue.path[0]) as RunSettingKey;
  if (issue.code === "custom") {
    throw new InputError(`${key}: ${issue.message}`, { hint: "Choose the rae-only design, or set the control fraction to 0.", hintIds: ["raeOnlyControl", "design"] });
  }
  const got = (input as Record<string, unknown>)[key];
  throw new InputError(`${key} must be ${describeAccepted(RUN_SETTING_SPECS[key])} (got ${JSON.stringify(got)})`, { hintIds: [key] });
}
