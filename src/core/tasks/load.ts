import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { InputError, located } from "../errors.js";
import { normaliseMathAnswer } from "../math/normalise.js";
import { evalplusImporters } from "./evalplus.js";
import { ACCEPTED_FORMATS, gsm8kImporter, math500Importer, nativeImporter } from "./importers.js";
import { readLines } from "../line-reader.js";
import { TaskSchema, type Task, type TaskImporter, type TaskLoadIssue, type TaskSet } from "./schema.js";

export interface LoadTaskSetOptions {
  /** Load at most this many tasks (the first ones in the file). */
  limit?: number;
  /** Name shown in reports; default: the importer's set name, else the file's base name. */
  name?: string;
  /** Per-line cap; longer lines are skipped with an issue. Default 16 MB (the largest real record is < 1 MB). */
  maxLineBytes?: number;
  /** Cap on the (decompressed) bytes read; past it the load fails. Default 256 MB (real sets are < 12 MB). */
  maxDecompressedBytes?: number;
  /** Issues kept in full; the rest are counted in one final issue. Default 1000. */
  maxIssues?: number;
}

/** Detection order: most specific first. Native first, so our own files never fall into a public layout. */
export const TASK_IMPORTERS: readonly TaskImporter[] = [nativeImporter, ...evalplusImporters, gsm8kImporter, math500Importer];

/** A file whose first lines are all broken is not a task set with a few bad lines; it is not a task set. */
const MAX_BROKEN_BEFORE_FIRST_RECORD = 20;
/**
 * A few hundred KB of gzip inflate to 100M+ blank or broken lines; each costs a pass through the loop, so such a
 * file would keep the CPU busy for minutes before the size cap. Past these counts the file is refused instead.
 */
const MAX_BROKEN_LINES = 10_000;
const MAX_LINES = 5_000_000;

const acceptedList = () => `accepted formats: ${ACCEPTED_FORMATS.join("; ")}`;

/**
 * Loads a task set from a JSONL file (plain or gzip, detected by magic bytes), autodetecting the layout from
 * the first record. Broken lines become `issues` (`file:line: reason`) and the rest loads; duplicate ids
 * keep the first. Throws InputError (with file and line) for a missing, empty or unrecognised file, a
 * file with no valid task, or content past the size caps.
 */
