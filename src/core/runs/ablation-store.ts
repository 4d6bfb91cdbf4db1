/** Reading ablation files (ablation-types.ts), with the run store's crash rules; the engine's RunWriter (store.ts) appends them. */
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { InputError, located } from "../errors.js";
import { readLines, type RawLine } from "../line-reader.js";
import { AblationHeaderSchema, AblationRecordSchema, type AblationHeader, type AblationRecord } from "./ablation-types.js";
import { tooDeep } from "./store.js";

export interface AblationFileContents {
  file: string;
  header: AblationHeader;
  records: AblationRecord[];
  warnings: string[];
}

/** `<dir>/<run>.jsonl` → `<dir>/<run>.ablation-<skill>.jsonl`. */
export function defaultAblationFile(runFile: string, skill: string): string {
  const base = runFile.replace(/\.jsonl$/i, "");
  return `${base}.ablation-${skill.replace(/[^A-Za-z0-9._-]+/g, "_")}.jsonl`;
}

/** The ablation files written beside a run file under the default name (what `report <run>` reads with it). */
export function siblingAblationFiles(runFile: string): string[] {
  const dir = path.dirname(runFile);
  const prefix = `${path.basename(runFile).replace(/\.jsonl$/i, "")}.ablation-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(".jsonl"))
    .sort()
    .map((n) => path.join(dir, n))
    .filter((f) => statSync(f).isFile());
}

/** True when the file's first line is an ablation header (so `report` can take ablation files as arguments too). */
export function isAblationFile(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return /^\s*\{[^\n]*"type"\s*:\s*"ablation-header"/.test(buf.subarray(0, n).toString("utf8"));
  } finally {
    closeSync(fd);
  }
}

/** Longest line an ablation file may hold (a record carries one run's transcript, as in a run file). */
export const MAX_ABLATION_LINE_BYTES = 64 * 2 ** 20;

/**
 * Reads an ablation file through the capped line reader (a line over MAX_ABLATION_LINE_BYTES is skipped without
 * being held in memory). A torn last line is ignored with a warning, other bad lines are skipped with a located
 * warning, a missing or invalid header is an InputError; later records with the same key win.
 */
export async function readAblationFile(file: string, options: { maxLineBytes?: number } = {}): Promise<AblationFileContents> {
  if (!existsSync(file)) throw new InputError(`${file}: no such ablation file`, { file });
  if (!statSync(file).isFile()) throw new InputError(`${file}: not an ablation file (not a regular file)`, { file });
  const maxLineBytes = options.maxLineBytes ?? MAX_ABLATION_LINE_BYTES;
  const torn = !endsWithNewline(file);
  const warnings: string[] = [];
  const byKey = new Map<string, AblationRecord>();
  let header: AblationHeader | undefined;
  let pending: RawLine | undefined;
  const take = (raw: RawLine, last: boolean) => {
    const h = ablationLine(file, raw, last && torn, maxLineBytes, warnings, byKey);
    if (h) header = h;
  };
  for await (const raw of readLines(file, { maxLineBytes, maxDecompressedBytes: 2 * 2 ** 30 })) {
    if (pending) take(pending, false);
    pending = raw;
  }
  if (pending) take(pending, true);
  if (!header) throw new InputError(`${file}: empty ablation file (no header line)`, { file });
  return { file, header, records: [...byKey.values()], warnings };
}

/** One line of an ablation file: the header (returned), a record (kept by key) or a located warning. */
function ablationLine(file: string, raw: RawLine, torn: boolean, maxLineBytes: number, warnings: string[], byKey: Map<string, AblationRecord>): AblationHeader | undefined {
  const line = raw.line;
  if (!("text" in raw)) {
    if (torn) warnings.push(located(file, line, "torn last line ignored (the ablation was interrupted while writing it)"));
    else if ("tooLong" in raw) warnings.push(located(file, line, `line is ${raw.tooLong} bytes, over the ${maxLineBytes}-byte line limit; skipped`));
    else warnings.push(located(file, line, "not valid UTF-8; line skipped"));
    return undefined;
  }
  if (raw.text.trim() === "") return undefined;
  const deep = tooDeep(file, line, raw.text);
  if (deep) {
    if (line === 1) throw new InputError(deep, { file, line, hintIds: ["file"] });
    warnings.push(`${deep}; line skipped`);
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.text);
  } catch {
    warnings.push(located(file, line, torn ? "torn last line ignored (the ablation was interrupted while writing it)" : "not valid JSON; line skipped"));
    return undefined;
  }
  if (line === 1) {
    const parsed = AblationHeaderSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InputError(located(file, 1, `not an ablation file header (${issue?.path.join(".")}: ${issue?.message})`), { file, line: 1 });
    }
    return parsed.data;
  }
  const parsed = AblationRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    warnings.push(located(file, line, `invalid ablation record (${issue?.path.join(".")}: ${issue?.message}); line skipped`));
    return undefined;
  }
  byKey.set(parsed.data.key, parsed.data);
  return undefined;
}

function endsWithNewline(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const buf = Buffer.alloc(1);
    readSync(fd, buf, 0, 1, size - 1);
    return buf[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
