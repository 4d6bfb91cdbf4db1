import { z } from "zod";
import { parseJsonLossless } from "./evalplus-json.js";
import type { Oracle, PythonFunctionTask, TaskImporter } from "./schema.js";

/**
 * Importers for EvalPlus MBPP+ and HumanEval+, in the EvalPlus layout (`base_input`/`plus_input`) and in the
 * "OriginFmt" layout (inputs and expected outputs embedded as Python text in `test`). Both layouts become the
 * same python-function task; expected outputs are always recomputed from the canonical solution, because
 * that is what EvalPlus does and because it also yields the per-input timings its time limits need.
 */

const argLists = z.array(z.array(z.unknown()));

const EvalPlusMbppSchema = z.object({
  task_id: z.string().regex(/^Mbpp\/\d+$/, 'must look like "Mbpp/2"'),
  prompt: z.string().min(1),
  entry_point: z.string().min(1),
  canonical_solution: z.string().min(1),
  base_input: argLists,
  // Mbpp/793 has `{}` here: an empty object means "no plus inputs".
  plus_input: z.union([argLists, z.object({}).strict().transform(() => [] as unknown[][])]).default([]),
  atol: z.number().nonnegative().default(0),
});

const EvalPlusHumanEvalSchema = z.object({
  task_id: z.string().regex(/^HumanEval\/\d+$/, 'must look like "HumanEval/0"'),
  prompt: z.string().min(1),
  entry_point: z.string().min(1),
  canonical_solution: z.string().min(1),
  base_input: argLists,
  plus_input: argLists.default([]),
  atol: z.number().nonnegative().default(0),
});

const MbppOriginSchema = z.object({
  task_id: z.number().int().nonnegative(),
  code: z.string().min(1),
  prompt: z.string().min(1),
  test_list: z.array(z.string()).default([]),
  test: z.string().min(1),
});

const HumanEvalOriginSchema = z.object({
  task_id: z.string().regex(/^HumanEval\/\d+$/, 'must look like "HumanEval/0"'),
  prompt: z.string().min(1),
  canonical_solution: z.string().min(1),
  entry_point: z.string().min(1),
  test: z.string().min(1),
});

/** EvalPlus `_special_oracle.py`: outputs compared as sets. */
const MBPP_SET_EQ = new Set(["similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly", "larg_nnum", "intersection_array", "find_dissimilar", "Diff"]);
/** EvalPlus: regex tasks whose match objects are not comparable; only "is not None" is checked. */
const MBPP_NOT_NONE = new Set(["check_str", "text_match_three", "text_starta_endb"]);

// Alternative reference formulas EvalPlus accepts besides the canonical output (Mbpp/581, Mbpp/558).
const SURFACE_AREA_REF = `import math
def reference(base_edge, height):
    slant_height = math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 4 * (base_edge * slant_height) / 2)
`;
const DIGIT_DISTANCE_REF = `def reference(num1, num2):
    a, b = str(num1), str(num2)
    n = max(len(a), len(b))
    a, b = a.zfill(n), b.zfill(n)
    return sum(abs(int(x) - int(y)) for x, y in zip(a, b))
`;

function mbppOracle(entryPoint: string): { oracle: Oracle; reference?: string } {
  if (entryPoint === "are_equivalent") return { oracle: "always" };
  if (entryPoint === "sum_div") return { oracle: "or-zero" };
  if (entryPoint === "surface_Area") return { oracle: "alt-reference", reference: SURFACE_AREA_REF };
  if (entryPoint === "digit_distance_nums") return { oracle: "alt-reference", reference: DIGIT_DISTANCE_REF };
  if (MBPP_SET_EQ.has(entryPoint)) return { oracle: "set" };
  if (MBPP_NOT_NONE.has(entryPoint)) return { oracle: "not-none" };
  return { oracle: "default" };
}

/**
 * JSON has no tuples, sets or complex numbers, so EvalPlus converts the inputs of some MBPP+ tasks after
 * loading (`mbpp_deserialize_inputs`). Each body receives one argument list `args` and returns the converted one.
 */
