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
