import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { InputError, located, type HintId } from "../errors.js";
import { readLines, type RawLine } from "../line-reader.js";
import { firstTooDeep, tooDeepMessage } from "../../shared/nesting.js";
import { RunHeaderSchema, RunRecordSchema, StopRecordSchema, summarizeRun, type RunHeader, type RunRecord, type RunSummary, type StopRecord } from "./types.js";

export interface RunFileContents<R extends RunSummary = RunRecord> {
  header: RunHeader;
  records: R[];
  stops: StopRecord[];
  /** Located, human-readable problems that did not stop the read (torn last line, bad middle lines). */
  warnings: string[];
}

const MAX_LISTED_WARNINGS = 100;

export interface ReadRunFileOptions {
  /**
   * Longer lines are skipped with a warning, never held in memory. Default 64 MB: a record holds one run's whole
   * transcript, a few hundred KB at most in practice.
   */
  maxLineBytes?: number;
  /** Past this many bytes the read fails. Default 2 GB. */
  maxBytes?: number;
}

/**
 * Reads a run file. A torn last line (a crash mid-write) is ignored with a warning; any other bad line is
 * skipped with a located warning (the first 100 listed, the rest counted); a missing or invalid header is an InputError.
 */
export async function readRunFile(file: string, options: ReadRunFileOptions = {}): Promise<RunFileContents> {
  const records: RunRecord[] = [];
  const contents = await scanRunFile(file, (r) => records.push(r), options);
  return { ...contents, records: dedupe(records) };
}

/**
 * Reads a run file as summaries (no transcripts, answers or tool calls): what reports, resumes and merges need.
 * Each record is parsed, summarised and dropped, so memory grows with the number of runs, not their size.
 */
export async function readRunSummaries(file: string, options: ReadRunFileOptions = {}): Promise<RunFileContents<RunSummary>> {
  const records: RunSummary[] = [];
  const contents = await scanRunFile(file, (r) => records.push(summarizeRun(r)), options);
  return { ...contents, records: dedupe(records) };
}

/**
 * Streams a run file: validates the header, hands each valid run record to `onRecord` in file order (duplicates
 * included; later ones win) and returns the header, stop records and warnings. Holds no record itself.
 */
export async function scanRunFile(file: string, onRecord: (record: RunRecord) => void, options: ReadRunFileOptions = {}): Promise<Omit<RunFileContents, "records">> {
  if (!existsSync(file)) throw new InputError(`${file}: no such run file`, { file });
  // A folder, FIFO or device is not a run file: reading one fails with a raw EISDIR, blocks or never ends.
  if (!statSync(file).isFile()) throw new InputError(`${file}: not a run file (not a regular file)`, { file });
  const maxLineBytes = options.maxLineBytes ?? 64 * 2 ** 20;
  const parser = new RunFileParser(file, fileEndsWithNewline(file), maxLineBytes, onRecord);
  let pending: RawLine | undefined;
  // One line of lookahead: only the last line can be torn.
  for await (const raw of readLines(file, { maxLineBytes, maxDecompressedBytes: options.maxBytes ?? 2 * 2 ** 30 })) {
    if (pending) parser.line(pending, false);
    pending = raw;
  }
  if (pending) parser.line(pending, true);
  return parser.finish();
}

/** Only the header of a run file (its first line), without reading the runs: for merging and listing large files. */
export async function readRunHeader(file: string): Promise<RunHeader> {
  if (!existsSync(file)) throw new InputError(`${file}: no such run file`, { file });
  if (!statSync(file).isFile()) throw new InputError(`${file}: not a run file (not a regular file)`, { file });
  for await (const raw of readLines(file, { maxLineBytes: 64 * 2 ** 20, maxDecompressedBytes: 2 * 2 ** 30 })) {
    const deep = "text" in raw ? tooDeep(file, raw.line, raw.text) : undefined;
    if (deep) throw new InputError(deep, { file, line: raw.line, hintIds: ["file"] });
    let value: unknown;
    try {
      value = "text" in raw ? JSON.parse(raw.text) : undefined;
    } catch {
      value = undefined;
    }
    const parsed = RunHeaderSchema.safeParse(value);
    if (!parsed.success) throw new InputError(located(file, raw.line, "not a Skill Following run file: its first line is not a run header"), { file, line: raw.line });
    return parsed.data;
  }
  throw new InputError(`${file}: empty run file (no header line)`, { file });
}

/** Turns the lines of one run file into its contents, collecting located warnings. */
class RunFileParser {
  private readonly warnings: string[] = [];
  private readonly stops: StopRecord[] = [];
  private header: RunHeader | undefined;
  // A damaged file can have millions of bad lines: list the first ones, count the rest (memory and stderr stay small).
  private unlisted = 0;
  /** First line that is not JSON: where to point when no header turns up. */
  private firstBadLine: number | undefined;

  constructor(
    private readonly file: string,
    private readonly endsWithNewline: boolean,
    private readonly maxLineBytes: number,
    private readonly onRecord: (record: RunRecord) => void,
  ) {}

  private warn(w: string): void {
    if (this.warnings.length < MAX_LISTED_WARNINGS) this.warnings.push(w);
    else this.unlisted++;
  }

