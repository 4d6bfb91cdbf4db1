import { open, mkdir, rename, rm, stat, readFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { CancelledError, SkillFollowingError } from "../../errors.js";
import { silentLogger, type Logger } from "../../logger.js";
import { abortableSleep } from "../openai-client.js";
import { megabytes, modelDownloadUrl, type LocalModelEntry } from "./catalog.js";
import { ModelDigests, sha256File } from "./file-digest.js";

/**
 * Downloads a pinned model once into the models folder: `<file>.part` grows until it has the pinned size (a cut
 * connection, a crash or a cancel keeps it, and the next attempt asks only for the rest with an HTTP Range), then
 * its sha256 must equal the pin before it is renamed to `<file>`. A server that announces another size is refused
 * before a byte is written; one that ignores Range is read from the start. Offline is an error that says so.
 */
export class ModelDownloadError extends SkillFollowingError {}

export interface DownloadProgress {
  /** Bytes of the file on disk so far (a resumed download starts at `resumedFrom`). */
  received: number;
  total: number;
  resumedFrom: number;
}

export interface ModelDownloadOptions {
  dir: string;
  /** A mirror laid out as `<mirror>/<name>/<file>` (air-gapped sites, tests). */
  mirror?: string;
  signal?: AbortSignal;
  logger?: Logger;
  onProgress?: (progress: DownloadProgress) => void;
  /** How often a cut connection is resumed within one call before giving up (default 4). */
  resumes?: number;
  /** Pause before a resume (default 1000 ms). */
  resumeDelayMs?: number;
  digests?: ModelDigests;
}

export interface ModelFile {
  file: string;
  sha256: string;
  bytes: number;
  /** False when the verified file was already there. */
  downloaded: boolean;
}

/** The path a pinned model has (or will have) in the models folder. */
export function modelPath(entry: LocalModelEntry, dir: string): string {
  return path.join(dir, entry.fileName);
}

export async function ensureModel(entry: LocalModelEntry, options: ModelDownloadOptions): Promise<ModelFile> {
  const logger = options.logger ?? silentLogger;
  const digests = options.digests ?? new ModelDigests(options.dir, logger);
  const file = modelPath(entry, options.dir);
  if (await sizeOf(file) !== undefined) {
    const d = await digests.of(file);
    if (d.sha256 === entry.sha256) return { file, sha256: d.sha256, bytes: d.bytes, downloaded: false };
    logger.warn(`${file} is not the pinned ${entry.title} (sha256 ${d.sha256}, expected ${entry.sha256}); downloading it again`);
    await rm(file, { force: true });
  }
  await mkdir(options.dir, { recursive: true });
  const release = await lock(`${file}.lock`, entry);
  try {
    const part = `${file}.part`;
    await fetchAll(entry, part, options, logger);
    const sha256 = await sha256File(part);
    if (sha256 !== entry.sha256) {
      await rm(part, { force: true });
      throw new ModelDownloadError(
        `the download of ${entry.title} failed verification: expected sha256 ${entry.sha256}, got ${sha256}; the file was discarded`,
        { hint: "Download again; if it fails again, the server or a proxy serves other bytes: use a trusted mirror.", hintIds: ["modelsMirror"] },
      );
    }
    await rename(part, file);
    await digests.remember(file, sha256);
    logger.info(`${entry.title}: saved ${file}`);
    return { file, sha256, bytes: entry.bytes, downloaded: true };
  } finally {
    await release();
  }
}

/** Grows `part` to the pinned size, resuming after cut connections. */
async function fetchAll(entry: LocalModelEntry, part: string, options: ModelDownloadOptions, logger: Logger): Promise<void> {
  const url = modelDownloadUrl(entry, options.mirror);
  const resumes = options.resumes ?? 4;
  for (let attempt = 0; ; attempt++) {
    let offset = (await sizeOf(part)) ?? 0;
    if (offset > entry.bytes) {
      await rm(part, { force: true });
      offset = 0;
    }
    if (offset === entry.bytes) return;
    logger.info(offset > 0 ? `${entry.title}: resuming at ${megabytes(offset)} of ${megabytes(entry.bytes)} from ${url}` : `${entry.title}: downloading ${megabytes(entry.bytes)} from ${url}`);
    const cut = await fetchFrom(entry, url, part, offset, options);
    if (cut === undefined) {
      const size = (await sizeOf(part)) ?? 0;
      if (size === entry.bytes) return;
      // A body shorter than announced without an error: treat like a cut connection.
      if (attempt >= resumes) throw new ModelDownloadError(`${url} ended after ${size} of ${entry.bytes} bytes`, { hint: "Download again to resume.", hintIds: ["modelsMirror"] });
      continue;
    }
    if (attempt >= resumes) {
      throw new ModelDownloadError(`the download of ${entry.title} from ${url} kept failing (${cut}); ${megabytes((await sizeOf(part)) ?? 0)} are kept and the next attempt resumes there`, {
        hint: "Check the connection and download again.",
        hintIds: ["modelsMirror"],
      });
    }
    logger.warn(`${entry.title}: connection lost (${cut}); resuming`);
    await abortableSleep(options.resumeDelayMs ?? 1000, options.signal);
  }
}

/**
 * One HTTP exchange from `offset`. Returns undefined when the body ended normally, or why the connection broke
 * (the bytes received so far are on disk). Throws for what no resume fixes: offline, HTTP errors, a size mismatch.
 */
async function fetchFrom(entry: LocalModelEntry, url: string, part: string, offset: number, options: ModelDownloadOptions): Promise<string | undefined> {
  const response = await request(url, offset, entry, options.signal);
  let start = offset;
  if (response.status === 416 && offset > 0) {
    // The server has no bytes past ours: the part is damaged or from another file. Start over.
    await response.body?.cancel().catch(() => undefined);
    await rm(part, { force: true });
    return "the server refused the resume range";
  }
  if (response.status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get("content-range") ?? "");
    const total = range?.[3] === "*" ? undefined : Number(range?.[3]);
    if (!range || Number(range[1]) !== offset) return refuse(response, `${url} answered the range request with ${response.headers.get("content-range") ?? "no Content-Range"}`);
    if (total !== undefined && total !== entry.bytes) return refuse(response, sizeMismatch(entry, url, total));
  } else if (response.status === 200) {
    const length = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(length) && length !== entry.bytes) return refuse(response, sizeMismatch(entry, url, length));
    start = 0; // no Range support: the whole file again
  } else {
    await response.body?.cancel().catch(() => undefined);
    throw new ModelDownloadError(`downloading ${entry.title} from ${url} failed: HTTP ${response.status} ${response.statusText}`.trimEnd(), {
      hint: "Check the address (or the mirror) and try again.",
      hintIds: ["modelsMirror"],
    });
  }
  if (response.body === null) return "empty body";
  // Chunk by chunk, each written before the next is read: whatever arrived before a cut is on disk to resume from.
  const handle = await open(part, start === 0 ? "w" : "a");
  let received = start;
  try {
    options.onProgress?.({ received, total: entry.bytes, resumedFrom: offset });
    for await (const chunk of Readable.fromWeb(response.body) as AsyncIterable<Buffer>) {
      if (received + chunk.length > entry.bytes) throw new ModelDownloadError(sizeMismatch(entry, url, received + chunk.length));
      await handle.write(chunk);
      received += chunk.length;
      options.onProgress?.({ received, total: entry.bytes, resumedFrom: offset });
    }
    return undefined;
  } catch (error) {
    if (options.signal?.aborted) throw new CancelledError(`download of ${entry.title} cancelled; ${megabytes(received)} kept for the next attempt`);
    if (error instanceof ModelDownloadError) {
      await handle.close();
      await rm(part, { force: true });
      throw error;
    }
    return describe(error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function request(url: string, offset: number, entry: LocalModelEntry, signal: AbortSignal | undefined): Promise<Response> {
  try {
    // identity: a compressed transfer would make Content-Length and Range count other bytes than the file's.
    const headers: Record<string, string> = { "accept-encoding": "identity", ...(offset > 0 ? { range: `bytes=${offset}-` } : {}) };
    return await fetch(url, { headers, redirect: "follow", ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw new CancelledError(`download of ${entry.title} cancelled`);
    const host = new URL(url).host;
    throw new ModelDownloadError(
      `cannot download ${entry.title} (${megabytes(entry.bytes)}): ${host} is unreachable (${describe(error)}); this machine looks offline or cut off from ${host}`,
      {
        hint: `Connect and try again, or copy ${entry.fileName} (sha256 ${entry.sha256}) into the models folder from elsewhere, or use a mirror or another model.`,
        hintIds: ["modelsMirror", "model"],
        cause: error,
      },
    );
  }
}

async function refuse(response: Response, message: string): Promise<never> {
  await response.body?.cancel().catch(() => undefined);
  throw new ModelDownloadError(message, { hint: "The server offers another file than the pinned one: use the official source or a faithful mirror.", hintIds: ["modelsMirror"] });
}

function sizeMismatch(entry: LocalModelEntry, url: string, bytes: number): string {
  return `${url} offers ${bytes} bytes but ${entry.title} is pinned at ${entry.bytes}; refused without downloading`;
}

/** One download per file at a time: a second process waits for nothing and says who holds it. */
async function lock(lockFile: string, entry: LocalModelEntry): Promise<() => Promise<void>> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const handle = await open(lockFile, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new ModelDownloadError(`${entry.title} is being downloaded by another process (pid ${pid}); try again when it is done`);
      }
      await rm(lockFile, { force: true }); // a stale lock from a process that died
    }
  }
  throw new ModelDownloadError(`cannot lock ${lockFile}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    const s = await stat(file);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/** fetch hides the useful part ("ECONNREFUSED", "other side closed") in the cause. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
