import { createHash } from "node:crypto";
import { existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { IsolationSchema } from "../../shared/vocabulary/index.js";
import { InputError, located } from "../errors.js";
import { readLines } from "../line-reader.js";
import type { Logger } from "../logger.js";
import { readRunHeader, scanRunFile, RunWriter } from "./store.js";
import { runKey, type RunHeader, type RunRecord, type RunSummary, type StopRecord } from "./types.js";

/**
 * Joining shard run files (`run --shard k/n`, shard.ts) into one run: `merge` writes it as a file, `report` does it
 * in memory. The shards must be one experiment cut in n: everything that decides an outcome is compared, and a
 * difference is refused naming the file, the field and both values. The merged header lists the tasks in the
 * unsharded order (the shards record their positions), so its report equals the unsharded run's report.
 */

export interface ShardFile {
  file: string;
  header: RunHeader;
}

/** What must agree across the shards of one run; [field as named in errors, its value]. */
const COMPARED: ReadonlyArray<readonly [string, (h: RunHeader) => unknown]> = [
  ["run file format", (h) => h.formatVersion],
  ["model", (h) => h.model.name],
  ["model endpoint", (h) => h.model.id],
  ["task set hash", (h) => h.taskSet.hash],
  ["skill library hash", (h) => h.skillLibraryHash],
  ["retrieval mode", (h) => h.mode],
  ["design", (h) => h.design],
  ["search options", (h) => h.search],
  ["temperature", (h) => h.params.temperature],
  ["seed", (h) => h.params.seed],
  ["max tokens", (h) => h.params.maxTokens],
  ["samples", (h) => h.params.samples],
  ["max turns", (h) => h.params.maxTurns],
  ["prompt version", (h) => h.promptVersion],
  ["stop rule", (h) => h.stopWhen],
  ["control sample", (h) => h.control],
  ["shard count", (h) => h.shard?.count],
  ["tasks in the unsharded run", (h) => h.shard?.total],
];

const show = (v: unknown): string => (v === undefined ? "unset" : JSON.stringify(v));

/**
 * Checks that the files are the n shards of one run, each once; returns them in shard order. `complete: false`
 * (report) lets shards be missing and returns the missing indexes instead of refusing.
 */
export function checkShards(files: readonly ShardFile[], options: { complete: boolean }): { ordered: ShardFile[]; missing: number[] } {
  if (files.length === 0) throw new InputError("name the shard run files to merge");
  for (const f of files) {
    if (!f.header.shard) {
      throw new InputError(`${f.file}: not a shard run file (its header has no shard: it was not run with a shard of the tasks); only shards of one run can be merged`, { file: f.file });
    }
  }
  const first = files[0]!;
  for (const f of files.slice(1)) {
    for (const [field, get] of COMPARED) {
      const a = get(first.header);
      const b = get(f.header);
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        throw new InputError(`${f.file}: cannot merge with ${first.file}: the ${field} differs (${show(b)} here, ${show(a)} in ${path.basename(first.file)})`, {
          file: f.file,
          hint: "Merge only the shards of one run: the same model, tasks, skills and options, each shard once.",
        });
      }
    }
  }
  const byIndex = new Map<number, ShardFile>();
  for (const f of files) {
    const i = f.header.shard!.index;
    const seen = byIndex.get(i);
    if (seen) {
      const same = path.resolve(seen.file) === path.resolve(f.file);
      throw new InputError(same ? `${f.file}: named twice` : `${f.file}: shard ${i}/${f.header.shard!.count} again (${seen.file} is that shard too)`, { file: f.file });
    }
    byIndex.set(i, f);
  }
  const count = first.header.shard!.count;
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k));
  if (missing.length > 0 && options.complete) {
    throw new InputError(`missing shard${missing.length > 1 ? "s" : ""} ${missing.map((k) => `${k}/${count}`).join(", ")}: merging needs all ${count} shard files of the run (got ${[...byIndex.keys()].sort((x, y) => x - y).map((k) => `${k}/${count}`).join(", ")})`, {
      hint: "Run the missing shards (or find their files) and merge again.",
    });
  }
  return { ordered: [...byIndex.entries()].sort((x, y) => x[0] - y[0]).map(([, f]) => f), missing };
}

/**
 * The header of the merged run: the first shard's, with the tasks of all shards in the unsharded order, no shard,
 * the weakest sandbox any shard ran under, batch pricing only when every shard had it, and a run id derived from
 * the shards' ids (merging the same files again gives the same file).
 */
