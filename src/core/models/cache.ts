/**
 * On-disk response cache around any ModelClient. The key is the sha256 of the canonical JSON (sorted keys)
 * of the full request, the sample index and the endpoint id (which never holds a key), so an unchanged
 * re-run costs zero model calls and an edit re-issues exactly the requests whose text changed.
 *
 * Storage is a JsonFileCache (`<dir>/<first two hex>/<key>.json`, atomic writes, checksummed and schema-checked
 * reads): a damaged or foreign entry is reported and fetched again.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { JsonFileCache } from "../json-file-cache.js";
import type { Logger } from "../logger.js";
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
export function requestCacheKey(request: ChatRequest, sampleIndex: number, endpointId: string, scope?: string): string {
  const material = canonicalJson({ v: CACHE_FORMAT_VERSION, endpoint: endpointId, sampleIndex, request, ...(scope !== undefined ? { scope } : {}) });
  return createHash("sha256").update(material).digest("hex");
}

const CachedToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/** What is stored per call: only the answer (no request text, no headers, nothing that could carry a key). */
export const CachedResponseSchema = z.object({
  content: z.string().nullable(),
  toolCalls: z.array(CachedToolCallSchema),
  finishReason: z.string().nullable(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
});
export type CachedResponse = z.infer<typeof CachedResponseSchema>;

/** The entry shape before JsonFileCache (read once, then stored again in the checksummed form). */
const LegacyEntrySchema = z.object({ version: z.literal(CACHE_FORMAT_VERSION), key: z.string(), response: CachedResponseSchema });

export interface CachedClientOptions {
  dir: string;
  logger?: Logger;
}

export type CachedModelClient = ModelClient & { stats(): { hits: number; misses: number } };

export function createCachedClient(inner: ModelClient, options: CachedClientOptions): CachedModelClient {
  const cache = new JsonFileCache(options.dir, CachedResponseSchema, {
    ...(options.logger ? { logger: options.logger } : {}),
    name: "response cache",
    onMiss: "fetching again",
    legacy: (raw, key) => {
      const old = LegacyEntrySchema.safeParse(raw);
      return old.success && old.data.key === key ? old.data.response : undefined;
    },
  });
  let hits = 0;
  let misses = 0;
  return {
    id: inner.id,
    ...(inner.weights ? { weights: inner.weights } : {}),
    ...(inner.batch ? { batch: inner.batch } : {}),
    stats: () => ({ hits, misses }),
    async complete(request: ChatRequest, callOptions: CallOptions): Promise<ChatResponse> {
      const key = requestCacheKey(callOptions.cacheKeyRequest ?? request, callOptions.sampleIndex, inner.id, callOptions.cacheScope);
      const hit = await cache.get(key);
      if (hit && (callOptions.accept?.({ ...hit, latencyMs: 0 }) ?? true)) {
        hits++;
        return { ...hit, latencyMs: 0, cached: true };
      }
      misses++;
      const response = await inner.complete(request, callOptions);
      // An unusable answer (a judge's reply that is not a grading) is not kept: asking again may give a usable one.
      if (callOptions.accept && !callOptions.accept(response)) return { ...response, cached: false };
      // Truncated answers (finish_reason "length") are kept: re-asking would give the same answer.
      await cache.set(key, {
        content: response.content,
        toolCalls: response.toolCalls.map((t) => ({ id: t.id, name: t.name, arguments: t.arguments })),
        finishReason: response.finishReason,
        usage: { promptTokens: response.usage.promptTokens, completionTokens: response.usage.completionTokens },
      });
      return { ...response, cached: false };
    },
  };
}