  line(raw: RawLine, isLast: boolean): void {
    const { file } = this;
    const torn = isLast && !this.endsWithNewline;
    if (!("text" in raw)) {
      this.firstBadLine ??= raw.line;
      if (torn) this.warn(located(file, raw.line, "torn last line ignored (the run was interrupted while writing it)"));
      else if ("tooLong" in raw) this.warn(located(file, raw.line, `line is ${raw.tooLong} bytes, over the ${this.maxLineBytes}-byte line limit; skipped`));
      else this.warn(located(file, raw.line, "not valid UTF-8; line skipped"));
      return;
    }
    const text = raw.text;
    if (text.trim() === "") return;
    const deep = tooDeep(file, raw.line, text);
    if (deep) {
      // The header is what every later line is read against: without it there is nothing to read.
      if (raw.line === 1) throw new InputError(deep, { file, line: raw.line, hintIds: ["file"] });
      this.firstBadLine ??= raw.line;
      this.warn(`${deep}; line skipped`);
      return;
    }
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
      this.firstBadLine ??= raw.line;
      this.warn(located(file, raw.line, torn ? "torn last line ignored (the run was interrupted while writing it)" : "not valid JSON; line skipped"));
      return;
    }
    this.value(raw.line, value);
  }

  private value(line: number, value: unknown): void {
    const { file } = this;
    const type = (value as { type?: unknown }).type;
    if (line === 1 || type === "header") {
      const parsed = RunHeaderSchema.safeParse(value);
      if (!parsed.success) {
        throw new InputError(located(file, line, `not a Skill Following run file header (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`), { file, line });
      }
      this.header ??= parsed.data;
      return;
    }
    const schema = type === "stop" ? StopRecordSchema : RunRecordSchema;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.warn(located(file, line, `invalid ${String(type)} record (${issue?.path.join(".")}: ${issue?.message}); line skipped`));
      return;
    }
    if (parsed.data.type === "stop") this.stops.push(parsed.data);
    else this.onRecord(parsed.data);
  }

  finish(): Omit<RunFileContents, "records"> {
    const { file } = this;
    if (this.unlisted > 0) this.warnings.push(`${file}: ${this.unlisted} more bad lines not listed`);
    if (!this.header && this.firstBadLine !== undefined) {
      throw new InputError(located(file, this.firstBadLine, "not a Skill Following run file: no valid header line (not JSON lines, or cut off while its header was written)"), {
        file,
        line: this.firstBadLine,
      });
    }
    if (!this.header) throw new InputError(`${file}: empty run file (no header line)`, { file });
    return { header: this.header, stops: this.stops, warnings: this.warnings };
  }
}

/**
 * A located error for a line nested past MAX_JSON_NESTING, or undefined. Records nest 5 deep; a deeper line is
 * damage or an attack, and it is refused before JSON.parse and zod see it (zod recurses per level).
 */
export function tooDeep(file: string, line: number, text: string): string | undefined {
  const at = firstTooDeep(text);
  return at === undefined ? undefined : `${file}:${line}:${at + 1}: ${tooDeepMessage()}`;
}

/** Later records with the same key win (a resumed run may rewrite nothing, but be safe). */
function dedupe<R extends RunSummary>(records: R[]): R[] {
  const byKey = new Map<string, R>();
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

/** What a writer says when its file cannot be created: the file's kind and the fix. */
export interface WriterLabel {
  what: string;
  hint: string;
  hintIds: HintId[];
}

const RUN_FILE: WriterLabel = { what: "run file", hint: "Choose another run file.", hintIds: ["file"] };

/**
 * Append-only writer of the engine's JSONL files (run files; variant files such as ablations, with their own
 * header and line type). Each record is one `write` of one line, so a crash loses at most the line being written;
 * on resume a torn tail is cut back to the last newline before anything is appended.
 */
export class RunWriter<Line = RunRecord | StopRecord> {
  private fd: number | undefined;

  private constructor(readonly file: string, fd: number, private readonly label: WriterLabel) {
    this.fd = fd;
  }

  static create<Line = RunRecord | StopRecord>(file: string, header: object, label: WriterLabel = RUN_FILE): RunWriter<Line> {
    let fd: number;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      fd = openSync(file, "wx");
    } catch (e) {
      // A bad run-file path (parent is a file, no permission, read-only disk) is the user's input, not a crash.
      throw new InputError(`${file}: cannot create the ${label.what}: ${(e as Error).message}`, { file, cause: e, hint: label.hint, hintIds: label.hintIds });
    }
    const writer = new RunWriter<Line>(file, fd, label);
    writer.writeLine(header);
    return writer;
  }

  static append<Line = RunRecord | StopRecord>(file: string, label: WriterLabel = RUN_FILE): RunWriter<Line> {
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
    return new RunWriter<Line>(file, openSync(file, "a"), label);
  }

  write(record: Line): void {
    this.writeLine(record);
  }

  private writeLine(value: unknown): void {
    if (this.fd === undefined) throw new Error(`${this.label.what} ${this.file} is closed`);
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
  }

  close(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