export function mergedHeader(ordered: readonly ShardFile[]): RunHeader {
  const headers = ordered.map((f) => f.header);
  const placed: Array<[number, string]> = [];
  for (const h of headers) {
    const { positions } = h.shard!;
    if (positions.length !== h.taskIds.length) throw new InputError(`${ordered[headers.indexOf(h)]!.file}: damaged shard header (${h.taskIds.length} tasks but ${positions.length} positions)`);
    h.taskIds.forEach((id, i) => placed.push([positions[i]!, id]));
  }
  placed.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < placed.length; i++) {
    if (placed[i]![0] === placed[i - 1]![0]) throw new InputError(`the shards overlap: two of them hold position ${placed[i]![0]} of the task list (${placed[i - 1]![1]} and ${placed[i]![1]})`);
  }
  const { shard: _shard, pricing: _pricing, ...first } = headers[0]!;
  const runId = `merged-${createHash("sha256").update(headers.map((h) => h.runId).join("\n")).digest("hex").slice(0, 24)}`;
  const createdAt = headers.map((h) => h.createdAt).sort()[0]!;
  const batch = headers.every((h) => h.pricing === "batch");
  return { ...first, runId, createdAt, taskIds: placed.map(([, id]) => id), sandbox: weakestIsolation(headers), ...(batch ? { pricing: "batch" as const } : {}) };
}

/** A shard that ran no generated code says "none"; otherwise the weakest isolation any shard had. */
function weakestIsolation(headers: readonly RunHeader[]): RunHeader["sandbox"] {
  const rank = (h: RunHeader) => IsolationSchema.options.indexOf(h.sandbox.isolation);
  const ran = headers.filter((h) => h.sandbox.isolation !== "none");
  if (ran.length === 0) return headers[0]!.sandbox;
  return ran.reduce((worst, h) => (rank(h) > rank(worst) ? h : worst)).sandbox;
}

/**
 * `merge`: writes the n shard files as one run file at `out` (refused if it exists). Records are streamed shard by
 * shard into a temporary file renamed at the end, so an interrupted merge leaves no partial run file behind.
 */
export async function mergeRunFiles(files: readonly string[], out: string, logger: Logger): Promise<{ header: RunHeader; runs: number }> {
  if (existsSync(out)) throw new InputError(`${out} already exists`, { file: out, hint: "Choose another output file for the merged run.", hintIds: ["runFile"] });
  const read: ShardFile[] = [];
  for (const file of files) read.push({ file, header: await readRunHeader(file) });
  const { ordered } = checkShards(read, { complete: true });
  const header = mergedHeader(ordered);
  const versions = new Set(ordered.map((f) => f.header.toolVersion));
  if (versions.size > 1) logger.warn(`the shards were run by different versions of the tool (${[...versions].join(", ")}); the merged header names ${header.toolVersion}`);
  const tmp = `${out}.merging-${process.pid}`;
  rmSync(tmp, { force: true });
  const writer = RunWriter.create(tmp, header);
  let runs = 0;
  // Which file holds each run (task, condition, sample): a second record of one run is refused, never chosen between.
  const seen = new Map<string, number>();
  try {
    for (const [index, f] of ordered.entries()) {
      const own = new Set(f.header.taskIds);
      let duplicate: { record: RunRecord; first: number } | undefined;
      const contents = await scanRunFile(f.file, (r) => {
        if (duplicate) return;
        // A record of a task outside its shard cannot come from `run --shard`; keeping it would count it twice.
        if (!own.has(r.taskId)) return;
        const identity = runKey(r.taskId, r.condition, r.sample);
        if (r.key !== identity) throw new InputError(`${f.file}: the record of ${r.taskId} (${r.condition}, sample ${r.sample}) carries the key of another run (${JSON.stringify(r.key)}); run files are not edited by hand`, { file: f.file, hint: REFUSED_RECORD_HINT });
        const first = seen.get(identity);
        if (first !== undefined) {
          duplicate = { record: r, first };
          return;
        }
        seen.set(identity, index);
        writer.write(r);
        runs++;
      });
      if (duplicate) throw await duplicateError(duplicate.record, ordered[duplicate.first]!.file, f.file);
      for (const w of contents.warnings) logger.warn(w);
      if (contents.stops.length > 0) throw new InputError(`${f.file}: holds a stopping record; shards never stop early, so this is not a shard of one run`, { file: f.file });
    }
  } catch (e) {
    writer.close();
    rmSync(tmp, { force: true });
    throw e;
  }
  writer.close();
  renameSync(tmp, out);
  return { header, runs };
}

const REFUSED_RECORD_HINT =
  "A run file holds one record per task, condition and sample (resuming never writes a finished run again): a second record means the file was edited or files were joined by hand. Delete the record you do not trust, or run that shard again, then merge again.";

