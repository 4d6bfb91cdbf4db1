/**
 * The batch journal: an append-only JSONL file beside the run file that records each batch round as it goes out,
 * so that a restart (after a crash, a SIGKILL or a cancel) re-attaches to the batches still at the provider instead
 * of paying for the same requests again. A round is written before anything is sent, then each step as it is
 * known:
 *   round    the round id and the custom ids (request cache keys) it holds, before the upload
 *   uploaded the provider's input file id
 *   created  the provider's batch id
 *   done     the results were read (stored in the response cache, handed to the runs)
 *   dropped  the batch or its file is gone at the provider; its requests go out again
 * A round with neither `done` nor `dropped` is live. Each line is one write, so a crash loses at most the line
 * being written, and a torn last line is ignored on reading.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../logger.js";

export const JournalLineSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("round"), round: z.string(), keys: z.array(z.string()), at: z.string() }),
  z.object({ type: z.literal("uploaded"), round: z.string(), fileId: z.string() }),
  z.object({ type: z.literal("created"), round: z.string(), batchId: z.string() }),
  z.object({ type: z.literal("done"), round: z.string(), status: z.string() }),
  z.object({ type: z.literal("dropped"), round: z.string(), reason: z.string() }),
]);
export type JournalLine = z.infer<typeof JournalLineSchema>;

/** A live round as the journal knows it. */
export interface JournalRound {
  round: string;
  keys: string[];
  at: string;
  fileId?: string;
  batchId?: string;
}

/** The file name a round's input is uploaded under: how a restart finds an upload whose answer it never saw. */
export function roundFileName(round: string): string {
  return `skill-following-${round}.jsonl`;
}

export class BatchJournal {
  private fd: number | undefined;

  private constructor(
    readonly file: string,
    /** Live rounds, in the order they were journalled. */
    readonly live: Map<string, JournalRound>,
  ) {}

  /** Reads the journal (if any) and opens it for appending. Lines that do not parse are skipped with a warning. */
  static open(file: string, logger: Logger): BatchJournal {
    const live = new Map<string, JournalRound>();
    if (existsSync(file)) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((text, i) => {
        if (text.trim() === "") return;
        let parsed: JournalLine | undefined;
        try {
          const r = JournalLineSchema.safeParse(JSON.parse(text));
          parsed = r.success ? r.data : undefined;
        } catch {
          parsed = undefined;
        }
        // The last line may be torn by a crash mid-write; anything else that does not parse is damage.
        if (!parsed) {
          if (i < lines.length - 1 || text.endsWith("}")) logger.warn(`${file}:${i + 1}: not a batch journal line; skipped`);
          return;
        }
        apply(live, parsed);
      });
    }
    mkdirSync(path.dirname(file), { recursive: true });
    const journal = new BatchJournal(file, live);
    journal.fd = openSync(file, "a+");
    // A torn last line would glue itself to the next one: start on a fresh line.
    if (!endsWithNewline(journal.fd)) writeSync(journal.fd, "\n");
    return journal;
  }

  append(line: JournalLine): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    apply(this.live, line);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function apply(live: Map<string, JournalRound>, line: JournalLine): void {
  if (line.type === "round") {
    live.set(line.round, { round: line.round, keys: line.keys, at: line.at });
    return;
  }
  const r = live.get(line.round);
  if (!r) return;
  if (line.type === "uploaded") r.fileId = line.fileId;
  else if (line.type === "created") r.batchId = line.batchId;
  else live.delete(line.round);
}

/** True for an empty file or one whose last byte is a newline. */
function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