const DESERIALIZE_BODIES: Array<[number[], string]> = [
  [[2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740, 744, 809], "return [tuple(a) for a in args]"],
  [[63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780], "return [[tuple(x) for x in a] for a in args]"],
  [[75, 413, 444, 753], "return [[tuple(x) for x in args[0]], args[1]]"],
  [[106, 750], "return [args[0], tuple(args[1])]"],
  [[115], "return [[set(i) if isinstance(i, list) and len(i) else {} for i in args[0]]]"],
  [[124], "return [float(args[0]), complex(args[1])]"],
  [[250, 405, 446, 617, 720, 763, 808], "return [tuple(args[0]), args[1]]"],
  [[259, 401, 445], "return [tuple(tuple(x) for x in a) for a in args]"],
  [[278], "return [tuple(tuple(i) if isinstance(i, list) else i for i in args[0])]"],
  [[307], "return [tuple(args[0]), args[1], args[2]]"],
  [[722], "return [{k: tuple(v) for k, v in args[0].items()}] + list(args[1:])"],
  [[252], "return [complex(args[0])]"],
  [[580, 615, 791], "return _all_tuples(args)"],
];
const ALL_TUPLES = `def _all_tuples(x):
    return tuple(_all_tuples(i) for i in x) if isinstance(x, list) else x
`;

/** The `def deserialize(args)` source for an MBPP+ task number, or undefined when inputs are used as loaded. */
export function mbppDeserializeSource(taskNumber: number): string | undefined {
  const found = DESERIALIZE_BODIES.find(([ids]) => ids.includes(taskNumber));
  if (!found) return undefined;
  const body = `def deserialize(args):\n    ${found[1]}\n`;
  return taskNumber === 580 || taskNumber === 615 || taskNumber === 791 ? ALL_TUPLES + body : body;
}

