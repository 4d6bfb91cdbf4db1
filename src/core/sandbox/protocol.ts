import { z } from "zod";

/**
 * The JSON-lines protocol between the host-side runner and a sandbox worker (a permission-restricted child
 * process, or a worker thread in fallback mode). Plain data only; both sides validate every line.
 * One job at a time per worker: the worker's event loop is blocked while Python runs.
 */
export const PROTOCOL_VERSION = 1;

export const OracleNameSchema = z.enum(["default", "set", "not-none", "find_zero", "approx", "always", "or-zero", "alt-reference"]);

/** Compute expected outputs (and their timings) by running a trusted program on every input. */
export const ExpectedJobSchema = z.object({
  mode: z.literal("expected"),
  program: z.string(),
  entryPoint: z.string(),
  /** Lossless JSON text (see tasks/evalplus-json.ts) of all argument lists, or a Python expression in inputsPy. */
  inputsJson: z.string().optional(),
  inputsPy: z.string().optional(),
  deserialize: z.string().optional(),
  /** EvalPlus reduces outputs to `out is not None` for the "not-none" oracle. */
  outputNotNone: z.boolean(),
  /** A cap on the whole job, so a broken canonical solution cannot hang the grader. */
  capMs: z.number().positive(),
});
export type ExpectedJob = z.infer<typeof ExpectedJobSchema>;

/** Check a candidate program against expected outputs, phase by phase (base, then plus). */
export const CheckJobSchema = z.object({
  mode: z.literal("check"),
  setup: z.string().optional(),
  program: z.string(),
  entryPoint: z.string(),
  inputsJson: z.string().optional(),
  inputsPy: z.string().optional(),
  deserialize: z.string().optional(),
  reference: z.string().optional(),
  oracle: OracleNameSchema,
  atol: z.number().nonnegative(),
  /** base64 pickle of the list of expected outputs, as returned by an "expected" job. */
  expectedPickle: z.string(),
  /** Inputs whose expected output was too large to ship: recomputed from `canonical` before the candidate runs. */
  recompute: z.array(z.number().int()).optional(),
  canonical: z.string().optional(),
  outputNotNone: z.boolean().optional(),
  /** Per-input wall-clock limits, in input order. */
  limitsMs: z.array(z.number().positive()),
  /** Consecutive input ranges with their own cap, e.g. base then plus (EvalPlus checks them separately). */
  phases: z.array(z.object({ name: z.string(), count: z.number().int().nonnegative(), capMs: z.number().positive() })),
});
export type CheckJob = z.infer<typeof CheckJobSchema>;

/** Run a snippet and return what it printed; for diagnostics and the hostile-code tests. */
export const ExecJobSchema = z.object({
  mode: z.literal("exec"),
  code: z.string(),
  capMs: z.number().positive(),
});
export type ExecJob = z.infer<typeof ExecJobSchema>;

export const JobSchema = z.discriminatedUnion("mode", [ExpectedJobSchema, CheckJobSchema, ExecJobSchema]);
export type Job = z.infer<typeof JobSchema>;

export const FailureKindSchema = z.enum(["wrong-answer", "error", "timeout", "memory", "output-limit", "sandbox"]);
export type FailureKind = z.infer<typeof FailureKindSchema>;

export const JobResultSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("expected"), expectedPickle: z.string(), timesMs: z.array(z.number()), count: z.number().int(), recompute: z.array(z.number().int()) }),
  z.object({ status: z.literal("pass"), count: z.number().int() }),
  z.object({
    status: z.literal("fail"),
    kind: FailureKindSchema,
    /** "base"/"plus" input index, or absent when the program failed before any input ran. */
    phase: z.string().optional(),
    index: z.number().int().optional(),
    input: z.string().optional(),
    expected: z.string().optional(),
    actual: z.string().optional(),
    error: z.string().optional(),
  }),
  z.object({ status: z.literal("exec"), stdout: z.string(), error: z.string().optional() }),
]);
export type JobResult = z.infer<typeof JobResultSchema>;

export const HostMessageSchema = z.discriminatedUnion("type", [
  /** `nonce` is random per job; replies must echo it, so code that escapes to JS cannot forge a verdict blind. */
  z.object({ type: z.literal("run"), id: z.number().int(), nonce: z.string(), job: JobSchema }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

export const WorkerMessageSchema = z.discriminatedUnion("type", [
  /** Sent once, when the interpreter is loaded and the first fresh instance is ready. */
  z.object({ type: z.literal("ready"), version: z.literal(PROTOCOL_VERSION), pyodide: z.string(), coldStartMs: z.number() }),
  /** Sent before each input starts, so the host can arm its hard deadline for that input. */
  z.object({ type: z.literal("progress"), id: z.number().int(), nonce: z.string(), index: z.number().int(), limitMs: z.number() }),
  z.object({
    type: z.literal("result"),
    id: z.number().int(),
    nonce: z.string(),
    result: JobResultSchema,
    /** Wasm heap bytes after the job; the host recycles the worker above its threshold. */
    heapBytes: z.number(),
    /** Fresh-interpreter cost paid before this job (0 when reused). */
    interpreterMs: z.number(),
    /** The worker will exit after this message (interpreter died); the host must respawn. */
    dying: z.boolean().optional(),
  }),
  /** The worker cannot go on (load failure, interpreter crash outside a job). */
  z.object({ type: z.literal("fatal"), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;

/** Worker start-up parameters, passed on the command line (the child has an empty environment). */
export const WorkerConfigSchema = z.object({
  pyodideDir: z.string(),
  memoryMb: z.number().positive(),
  outputCapBytes: z.number().positive(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;