export async function loadTaskSet(file: string, options: LoadTaskSetOptions = {}): Promise<TaskSet> {
  const limit = options.limit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) {
    throw new InputError(`limit must be a positive integer, got ${limit}`, { hint: "Give a whole number of tasks, or none to load every task.", hintIds: ["limit"] });
  }
  const maxIssues = options.maxIssues ?? 1000;
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new InputError(`${file}: not a file`, { file, hint: "Pick a .jsonl or .jsonl.gz task file." });
    size = st.size;
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot read task file: ${(e as Error).message}`, { file, hintIds: ["taskSet"], cause: e });
  }
  if (size === 0) throw new InputError(located(file, undefined, `task file is empty; ${acceptedList()}`), { file, hintIds: ["taskSet"] });
  const hashing = hashFile(file);
  // A load that fails before hashing finishes must not leave an unhandled rejection behind.
  hashing.catch(() => {});

  const tasks: Task[] = [];
  const issues: TaskLoadIssue[] = [];
  let dropped = 0;
  const issue = (line: number, message: string) => {
    if (issues.length < maxIssues) issues.push({ file, line, message });
    else dropped++;
    if (issues.length + dropped > MAX_BROKEN_LINES && issues.length + dropped > tasks.length) {
      throw notTaskSet(file, line, `more than ${MAX_BROKEN_LINES} broken lines and fewer good ones; refusing to read further`);
    }
  };
  const firstLineOfId = new Map<string, number>();
  let importer: TaskImporter | undefined;
  let index = 0;
  let brokenBeforeFirst = 0;

  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes ?? 16 * 2 ** 20, maxDecompressedBytes: options.maxDecompressedBytes ?? 256 * 2 ** 20 })) {
    if (raw.line > MAX_LINES) throw notTaskSet(file, raw.line, `more than ${MAX_LINES} lines; refusing to read further`);
    let text: string | undefined;
    if ("tooLong" in raw) issue(raw.line, `line is ${raw.tooLong} bytes, over the ${options.maxLineBytes ?? 16 * 2 ** 20}-byte line limit; skipped`);
    else if ("invalidUtf8" in raw) issue(raw.line, "line is not valid UTF-8; skipped");
    else if (raw.text.trim() === "") continue;
    else text = raw.text;
    const recordIndex = index++;
    if (text === undefined) {
      if (!importer && ++brokenBeforeFirst >= MAX_BROKEN_BEFORE_FIRST_RECORD) throw notTaskSet(file, raw.line, `the first ${brokenBeforeFirst} lines are not JSON records`);
      continue;
    }

    let record: Record<string, unknown>;
    if (!importer) {
      const found = detect(text);
      if ("error" in found) {
        issue(raw.line, found.error);
        if (++brokenBeforeFirst >= MAX_BROKEN_BEFORE_FIRST_RECORD) throw notTaskSet(file, raw.line, `the first ${brokenBeforeFirst} lines are not JSON records`);
        continue;
      }
      if (!found.importer) {
        const keys = Object.keys(found.record).slice(0, 8).join(", ");
        throw notTaskSet(file, raw.line, `the first record (keys: ${keys || "none"}) matches no known layout`);
      }
      importer = found.importer;
      record = found.record;
    } else {
      try {
        record = parseRecord(text, importer);
      } catch (e) {
        issue(raw.line, `not a valid JSON record: ${(e as Error).message}`);
        continue;
      }
    }

    let task: Task;
    try {
      task = importer.convert(record, recordIndex);
    } catch (e) {
      issue(raw.line, (e as Error).message);
      continue;
    }
    // Importers are separate modules; hold every one to the shared contract here, once.
    const checked = TaskSchema.safeParse(task);
    if (!checked.success) {
      issue(raw.line, `importer ${importer.format} produced an invalid task: ${checked.error.issues[0]?.path.join(".")}: ${checked.error.issues[0]?.message}`);
      continue;
    }
    if (task.kind === "math-answer" && normaliseMathAnswer(task.answer) === "") {
      issue(raw.line, `field "answer": ${JSON.stringify(task.answer)} is empty after normalisation (only $, units or spaces); no answer could match it`);
      continue;
    }
    const first = firstLineOfId.get(task.id);
    if (first !== undefined) {
      issue(raw.line, `duplicate task id "${task.id}" (first on line ${first}); skipped`);
      continue;
    }
    firstLineOfId.set(task.id, raw.line);
    tasks.push(task);
    if (limit !== undefined && tasks.length >= limit) break;
  }

  if (dropped > 0) issues.push({ file, line: issues[issues.length - 1]?.line ?? 1, message: `${dropped} more problems not listed` });
  if (!importer) {
    const why = issues.length > 0 ? `no JSON record found (line ${issues[0]?.line}: ${issues[0]?.message})` : "the file has only blank lines";
    throw new InputError(located(file, issues[0]?.line, `not a task set: ${why}; ${acceptedList()}`), { file, hintIds: ["taskSet"] });
  }
  if (tasks.length === 0) {
    const first = issues[0];
    throw new InputError(`${file}: no valid task in the file (${issues.length} problems; first: line ${first?.line}: ${first?.message})`, { file, line: first?.line, hintIds: ["file"] });
  }
  return {
    name: options.name ?? (importer.setName || baseName(file)),
    format: importer.format,
    file,
    hash: await hashing,
    tasks,
    issues,
  };
}

function detect(text: string): { importer?: TaskImporter; record: Record<string, unknown> } | { error: string } {
  let jsonError: string | undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `expected a JSON object per line, got ${Array.isArray(value) ? "an array" : typeof value === "object" ? "null" : typeof value}` };
    const record = value as Record<string, unknown>;
    const importer = TASK_IMPORTERS.find((i) => i.detect(record));
    // Importers with their own parser get the first line through it too, as they would every other line.
    return { importer, record: importer?.parseLine ? importer.parseLine(text) : record };
  } catch (e) {
    jsonError = (e as Error).message;
  }
  // Some public files (EvalPlus: Infinity, NaN) are not strict JSON; ask the importers that can read them.
  for (const importer of TASK_IMPORTERS) {
    if (!importer.parseLine) continue;
    try {
      const record = importer.parseLine(text);
      if (importer.detect(record)) return { importer, record };
    } catch {
      // Not this importer's dialect either.
    }
  }
  return { error: `not valid JSON: ${jsonError}` };
}

function parseRecord(text: string, importer: TaskImporter): Record<string, unknown> {
  const value: unknown = importer.parseLine ? importer.parseLine(text) : JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("expected a JSON object");
  return value as Record<string, unknown>;
}

function notTaskSet(file: string, line: number, why: string): InputError {
  return new InputError(located(file, line, `not a task set: ${why}; ${acceptedList()}`), { file, line, hintIds: ["taskSet"] });
}

/** `data/MbppPlus.jsonl.gz` -> `MbppPlus`. */
export function baseName(file: string): string {
  return path.basename(file).replace(/(\.gz)?$/i, "").replace(/\.(jsonl|ndjson|json|txt)$/i, "");
}

/** sha256 of the file bytes as stored (compressed bytes for .gz), the task-set identity in run headers. */
export async function hashFile(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest("hex");
}
