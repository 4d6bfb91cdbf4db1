import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { pipeline, type Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { InputError, located } from "./errors.js";

/**
 * Streams the lines of a plain or gzip file (gzip detected by its magic bytes, not its name) with two caps,
 * so a hostile file cannot take the process down: a line longer than `maxLineBytes` is reported and
 * skipped without being held in memory, and decompressing past `maxDecompressedBytes` stops the read with
 * a located InputError (gzip bombs). node:readline has neither cap, hence this reader. The one JSONL reader of
 * the product: task files (src/core/tasks/load.ts) and run files (src/core/runs/store.ts) both read through it.
 */

export interface LineReaderOptions {
  maxLineBytes: number;
  maxDecompressedBytes: number;
  /** Read size; default 1 MB. Tests shrink it to put line, CRLF and UTF-8 boundaries across chunks. */
  chunkBytes?: number;
}

export type RawLine =
  | { line: number; text: string }
  | { line: number; tooLong: number }
  | { line: number; invalidUtf8: true };

export const GZIP_MAGIC = [0x1f, 0x8b] as const;

export async function isGzipFile(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await handle.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === GZIP_MAGIC[0] && buf[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

export async function* readLines(file: string, options: LineReaderOptions): AsyncGenerator<RawLine> {
  const gzip = await isGzipFile(file);
  const raw = createReadStream(file, { highWaterMark: options.chunkBytes ?? 1 << 20 });
  let source: Readable = raw;
  if (gzip) {
    const gunzip = createGunzip();
    // pipeline propagates a read error into gunzip (surfacing in the loop below) and destroys both on exit.
    pipeline(raw, gunzip, () => {});
    source = gunzip;
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let lineNo = 1;
  let parts: Buffer[] = [];
  let partLen = 0;
  let overflow = 0;
  let total = 0;

  const finish = (): RawLine => {
    const n = lineNo++;
    if (overflow > 0) {
      const r: RawLine = { line: n, tooLong: overflow };
      overflow = 0;
      return r;
    }
    let bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, partLen);
    parts = [];
    partLen = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    try {
      // The decoder drops a leading UTF-8 BOM (ignoreBOM defaults to false), which some editors write on line 1.
      return { line: n, text: decoder.decode(bytes) };
    } catch {
      return { line: n, invalidUtf8: true };
    }
  };

  const take = (chunk: Buffer) => {
    if (overflow > 0) {
      overflow += chunk.length;
      return;
    }
    if (partLen + chunk.length > options.maxLineBytes) {
      overflow = partLen + chunk.length;
      parts = [];
      partLen = 0;
      return;
    }
    parts.push(chunk);
    partLen += chunk.length;
  };

  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > options.maxDecompressedBytes) {
        const mb = Math.round(options.maxDecompressedBytes / 2 ** 20);
        throw new InputError(located(file, lineNo, `content is larger than ${mb} MB${gzip ? " after decompression (gzip bomb?)" : ""}; refusing to read further`), {
          file,
          line: lineNo,
          hint: "Split it into smaller files.",
        });
      }
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0) break;
        take(chunk.subarray(start, nl));
        yield finish();
        start = nl + 1;
      }
      if (start < chunk.length) take(chunk.subarray(start));
    }
    if (partLen > 0 || overflow > 0) yield finish();
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const what = code?.startsWith("Z_") ? `not a readable gzip file (${(e as Error).message})` : `cannot read: ${(e as Error).message}`;
    throw new InputError(located(file, lineNo, what), { file, line: lineNo, cause: e });
  } finally {
    raw.destroy();
    if (source !== raw) source.destroy();
  }
}