/**
 * Two records of one run are refused, identical ones included: `run` and `--resume` never write a finished run twice
 * (failed runs are not recorded at all), so a second record only comes from editing or joining files by hand, and a
 * merge that picked one (the later, as reading a run file does) would let an appended line decide a verdict. The error
 * names both files and lines, found by a second read of those files only (the merge itself keeps no line numbers).
 */
async function duplicateError(record: RunRecord, firstFile: string, secondFile: string): Promise<InputError> {
  const what = `${record.taskId} (${record.condition}, sample ${record.sample})`;
  const lines = async (file: string) => {
    const found: Array<{ line: number; text: string; pass: boolean | undefined }> = [];
    const needle = JSON.stringify(record.taskId);
    for await (const raw of readLines(file, { maxLineBytes: 64 * 2 ** 20, maxDecompressedBytes: 2 * 2 ** 30 })) {
      if (!("text" in raw) || !raw.text.includes(needle)) continue;
      try {
        const v = JSON.parse(raw.text) as Partial<RunRecord>;
        if (v.type === "run" && v.taskId === record.taskId && v.condition === record.condition && v.sample === record.sample) found.push({ line: raw.line, text: raw.text, pass: v.verdict?.pass });
      } catch {
        // Not a record (the store skipped it with a warning).
      }
    }
    return found;
  };
  const first = await lines(firstFile);
  const second = firstFile === secondFile ? first.slice(1) : await lines(secondFile);
  const a = first[0];
  const b = second[0];
  const at = (file: string, x: { line: number } | undefined) => (x ? `${file}:${x.line}` : file);
  const verdict = (x: { pass: boolean | undefined } | undefined) => (x?.pass === undefined ? "?" : x.pass ? "pass" : "fail");
  const how = a && b && a.text === b.text ? "an identical copy" : `a different record (verdict ${verdict(a)} at ${at(firstFile, a)}, ${verdict(b)} at ${at(secondFile, b)})`;
  return new InputError(located(secondFile, b?.line, `a second record of the run ${what}, ${how} of the one at ${at(firstFile, a)}; merge refuses to choose between them`), {
    file: secondFile,
    ...(b ? { line: b.line } : {}),
    hint: REFUSED_RECORD_HINT,
  });
}

/** A run as the report reads it. */
export interface LoadedRun<R extends RunSummary = RunSummary> {
  file: string;
  header: RunHeader;
  records: R[];
  stops: StopRecord[];
}

/**
 * `report` over shard files: the shards of each run are merged in memory (checked as `merge` checks them), other
 * runs pass through unchanged. A missing shard is a warning, not an error: its tasks are simply not in the report.
 */
export function mergeShardRuns<R extends RunSummary>(runs: readonly LoadedRun<R>[], logger: Logger): LoadedRun<R>[] {
  const groups = new Map<string, LoadedRun<R>[]>();
  const out: Array<LoadedRun<R> | LoadedRun<R>[]> = [];
  for (const run of runs) {
    const s = run.header.shard;
    if (!s) {
      out.push(run);
      continue;
    }
    const key = `${run.header.model.id}\u0000${run.header.taskSet.hash}\u0000${run.header.mode}\u0000${s.count}`;
    let g = groups.get(key);
    if (!g) {
      groups.set(key, (g = []));
      out.push(g);
    }
    g.push(run);
  }
  return out.map((entry) => {
    if (!Array.isArray(entry)) return entry;
    const { ordered, missing } = checkShards(entry, { complete: false });
    const count = entry[0]!.header.shard!.count;
    if (missing.length > 0) {
      const total = entry[0]!.header.shard!.total;
      const have = ordered.reduce((n, f) => n + f.header.taskIds.length, 0);
      logger.warn(`${entry[0]!.file}: shard${missing.length > 1 ? "s" : ""} ${missing.map((k) => `${k}/${count}`).join(", ")} of this run ${missing.length > 1 ? "are" : "is"} missing; the report covers ${have} of its ${total} tasks`);
    }
    const header = mergedHeader(ordered);
    const byFile = new Map(entry.map((r) => [r.file, r]));
    // As in `merge`: a record of a task outside its shard cannot come from `run --shard`; keeping it would count it twice.
    const records = ordered.flatMap((f) => {
      const own = new Set(f.header.taskIds);
      return byFile.get(f.file)!.records.filter((r) => own.has(r.taskId));
    });
    return { file: ordered[0]!.file, header, records, stops: ordered.flatMap((f) => byFile.get(f.file)!.stops) };
  });
}