function parseOrThrow<T>(schema: z.ZodType<T>, record: Record<string, unknown>, what: string): T {
  const result = schema.safeParse(record);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `field "${issue.path.join(".")}"` : "record";
    throw new Error(`${what}: ${where}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}

/** OriginFmt embeds `inputs = [...]` as one line of Python; we keep it as a Python expression. */
function extractInputsPy(test: string, taskId: string): string {
  const line = test.split("\n").find((l) => /^\s*inputs = /.test(l));
  if (!line) throw new Error(`${taskId}: OriginFmt "test" has no "inputs = [...]" line`);
  return line.replace(/^\s*inputs = /, "").trim();
}

/** The atol OriginFmt passes to its `assertion(candidate(*inp), exp, <atol>)` call. */
function extractAtol(test: string): number {
  const m = /\(\*inp\),\s*[^,]+,\s*([0-9.eE+-]+)\)\s*$/m.exec(test);
  const atol = m ? Number(m[1]) : 0;
  return Number.isFinite(atol) ? atol : 0;
}

const mbppNumber = (taskId: string): number => Number(taskId.split("/")[1]);

function humanEvalOracle(entryPoint: string): Oracle {
  return entryPoint === "find_zero" ? "find_zero" : "default";
}

const hasBaseInput = (r: Record<string, unknown>): boolean => Array.isArray(r.base_input);

/** Lossless line parser (see evalplus-json.ts): keeps big ints, integral floats and Infinity exact. */
export function parseEvalPlusLine(line: string): Record<string, unknown> {
  const value = parseJsonLossless(line);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("expected a JSON object");
  return value as Record<string, unknown>;
}

export const evalplusMbppImporter: TaskImporter = {
  format: "evalplus-mbpp",
  setName: "mbppplus",
  detect: (r) => typeof r.task_id === "string" && r.task_id.startsWith("Mbpp/") && hasBaseInput(r),
  parseLine: parseEvalPlusLine,
  convert(record): PythonFunctionTask {
    const r = parseOrThrow(EvalPlusMbppSchema, record, "EvalPlus MBPP+ record");
    const { oracle, reference } = mbppOracle(r.entry_point);
    const deserialize = mbppDeserializeSource(mbppNumber(r.task_id));
    return {
      id: r.task_id,
      kind: "python-function",
      prompt: r.prompt,
      entryPoint: r.entry_point,
      // EvalPlus runs `prompt + canonical_solution`; for MBPP+ the prompt is a docstring, so this is harmless.
      canonicalSolution: r.prompt + r.canonical_solution,
      tests: { base: r.base_input, plus: r.plus_input, atol: r.atol, oracle, ...(deserialize ? { deserialize } : {}), ...(reference ? { reference } : {}) },
      tags: ["mbppplus"],
    };
  },
};

export const evalplusHumanEvalImporter: TaskImporter = {
  format: "evalplus-humaneval",
  setName: "humanevalplus",
  detect: (r) => typeof r.task_id === "string" && r.task_id.startsWith("HumanEval/") && hasBaseInput(r),
  parseLine: parseEvalPlusLine,
  convert(record): PythonFunctionTask {
    const r = parseOrThrow(EvalPlusHumanEvalSchema, record, "EvalPlus HumanEval+ record");
    return {
      id: r.task_id,
      kind: "python-function",
      prompt: r.prompt,
      entryPoint: r.entry_point,
      canonicalSolution: r.prompt + r.canonical_solution,
      tests: { base: r.base_input, plus: r.plus_input, atol: r.atol, oracle: humanEvalOracle(r.entry_point), setup: r.prompt },
      tags: ["humanevalplus"],
    };
  },
};

export const evalplusMbppOriginImporter: TaskImporter = {
  format: "evalplus-mbpp-originfmt",
  setName: "mbppplus",
  detect: (r) => typeof r.task_id === "number" && typeof r.code === "string" && typeof r.test === "string",
  convert(record): PythonFunctionTask {
    const r = parseOrThrow(MbppOriginSchema, record, "MBPP+ OriginFmt record");
    const id = `Mbpp/${r.task_id}`;
    const entryPoint = /\bassertion\(\s*([A-Za-z_][A-Za-z0-9_]*)\(\*inp\)/.exec(r.test)?.[1];
    if (!entryPoint) throw new Error(`${id}: cannot find the entry point in "test" (expected "assertion(<name>(*inp), ...)")`);
    const { oracle, reference } = mbppOracle(entryPoint);
    // The one-line OriginFmt prompt does not name the function; EvalPlus's own prompt adds the first assert.
    const prompt = r.test_list.length > 0 ? `${r.prompt}\n${r.test_list[0]}` : r.prompt;
    return {
      id,
      kind: "python-function",
      prompt,
      entryPoint,
      canonicalSolution: r.code,
      // OriginFmt inputs are already Python literals (tuples, sets, complex), so no deserialize step.
      tests: { base: [], plus: [], inputsPy: extractInputsPy(r.test, id), atol: extractAtol(r.test), oracle, ...(reference ? { reference } : {}) },
      tags: ["mbppplus"],
    };
  },
};

export const evalplusHumanEvalOriginImporter: TaskImporter = {
  format: "evalplus-humaneval-originfmt",
  setName: "humanevalplus",
  detect: (r) => typeof r.task_id === "string" && r.task_id.startsWith("HumanEval/") && !hasBaseInput(r) && typeof r.test === "string" && typeof r.canonical_solution === "string",
  convert(record): PythonFunctionTask {
    const r = parseOrThrow(HumanEvalOriginSchema, record, "HumanEval+ OriginFmt record");
    const oracle = humanEvalOracle(r.entry_point);
    // HumanEval/32's embedded check is broken upstream (`_poly(*candidate(*inp), inp)`); we never run the
    // embedded check, only take its inputs, and apply the find_zero oracle with EvalPlus's atol instead.
    const atol = oracle === "find_zero" ? 1e-4 : extractAtol(r.test);
    return {
      id: r.task_id,
      kind: "python-function",
      prompt: r.prompt,
      entryPoint: r.entry_point,
      canonicalSolution: r.prompt + r.canonical_solution,
      tests: { base: [], plus: [], inputsPy: extractInputsPy(r.test, r.task_id), atol, oracle, setup: r.prompt },
      tags: ["humanevalplus"],
    };
  },
};

/** All EvalPlus importers, most specific first (the loader tries them in order). */
export const evalplusImporters: TaskImporter[] = [evalplusMbppImporter, evalplusHumanEvalImporter, evalplusMbppOriginImporter, evalplusHumanEvalOriginImporter];
