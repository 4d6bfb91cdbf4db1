/**
 * On-disk response cache around any ModelClient. The key is the sha256 of the canonical JSON (sorted keys)
 * of the full request, the sample index and the endpoint id (which never holds a key), so an unchanged
 * re-run costs zero model calls and an edit re-issues exactly the requests whose text changed.
 *
 * Layout: `<dir>/<first two hex>/<key>.json`. Writes go to a temp file then rename, so a concurrent reader
 * sees either nothing or a whole entry. Unreadable entries are reported and fetched again.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { silentLogger, type Logger } from "../logger.js";
import type { CallOptions, ChatRequest, ChatResponse, ModelClient } from "./types.js";

/** Bump when the key derivation or the entry shape changes; old entries then simply miss. */
export const CACHE_FORMAT_VERSION = 1;

/** JSON with object keys sorted at every depth and `undefined` members dropped (as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * The cache key of one call. Everything that can change the answer is in it: model, every message
 * (so a changed skill body changes every request that contains it, and no other), tools, sampling
 * parameters, the sample index and the endpoint.
 */
export function requestCacheKey(request: ChatRequest, sampleIndex: number, endpointId: string): string {
  const material = canonicalJson({ v: CACHE_FORMAT_VERSION, endpoint: endpointId, sampleIndex, request });
  return createHash("sha256").update(material).digest("hex");
}

const CachedToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

export const CacheEntrySchema = z.object({
  version: z.literal(CACHE_FORMAT_VERSION),
  key: z.string(),
  response: z.object({
    content: z.string().nullable(),
    toolCalls: z.array(CachedToolCallSchema),
    finishReason: z.string().nullable(),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
  }),
});
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

export interface CachedClientOptions {
  dir: string;
  logger?: Logger;
}

export type CachedModelClient = ModelClient & { stats(): { hits: number; misses: number } };

export function createCachedClient(inner: ModelClient, options: CachedClientOptions): CachedModelClient {
  const logger = options.logger ?? silentLogger;
  let hits = 0;
  let misses = 0;

  const entryPath = (key: string): string => path.join(options.dir, key.slice(0, 2), `${key}.json`);

  async function read(key: string): Promise<CacheEntry["response"] | undefined> {
    const file = entryPath(key);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") logger.warn(`response cache: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? "error"}); fetching again`);
      return undefined;
    }
    let parsed: ReturnType<typeof CacheEntrySchema.safeParse>;
    try {
      parsed = CacheEntrySchema.safeParse(JSON.parse(text));
    } catch {
      logger.warn(`response cache: ignoring corrupt entry ${file}; fetching again`);
      return undefined;
    }
    if (!parsed.success || parsed.data.key !== key) {
      logger.warn(`response cache: ignoring invalid entry ${file}; fetching again`);
      return undefined;
    }
    return parsed.data.response;
  }

  async function write(key: string, response: ChatResponse): Promise<void> {
    const file = entryPath(key);
    // Only the answer is stored: no request text, no headers, nothing that could carry a key.
    const entry: CacheEntry = {
      version: CACHE_FORMAT_VERSION,
      key,
      response: { content: response.content, toolCalls: response.toolCalls.map((t) => ({ id: t.id, name: t.name, arguments: t.arguments })), finishReason: response.finishReason, usage: { promptTokens: response.usage.promptTokens, completionTokens: response.usage.completionTokens } },
    };
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(tmp, JSON.stringify(entry), "utf8");
      await rename(tmp, file);
    } catch (e) {
      // A cache that cannot be written only costs money on the next run; the answer is still good.
      logger.warn(`response cache: cannot write ${file} (${(e as NodeJS.ErrnoException).code ?? "error"})`);
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  return {
    id: inner.id,
    stats: () => ({ hits, misses }),
    async complete(request: ChatRequest, callOptions: CallOptions): Promise<ChatResponse> {
      const key = requestCacheKey(request, callOptions.sampleIndex, inner.id);
      const hit = await read(key);
      if (hit) {
        hits++;
        return { ...hit, latencyMs: 0, cached: true };
      }
      misses++;
      const response = await inner.complete(request, callOptions);
      // Truncated answers (finish_reason "length") are kept: re-asking would give the same answer.
      await write(key, response);
      return { ...response, cached: false };
    },
  };
}
