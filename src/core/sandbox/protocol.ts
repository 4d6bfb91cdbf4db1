import { z } from "zod";
import { PyValueSchema } from "./values.js";

/**
 * The JSON-lines protocol between the host and a sandbox process. Two kinds of process speak it, and they never
 * share anything:
 *
 * - an **answer** process runs exactly one model-written program (a `check` or `exec` job) and is then killed. It
 *   receives the inputs — never the expected outputs — and returns each output as a plain tagged value
 *   (values.ts). Everything it says is treated as the answer's own claim: the host compares, times and judges.
 * - a **reference** process runs trusted code only (the task's canonical solution and reference functions) to
 *   compute expected outputs (`expected` jobs). It never runs an answer.
 *
 * Each line from a process is parsed with the host's own byte cap; a line that is not one of the messages
 * below counts against a small budget, after which the process is killed.
 */
import { PROTOCOL_VERSION } from "./wire.js";

export { PROTOCOL_VERSION };

export const OracleNameSchema = z.enum(["default", "set", "not-none", "find_zero", "approx", "always", "or-zero", "alt-reference"]);
export type Oracle = z.infer<typeof OracleNameSchema>;

const Inputs = {
  /** Lossless JSON text (see tasks/evalplus-json.ts) of all argument lists, or a Python expression in inputsPy. */
  inputsJson: z.string().optional(),
  inputsPy: z.string().optional(),
  /** Task-provided `deserialize(args)` source (EvalPlus's special input types). */
  deserialize: z.string().optional(),
};

/** Reference process: run the trusted canonical solution on every input. */
export const ExpectedJobSchema = z.object({
  mode: z.literal("expected"),
  program: z.string(),
  entryPoint: z.string(),
  ...Inputs,
  /** EvalPlus reduces outputs to `out is not None` for the "not-none" oracle. */
  outputNotNone: z.boolean(),
  /** Source of `reference(*args)`, the alternative reference output (oracle "alt-reference"). */
  reference: z.string().optional(),
  /** Also return the deserialized arguments (oracle "find_zero" needs them). */
  wantArgs: z.boolean(),
  /** Outputs whose encoding would pass this many bytes are returned as a digest (exact comparison only). */
  digestOverBytes: z.number().int().positive().optional(),
  /** A cap on the whole job, so a broken canonical solution cannot hang the grader. */
  capMs: z.number().positive(),
});
export type ExpectedJob = z.infer<typeof ExpectedJobSchema>;

/** Answer process: load the answer, call it on every input, stream back each output. */
export const CheckJobSchema = z.object({
  mode: z.literal("check"),
  /** Code run before the answer (HumanEval's prompt: imports and helpers the answer may rely on). */
  setup: z.string().optional(),
  program: z.string(),
  entryPoint: z.string(),
  ...Inputs,
  /** Per-input limits: an input that returns past its limit (CPU time) is reported as a timeout. The host enforces its own deadlines and kills. */
  limitsMs: z.array(z.number().positive()),
  /** Cap for loading the answer (running its module code). */
  loadCapMs: z.number().positive(),
  /** Inputs whose expected output is huge: return `_sf_digest(out)` instead of the value. */
  digest: z.array(z.number().int().nonnegative()),
  /** Per-input byte caps of an output line; the host enforces them too. */
  outputCaps: z.array(z.number().int().positive()),
});
export type CheckJob = z.infer<typeof CheckJobSchema>;

/** Answer process: run a snippet and return what it printed (diagnostics and the hostile-code tests). */
export const ExecJobSchema = z.object({
  mode: z.literal("exec"),
  code: z.string(),
  capMs: z.number().positive(),
});
export type ExecJob = z.infer<typeof ExecJobSchema>;

export const JobSchema = z.discriminatedUnion("mode", [ExpectedJobSchema, CheckJobSchema, ExecJobSchema]);
export type Job = z.infer<typeof JobSchema>;
export type AnswerJob = CheckJob | ExecJob;

/** Host → process: one job. An answer process gets exactly one; a reference process one at a time. */
export const HostMessageSchema = z.object({ type: z.literal("run"), job: JobSchema });
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** How an answer's own code failed, as its process reports it (a claim: it can only make the answer fail). */
const RaiseKindSchema = z.enum(["error", "timeout", "memory", "output-limit"]);

const short = z.string().max(4000);

export const ProcessMessageSchema = z.discriminatedUnion("type", [
  /** Sent once, when the interpreter is restored from the snapshot and waits for its job. */
  z.object({ type: z.literal("ready"), version: z.literal(PROTOCOL_VERSION), pyodide: z.string().max(100) }),
  /** Answer process: the answer's module ran and defines the entry point. */
  z.object({ type: z.literal("loaded") }),
  /** Answer process: the output for input `i`, as a value or (for huge expected outputs) a digest. */
  z.object({ type: z.literal("out"), i: z.number().int().nonnegative(), v: PyValueSchema.optional(), h: z.string().regex(/^[0-9a-f]{64}$/).optional(), n: z.number().int().nonnegative().optional() }),
  /** Answer process: the answer raised (or ran out of time/memory/output) on input `i`, or while loading. */
  z.object({ type: z.literal("raise"), i: z.number().int().nonnegative().optional(), kind: RaiseKindSchema, error: short }),
  /** Answer process, exec job: what the snippet printed. */
  z.object({ type: z.literal("exec"), stdout: z.string().max(40_000), error: short.optional() }),
  /** Reference process: the expected output for input `i`, the canonical time, and the input's repr. */
  z.object({
    type: z.literal("exp"),
    i: z.number().int().nonnegative(),
    ms: z.number().nonnegative(),
    /** Time the reference took to encode (or digest) this output, ms. */
    sms: z.number().nonnegative().optional(),
    in: short,
    v: PyValueSchema.optional(),
    h: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    n: z.number().int().nonnegative().optional(),
    p: short.optional(),
    alt: PyValueSchema.optional(),
    args: PyValueSchema.optional(),
  }),
  /** The job ended normally (answer: every input answered; reference: every expected output sent). */
  z.object({ type: z.literal("done"), count: z.number().int().nonnegative() }),
  /** The process cannot go on (load failure, crash outside a job). */
  z.object({ type: z.literal("fatal"), message: short }),
]);
export type ProcessMessage = z.infer<typeof ProcessMessageSchema>;

/** Roles a sandbox process can be started in (see worker-entry.ts). */
export const RoleSchema = z.enum(["snapshot", "answer", "reference"]);
export type Role = z.infer<typeof RoleSchema>;

/** Process start-up parameters, passed on the command line (the process has an empty environment). */
export const WorkerConfigSchema = z.object({
  role: RoleSchema,
  pyodideDir: z.string(),
  /** The memory snapshot every interpreter is restored from (absent for the snapshot role). */
  snapshotFile: z.string().optional(),
  memoryMb: z.number().positive(),
  outputCapBytes: z.number().positive(),
  /** Descriptors the process inherited from the host besides 0-2 (isolation.ts inheritedFds): closed before Pyodide loads. */
  closeFds: z.array(z.number().int().min(3)).optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;
