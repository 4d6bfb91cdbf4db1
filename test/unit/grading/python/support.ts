import { evalplusImporters } from "../../../../src/core/tasks/evalplus.js";
import { PythonFunctionTaskSchema, type PythonFunctionTask } from "../../../../src/core/tasks/schema.js";
import { readGzipLines } from "../../sandbox/support.js";

export { dataDir, repoRoot, sandboxDist, readGzipLines } from "../../sandbox/support.js";

/** Loads an EvalPlus file the way the loader does: detect on the first line, then the importer's parser. */
export function loadEvalPlus(rel: string): PythonFunctionTask[] {
  const lines = readGzipLines(rel);
  const importer = evalplusImporters.find((i) => i.detect(JSON.parse(lines[0]!) as Record<string, unknown>));
  if (!importer) throw new Error(`no importer for ${rel}`);
  const parse = importer.parseLine ?? ((l: string) => JSON.parse(l) as Record<string, unknown>);
  return lines.map((l, i) => PythonFunctionTaskSchema.parse(importer.convert(parse(l), i)));
}

/**
 * Canonical solutions measured slowest through the sandbox (expected outputs, then the check), slowest first. Only a
 * scheduling hint for the sweeps (canonical.test.ts, bench/sweep.ts): a task missing here simply starts later.
 * Measured with bench/sweep.ts (see bench/README.md); Mbpp/599 is `sum(range(n))` on n ≈ 1e8, about 8x slower in
 * wasm32 than in native CPython (a C long is 32 bits there, so the sum leaves CPython's fast path at once).
 */
export const SLOWEST_CANONICALS = [
  "Mbpp/599", "Mbpp/255", "HumanEval/139", "HumanEval/130", "HumanEval/15", "Mbpp/271", "HumanEval/83", "Mbpp/392",
  "HumanEval/36", "Mbpp/630", "Mbpp/603", "HumanEval/59", "HumanEval/94", "Mbpp/123", "Mbpp/592", "Mbpp/589",
  "Mbpp/389", "HumanEval/100", "Mbpp/583", "Mbpp/124", "Mbpp/300", "Mbpp/84", "Mbpp/590", "HumanEval/0", "Mbpp/745",
  "Mbpp/162", "Mbpp/585", "Mbpp/453",
];

/** The tasks in the order the sweeps submit them: the measured slowest first, then the rest in their own order. */
export function slowestFirst(tasks: PythonFunctionTask[]): PythonFunctionTask[] {
  const rank = new Map(SLOWEST_CANONICALS.map((id, i) => [id, i]));
  return tasks
    .map((t, i) => ({ t, key: rank.get(t.id) ?? SLOWEST_CANONICALS.length + i }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.t);
}

/**
 * Canonical solutions that once broke the Pyodide runtime in particular (wasm32: a 4 GB address space, slow bigints)
 * or take a path of their own: ints past 100,000 bits travel in hex (HumanEval/83, /139), the 2 GB wasm memory cap
 * (Mbpp/255), HumanEval/32's oracle. Not Mbpp/599: its hazard is time (`sum(range(n))` off CPython's fast path, 190 s
 * for its expected outputs alone in Pyodide), which the whole sweep covers.
 */
export const PYODIDE_HAZARDS = ["HumanEval/83", "HumanEval/139", "HumanEval/32", "Mbpp/255"];

/**
 * The tasks of a set that the test suite checks in Pyodide where the CPython runtime is the default and checks every
 * task (Linux): every 4th task plus PYODIDE_HAZARDS. `bench/sweep.ts` (Pyodide by default) runs the whole sets.
 */
export function pyodideSample(tasks: PythonFunctionTask[]): PythonFunctionTask[] {
  return tasks.filter((t, i) => (i % 4 === 0 && t.id !== "Mbpp/599") || PYODIDE_HAZARDS.includes(t.id));
}
