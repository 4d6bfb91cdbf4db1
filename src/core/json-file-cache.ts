import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { silentLogger, type Logger } from "./logger.js";

/** Tag of the entry envelope; a file without it is from before this cache (see `legacy`). */
const ENTRY_FORMAT = "skill-following/json-file-cache/1";

/** What a cache file holds: the value, the key it was stored under, and a checksum of the value. */
interface Entry {
  format: typeof ENTRY_FORMAT;
  key: string;
  /** sha256 of the value's JSON: an entry damaged on disk (or edited by hand) fails it and is recomputed. */
  sha256: string;
  value: unknown;
}

export interface JsonFileCacheOptions {
  logger?: Logger;
  /** How warnings name this cache, e.g. "response cache". */
  name?: string;
  /** What a miss leads to, for warnings: "fetching again", "recomputing" (default). */
  onMiss?: string;
  /**
   * Reads a file written before this envelope existed, so an upgrade does not throw a cache away (and re-bill
   * every model call). Its result is schema-checked like any value, then stored again in the current form.
   */
  legacy?: (raw: unknown, key: string) => unknown;
}

/** Keys are file names: hex digests and the like. Anything else (a slash, `..`) is a bug in the caller. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

const checksum = (json: string): string => createHash("sha256").update(json).digest("hex");

/**
 * A folder of JSON values by key, for caches that must survive crashes, concurrent writers and damaged files:
 * - `get(key)` / `set(key, value)` (and `getSync` / `setSync` for synchronous callers);
 * - one file per key, `<dir>/<first two characters>/<key>.json`;
 * - writes go to a unique temp file renamed into place, so a reader sees no file or a whole one;
 * - reads are checked three ways (the key inside the file, the value's checksum, the zod schema) and anything that
 *   fails is a miss, reported once, that the caller recomputes and `set`s again;
 * - a cache that cannot be written warns and carries on: a cache only saves work.
 */
export class JsonFileCache<T> {
  private readonly logger: Logger;
  private readonly name: string;
  private readonly onMiss: string;

  constructor(
    readonly dir: string,
    private readonly schema: z.ZodType<T>,
    private readonly options: JsonFileCacheOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.name = options.name ?? "cache";
    this.onMiss = options.onMiss ?? "recomputing";
  }

  /** The file of `key` (whether or not it exists). */
  file(key: string): string {
    if (!KEY.test(key)) throw new Error(`${this.name}: invalid key ${JSON.stringify(key)}`);
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<T | undefined> {
    const file = this.file(key);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      return this.unreadable(file, e);
    }
    const { value, upgrade } = this.decode(file, key, text);
    if (value !== undefined && upgrade) await this.set(key, value);
    return value;
  }

  async set(key: string, value: T): Promise<void> {
    const file = this.file(key);
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(tmp, this.encode(key, value), "utf8");
      await rename(tmp, file);
    } catch (e) {
      this.unwritable(file, e);
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  getSync(key: string): T | undefined {
    const file = this.file(key);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      return this.unreadable(file, e);
    }
    const { value, upgrade } = this.decode(file, key, text);
    if (value !== undefined && upgrade) this.setSync(key, value);
    return value;
  }

  setSync(key: string, value: T): void {
    const file = this.file(key);
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(tmp, this.encode(key, value), "utf8");
      renameSync(tmp, file);
    } catch (e) {
      this.unwritable(file, e);
      try {
        rmSync(tmp, { force: true });
      } catch {
        // The folder itself is the problem (e.g. a file in its place): there is no temp file to remove.
      }
    }
  }

  private encode(key: string, value: T): string {
    const json = JSON.stringify(value);
    // Spliced rather than re-stringified: the checksum covers exactly the bytes of the value in the file.
    return `{"format":${JSON.stringify(ENTRY_FORMAT)},"key":${JSON.stringify(key)},"sha256":"${checksum(json)}","value":${json}}`;
  }

  /** The value of a file's text, or undefined (with a warning) when it cannot be trusted. */
  private decode(file: string, key: string, text: string): { value: T | undefined; upgrade: boolean } {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.logger.warn(`${this.name}: ignoring corrupt entry ${file}; ${this.onMiss}`);
      return { value: undefined, upgrade: false };
    }
    const entry = raw as Partial<Entry> | null;
    const enveloped = entry !== null && typeof entry === "object" && entry.format === ENTRY_FORMAT;
    if (!enveloped) {
      const old = this.options.legacy?.(raw, key);
      const parsed = old === undefined ? undefined : this.schema.safeParse(old);
      if (parsed?.success) return { value: parsed.data, upgrade: true };
      this.logger.warn(`${this.name}: ignoring invalid entry ${file}; ${this.onMiss}`);
      return { value: undefined, upgrade: false };
    }
    if (entry.key !== key) {
      this.logger.warn(`${this.name}: ignoring invalid entry ${file} (stored under another key); ${this.onMiss}`);
      return { value: undefined, upgrade: false };
    }
    if (checksum(JSON.stringify(entry.value)) !== entry.sha256) {
      this.logger.warn(`${this.name}: ignoring corrupt entry ${file} (checksum mismatch); ${this.onMiss}`);
      return { value: undefined, upgrade: false };
    }
    const parsed = this.schema.safeParse(entry.value);
    if (!parsed.success) {
      this.logger.warn(`${this.name}: ignoring invalid entry ${file} (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); ${this.onMiss}`);
      return { value: undefined, upgrade: false };
    }
    return { value: parsed.data, upgrade: false };
  }

  private unreadable(file: string, e: unknown): undefined {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") this.logger.warn(`${this.name}: cannot read ${file} (${code ?? "error"}); ${this.onMiss}`);
    return undefined;
  }

  private unwritable(file: string, e: unknown): void {
    this.logger.warn(`${this.name}: cannot write ${file} (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
