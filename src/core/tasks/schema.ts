import { z } from "zod";
import { CheckTypeSchema } from "../../shared/vocabulary/index.js";

/**
 * Our own task format, one JSON object per line. Importers turn EvalPlus MBPP+/HumanEval+, GSM8K and
 * MATH-500 into the same shape.
 */

/** How a python-function task's outputs are compared with the canonical solution's. */
export const OracleSchema = z.enum([
  "default", // exact ==, with the float rule (atol, or 1e-6 when outputs are floats)
  "set", // set(out) == set(exp)
  "not-none", // (out is not None) == (exp is not None)
  "find_zero", // HumanEval/32: |poly(xs, out)| <= atol
  "approx", // math.isclose-style with atol
  "always", // EvalPlus Mbpp/164 (are_equivalent): every output passes
  "or-zero", // EvalPlus Mbpp/295 (sum_div): default rule, or the output is 0
  "alt-reference", // EvalPlus Mbpp/558, 581: default rule, or equal (within atol) to tests.reference(*args)
]);
export type Oracle = z.infer<typeof OracleSchema>;

export const PythonTestsSchema = z.object({
  /** Argument lists (JSON). Each element is the positional arguments of one call. */
  base: z.array(z.array(z.unknown())),
  plus: z.array(z.array(z.unknown())).default([]),
  atol: z.number().nonnegative().default(0),
  oracle: OracleSchema.default("default"),
  /**
   * Optional Python source of `def deserialize(args): ...` returning the converted argument list
   * (JSON has no tuples/sets/complex; EvalPlus converts inputs for 52 MBPP+ tasks).
   */
  deserialize: z.string().optional(),
  /**
   * Optional Python source run before the answer in the same namespace (HumanEval prompts carry imports and
   * helper functions the solution may call). An answer that does not define the entry point is appended to it.
   */
  setup: z.string().optional(),
  /** Optional Python expression evaluating to all argument lists, used instead of base/plus when inputs are not JSON (OriginFmt files). */
  inputsPy: z.string().optional(),
  /** Python source of `def reference(*args)`, the alternative accepted answer of the "alt-reference" oracle. */
  reference: z.string().optional(),
  /** Optional expected outputs as Python literals, when known (e.g. OriginFmt files). Else computed from the canonical solution. */
  expected: z.array(z.string()).optional(),
});
export type PythonTests = z.infer<typeof PythonTestsSchema>;

export const PythonFunctionTaskSchema = z.object({
  id: z.string().min(1),
  kind: z.literal("python-function"),
  /** The task text given to the model verbatim. */
  prompt: z.string().min(1),
  entryPoint: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a Python identifier"),
  /** A complete program defining the entry point (prompt code included where the benchmark needs it). */
  canonicalSolution: z.string().min(1),
  tests: PythonTestsSchema,
  tags: z.array(z.string()).optional(),
});
export type PythonFunctionTask = z.infer<typeof PythonFunctionTaskSchema>;

export const MathAnswerTaskSchema = z.object({
  id: z.string().min(1),
  kind: z.literal("math-answer"),
  prompt: z.string().min(1),
  /** The reference final answer (plain number, fraction or LaTeX). */
  answer: z.string().min(1),
  tags: z.array(z.string()).optional(),
});
export type MathAnswerTask = z.infer<typeof MathAnswerTaskSchema>;

/**
 * One graded item of a skill eval, in the order the eval file lists them: a deterministic check
 * (`{type, value}`, run first, no model), or a free-text expectation for the LLM judge.
 */
export const EvalCriterionSchema = z.discriminatedUnion("type", [
  z.object({ type: CheckTypeSchema, value: z.string(), name: z.string().optional(), flags: z.string().optional() }),
  z.object({ type: z.literal("judge"), text: z.string().min(1) }),
]);
export type EvalCriterion = z.infer<typeof EvalCriterionSchema>;

/** A file attached to an eval's prompt: inlined when it is UTF-8 text under the size cap, else listed by name and size. */
export const AttachmentSchema = z.object({
  /** Relative to the skill folder, as the eval file names it. */
  path: z.string().min(1),
  bytes: z.number().int().nonnegative(),
  text: z.string().optional(),
  /** Why the text is not shown (binary, over the cap). */
  note: z.string().optional(),
});
export type Attachment = z.infer<typeof AttachmentSchema>;

/**
 * A case from a skill's own `evals/evals.json` (or a trigger-only set). Id `<skill>/<eval id>`. `owner` is the skill
 * whose evals it is; `shouldTrigger: false` marks a near miss (a prompt that should not load the owner);
 * `triggerOnly` cases run in the enabled condition only and measure triggering, not an effect.
 */
export const SkillEvalTaskSchema = z.object({
  id: z.string().min(1),
  kind: z.literal("skill-eval"),
  prompt: z.string().min(1),
  owner: z.string().min(1),
  evalId: z.union([z.number(), z.string()]),
  name: z.string().optional(),
  shouldTrigger: z.boolean().default(true),
  triggerOnly: z.boolean().default(false),
  expectedOutput: z.string().optional(),
  criteria: z.array(EvalCriterionSchema).default([]),
  attachments: z.array(AttachmentSchema).default([]),
  tags: z.array(z.string()).optional(),
});
export type SkillEvalTask = z.infer<typeof SkillEvalTaskSchema>;

export const TaskSchema = z.discriminatedUnion("kind", [PythonFunctionTaskSchema, MathAnswerTaskSchema, SkillEvalTaskSchema]);
export type Task = z.infer<typeof TaskSchema>;

/** A located problem in a task file. The rest of the file still loads. */
export interface TaskLoadIssue {
  file: string;
  line: number;
  /** 1-based, where the format knows it (JSON eval files). */
  column?: number;
  message: string;
}

export interface TaskSet {
  /** Short name shown in reports, e.g. `mbppplus`, `gsm8k`, or the file's base name. */
  name: string;
  /** Which importer read it. */
  format: "native" | "skill-evals" | "evalplus-mbpp" | "evalplus-humaneval" | "evalplus-mbpp-originfmt" | "evalplus-humaneval-originfmt" | "gsm8k" | "math500";
  file: string;
  /** sha256 of the file bytes as read (compressed bytes for .gz). */
  hash: string;
  tasks: Task[];
  issues: TaskLoadIssue[];
}

/**
 * An importer recognises one public layout from its first record and converts one record at a time.
 * `convert` throws an Error whose message is the reason; the loader adds `file:line:`.
 */
export interface TaskImporter {
  format: TaskSet["format"];
  /** Default set name when the file is recognised. */
  setName: string;
  detect(firstRecord: Record<string, unknown>): boolean;
  /**
   * Optional parser for every line of a file this importer detected (the first line is detected with
   * JSON.parse, then all lines, the first included, go through this). EvalPlus files need it: they hold
   * `Infinity`, integers beyond 2^53 and integral floats that JSON.parse would reject or change.
   */
  parseLine?(line: string): Record<string, unknown>;
  convert(record: Record<string, unknown>, index: number): Task;
}
