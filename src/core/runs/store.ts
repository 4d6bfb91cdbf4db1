import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, statSync, writeSync, createReadStream } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { InputError, located } from "../errors.js";
import { RunHeaderSchema, RunRecordSchema, StopRecordSchema, type RunHeader, type RunRecord, type StopRecord } from "./types.js";

export interface RunFileContents {
  header: RunHeader;
  records: RunRecord[];
  stops: StopRecord[];
  /** Located, human-readable problems that did not stop the read (torn last line, bad middle lines). */
  warnings: string[];
}

const MAX_LISTED_WARNINGS = 100;

/**
 * Reads a run file. A torn last line (a crash mid-write) is ignored with a warning; any other bad line is
 * skipped with a located warning (the first 100 listed, the rest counted); a missing or invalid header is an InputError.
 */
export async function readRunFile(file: string): Promise<RunFileContents> {
  if (!existsSync(file)) throw new InputError(`${file}: no such run file`, { file });
  // A folder, FIFO or device is not a run file: reading one fails with a raw EISDIR, blocks or never ends.
  if (!statSync(file).isFile()) throw new InputError(`${file}: not a run file (not a regular file)`, { file });
  const warnings: string[] = [];
  const records: RunRecord[] = [];
  const stops: StopRecord[] = [];
  let header: RunHeader | undefined;
  let lineNo = 0;
  let pending: { line: number; text: string } | undefined;
  // A damaged file can have millions of bad lines: list the first ones, count the rest (memory and stderr stay small).
  let unlisted = 0;
  const warn = (w: string) => {
    if (warnings.length < MAX_LISTED_WARNINGS) warnings.push(w);
    else unlisted++;
  };
  /** First line that is not JSON: where to point when no header turns up. */
  let firstBadLine: number | undefined;
  const endsWithNewline = fileEndsWithNewline(file);

  const handle = (line: number, text: string, isLast: boolean) => {
    if (text.trim() === "") return;
    let value: unknown;
    // Every record is an object: other lines are refused without JSON.parse (a thrown exception per junk line
    // made a 10 MB file of junk take half a minute).
    if (text.trimStart().startsWith("{")) {
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
    }
    if (value === undefined) {
      firstBadLine ??= line;
      if (isLast && !endsWithNewline) warn(located(file, line, "torn last line ignored (the run was interrupted while writing it)"));
      else warn(located(file, line, "not valid JSON; line skipped"));
      return;
    }
    const type = (value as { type?: unknown }).type;
    if (line === 1 || type === "header") {
      const parsed = RunHeaderSchema.safeParse(value);
      if (!parsed.success) {
        throw new InputError(located(file, line, `not a Skill Following run file header (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`), { file, line });
      }
      if (!header) header = parsed.data;
      return;
    }
    const schema = type === "stop" ? StopRecordSchema : RunRecordSchema;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      warn(located(file, line, `invalid ${String(type)} record (${issue?.path.join(".")}: ${issue?.message}); line skipped`));
      return;
    }
    if (parsed.data.type === "stop") stops.push(parsed.data);
    else records.push(parsed.data as RunRecord);
  };

  const rl = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const text of rl) {
    lineNo++;
    if (pending) handle(pending.line, pending.text, false);
    pending = { line: lineNo, text };
  }
  if (pending) handle(pending.line, pending.text, true);
  if (unlisted > 0) warnings.push(`${file}: ${unlisted} more bad lines not listed`);
  if (!header && firstBadLine !== undefined) {
    throw new InputError(located(file, firstBadLine, "not a Skill Following run file: no valid header line (not JSON lines, or cut off while its header was written)"), { file, line: firstBadLine });
  }
  if (!header) throw new InputError(`${file}: empty run file (no header line)`, { file });
  return { header, records: dedupe(records), stops, warnings };
}

/** Later records with the same key win (a resumed run may rewrite nothing, but be safe). */
function dedupe(records: RunRecord[]): RunRecord[] {
  const byKey = new Map<string, RunRecord>();
  for (const r of records) byKey.set(r.key, r);
  return byKey.size === records.length ? records : [...byKey.values()];
}

/**
 * True when a run file holds no complete line: the process was killed before (or while) writing its header, so
 * there is nothing to resume and nothing to lose by starting it afresh.
 */
export function holdsNoCompleteLine(file: string): boolean {
  // Not a regular file (a folder, a FIFO): not ours to judge; readRunFile refuses it with a clear message.
  if (!statSync(file).isFile()) return false;
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(64 * 1024);
    let pos = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) return true;
      if (buf.subarray(0, n).includes(0x0a)) return false;
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

function fileEndsWithNewline(file: string): boolean {
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

/**
 * Append-only writer. Each record is one `write` of one line, so a crash loses at most the line being written;
 * on resume a torn tail is cut back to the last newline before anything is appended.
 */
export class RunWriter {
  private fd: number | undefined;

  private constructor(readonly file: string, fd: number) {
    this.fd = fd;
  }

  static create(file: string, header: RunHeader): RunWriter {
    let fd: number;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      fd = openSync(file, "wx");
    } catch (e) {
      // A bad --out (parent is a file, no permission, read-only disk) is the user's input, not a crash.
      throw new InputError(`${file}: cannot create the run file: ${(e as Error).message}; choose another --out`, { file, cause: e });
    }
    const writer = new RunWriter(file, fd);
    writer.writeLine(header);
    return writer;
  }

  static append(file: string): RunWriter {
    const fd = openSync(file, "r+");
    const size = fstatSync(fd).size;
    // Cut a torn last line so the next record starts on a line of its own.
    let cut = size;
    const buf = Buffer.alloc(Math.min(size, 1 << 20));
    if (size > 0) {
      readSync(fd, buf, 0, buf.length, size - buf.length);
      const lastNl = buf.lastIndexOf(0x0a);
      cut = lastNl === -1 ? size - buf.length : size - buf.length + lastNl + 1;
    }
    if (cut < size) ftruncateSync(fd, cut);
    closeSync(fd);
    return new RunWriter(file, openSync(file, "a"));
  }

  write(record: RunRecord | StopRecord): void {
    this.writeLine(record);
  }

  private writeLine(value: unknown): void {
    if (this.fd === undefined) throw new Error(`run file ${this.file} is closed`);
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
