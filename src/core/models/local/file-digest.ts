import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { JsonFileCache } from "../../json-file-cache.js";
import type { Logger } from "../../logger.js";

/**
 * The sha256 of a model file, which the run header records and the client id carries (so the response cache keys
 * on the weights). Hashing 500 MB takes seconds, so each digest is remembered in `<models dir>/digests/` against
 * the file's path, size and modification time: an unchanged re-run hashes nothing and loads no model.
 */
const DigestSchema = z.object({ file: z.string(), bytes: z.number().int(), mtimeMs: z.number(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

export interface FileDigest {
  sha256: string;
  bytes: number;
}

export class ModelDigests {
  private readonly cache: JsonFileCache<z.infer<typeof DigestSchema>>;

  constructor(modelsDir: string, logger?: Logger) {
    this.cache = new JsonFileCache(path.join(modelsDir, "digests"), DigestSchema, { ...(logger ? { logger } : {}), name: "model digest cache" });
  }

  private key(file: string): string {
    return createHash("sha256").update(path.resolve(file)).digest("hex");
  }

  /** The file's digest: remembered if size and mtime are unchanged, else computed (and remembered). */
  async of(file: string): Promise<FileDigest> {
    const s = await stat(file);
    const known = await this.cache.get(this.key(file));
    if (known && known.file === path.resolve(file) && known.bytes === s.size && known.mtimeMs === s.mtimeMs) return { sha256: known.sha256, bytes: known.bytes };
    const sha256 = await sha256File(file);
    await this.remember(file, sha256);
    return { sha256, bytes: s.size };
  }

  /** Records a digest computed elsewhere (the downloader hashes while it writes). */
  async remember(file: string, sha256: string): Promise<void> {
    const s = await stat(file);
    await this.cache.set(this.key(file), { file: path.resolve(file), bytes: s.size, mtimeMs: s.mtimeMs, sha256 });
  }
}

export async function sha256File(file: string, start = 0): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { start })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
