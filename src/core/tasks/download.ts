import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { CancelledError, SkillFollowingError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";

/**
 * Fetches the public task sets (MBPP+, HumanEval+, GSM8K, MATH-500) for users, checksummed and cached.
 * The product never ships these files. Checksums come from ../shared/data/README.md §6; the copies there
 * are what the tests serve from a loopback server.
 */

export type TaskSetName = "mbppplus" | "humanevalplus" | "gsm8k" | "math500";

/** A digest of the *decompressed* bytes of a gzip download, used when the gzip wrapper may differ. */
export interface ContentDigest {
  algorithm: "sha256" | "md5";
  hex: string;
}

export interface TaskSetCatalogEntry {
  name: TaskSetName;
  title: string;
  version: string;
  /** The official location, as the project itself publishes it. */
  url: string;
  /** Name of the cached file: `<cacheDir>/<name>/<fileName>`. A mirror serves `<baseUrl>/<name>/<fileName>`. */
  fileName: string;
  /** sha256 of the file as downloaded (the committed upstream copy). */
  sha256: string;
  /**
   * Fallback check of the decompressed content. Release assets are re-gzipped by upstream scripts, so the
   * compressed bytes may differ while the content is identical; the content digest decides then.
   */
  content?: ContentDigest;
  license: string;
  records: number;
  bytes: number;
  kind: "python-function" | "math-answer";
}

export const TASK_SET_CATALOG: readonly TaskSetCatalogEntry[] = [
  {
    name: "mbppplus",
    title: "MBPP+ (EvalPlus)",
    version: "v0.2.0",
    url: "https://github.com/evalplus/mbppplus_release/releases/download/v0.2.0/MbppPlus.jsonl.gz",
    fileName: "MbppPlus-v0.2.0.jsonl.gz",
    sha256: "af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63",
    content: { algorithm: "sha256", hex: "b54e762755248ca411b523c917fa9f93c07b5ff2966bf60b3917b853926a3dad" },
    license: "Apache-2.0 (EvalPlus); problems from MBPP, CC-BY-4.0",
    records: 378,
    bytes: 336_032,
    kind: "python-function",
  },
  {
    name: "humanevalplus",
    title: "HumanEval+ (EvalPlus)",
    version: "v0.1.10",
    url: "https://github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz",
    fileName: "HumanEvalPlus-v0.1.10.jsonl.gz",
    // The sha256 of the committed file; the release asset itself could not be checked offline, so the
    // decompressed md5 (the hash EvalPlus itself records for v0.1.10) is the authority when they differ.
    sha256: "272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101",
    content: { algorithm: "md5", hex: "fe585eb4df8c88d844eeb463ea4d0302" },
    license: "Apache-2.0 (EvalPlus); problems from OpenAI HumanEval, MIT",
    records: 164,
    bytes: 925_932,
    kind: "python-function",
  },
  {
    name: "gsm8k",
    title: "GSM8K (test split)",
    version: "2021-10-28",
    url: "https://raw.githubusercontent.com/openai/grade-school-math/master/grade_school_math/data/test.jsonl",
    fileName: "test.jsonl",
    sha256: "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
    license: "MIT (OpenAI)",
    records: 1319,
    bytes: 749_738,
    kind: "math-answer",
  },
  {
    name: "math500",
    title: "MATH-500 (PRM800K test split)",
    version: "prm800k",
    url: "https://huggingface.co/datasets/HuggingFaceH4/MATH-500/resolve/main/test.jsonl",
    fileName: "test.jsonl",
    sha256: "35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132",
    license: "MIT (PRM800K, OpenAI); problems from MATH (Hendrycks et al.), MIT",
    records: 500,
    bytes: 446_564,
    kind: "math-answer",
  },
];

/** A download that failed: network, HTTP status, size cap or checksum. Nothing is left in the cache. */
export class DownloadError extends SkillFollowingError {}

export interface DownloadOptions {
  cacheDir: string;
  /** Mirror root (tests, air-gapped sites): the file is fetched from `<baseUrl>/<name>/<fileName>`. */
  baseUrl?: string;
  logger?: Logger;
  signal?: AbortSignal;
  /** Refuse bodies larger than this (default 64 MiB; the largest set is under 1 MiB). */
  maxBytes?: number;
}

export interface DownloadResult {
  /** Absolute path of the verified file in the cache. */
  file: string;
  /** sha256 of the file's bytes. */
  sha256: string;
  /** True when the cached copy was valid and no network request was made. */
  cached: boolean;
}

export function catalogEntry(name: string): TaskSetCatalogEntry {
  const entry = TASK_SET_CATALOG.find((e) => e.name === name);
  if (!entry) {
    throw new DownloadError(`unknown task set "${name}"`, {
      hint: `Known task sets: ${TASK_SET_CATALOG.map((e) => e.name).join(", ")}.`,
    });
  }
  return entry;
}

/** Where a task set is fetched from, given an optional mirror root. */
export function downloadUrl(entry: TaskSetCatalogEntry, baseUrl?: string): string {
  if (baseUrl === undefined || baseUrl === "") return entry.url;
  return `${baseUrl.replace(/\/+$/, "")}/${entry.name}/${entry.fileName}`;
}

export async function downloadTaskSet(name: TaskSetName, options: DownloadOptions): Promise<DownloadResult> {
  const entry = catalogEntry(name);
  const logger = options.logger ?? silentLogger;
  const dir = path.resolve(options.cacheDir, entry.name);
  const file = path.join(dir, entry.fileName);

  if (await exists(file)) {
    const check = await verify(file, entry);
    if (check.ok) {
      logger.debug(`task set ${entry.name}: using cached ${file}`);
      return { file, sha256: check.sha256, cached: true };
    }
    // A stale or damaged cache entry is replaced, not trusted; the new download is verified as usual.
    logger.warn(`task set ${entry.name}: cached ${file} does not match its checksum (sha256 ${check.sha256}); downloading again`);
  }

  const url = downloadUrl(entry, options.baseUrl);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${entry.fileName}.${process.pid}.${randomBytes(6).toString("hex")}.part`);
  try {
    logger.info(`task set ${entry.name}: downloading ${url}`);
    const sha256 = await fetchTo(url, temp, options.maxBytes ?? 64 * 1024 * 1024, options.signal);
    const check = await verify(temp, entry, sha256);
    if (!check.ok) {
      throw new DownloadError(
        `download of ${entry.title} from ${url} failed verification: expected sha256 ${entry.sha256}, got ${sha256}` +
          (entry.content ? ` (decompressed ${entry.content.algorithm} expected ${entry.content.hex}, got ${check.contentHex ?? "unreadable gzip"})` : "") +
          "; the file was discarded and the cache is unchanged",
        { hint: "Retry; if it fails again the server or a proxy is serving different bytes: download from a trusted mirror instead.", hintIds: ["taskSetMirror"] },
      );
    }
    if (check.viaContent) {
      logger.warn(
        `task set ${entry.name}: file sha256 ${sha256} differs from the recorded ${entry.sha256}, but its decompressed ${entry.content?.algorithm} matches; accepted`,
      );
    }
    // rename() within one directory is atomic, so readers see either no file or a verified one.
    await rename(temp, file);
    logger.info(`task set ${entry.name}: saved ${file}`);
    return { file, sha256, cached: false };
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    if (error instanceof SkillFollowingError) throw error;
    if (options.signal?.aborted) throw new CancelledError(`download of ${entry.name} cancelled`);
    throw new DownloadError(`download of ${entry.title} from ${url} failed: ${describe(error)}`, {
      hint: "Check the network connection or proxy, or download from a mirror laid out as <mirror>/<name>/<file>.",
      hintIds: ["taskSetMirror"],
      cause: error,
    });
  }
}

/** Streams the body into `temp`, hashing on the way; returns the sha256. */
async function fetchTo(url: string, temp: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const response = await fetch(url, { signal, redirect: "follow" });
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new DownloadError(`download from ${url} failed: HTTP ${response.status} ${response.statusText}`.trimEnd(), {
      hint: "Check the URL (or the mirror) and try again.",
      hintIds: ["taskSetMirror"],
    });
  }
  const hash = createHash("sha256");
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) {
        callback(new DownloadError(`download from ${url} exceeded ${maxBytes} bytes; refused`));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const body = Readable.fromWeb(response.body);
  await pipeline(body, meter, createWriteStream(temp, { flags: "wx" }), { signal });
  return hash.digest("hex");
}

interface Check {
  ok: boolean;
  sha256: string;
  viaContent: boolean;
  contentHex?: string;
}

async function verify(file: string, entry: TaskSetCatalogEntry, knownSha256?: string): Promise<Check> {
  const sha256 = knownSha256 ?? (await digestFile(file, "sha256", false));
  if (sha256 === entry.sha256) return { ok: true, sha256, viaContent: false };
  if (!entry.content) return { ok: false, sha256, viaContent: false };
  let contentHex: string | undefined;
  try {
    contentHex = await digestFile(file, entry.content.algorithm, true);
  } catch {
    contentHex = undefined; // not gzip at all: plainly the wrong file
  }
  return { ok: contentHex === entry.content.hex, sha256, viaContent: true, contentHex };
}

async function digestFile(file: string, algorithm: "sha256" | "md5", gunzip: boolean): Promise<string> {
  const hash = createHash(algorithm);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback();
    },
  });
  if (gunzip) await pipeline(createReadStream(file), createGunzip(), sink);
  else await pipeline(createReadStream(file), sink);
  return hash.digest("hex");
}

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
