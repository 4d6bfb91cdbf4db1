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
