/**
 * OpenAI's Files and Batches endpoints, through the `openai` package, for batch mode (batch-client.ts): upload a
 * JSONL file, create a batch, poll it, read its result files. Every call has the model client's retry rule (the
 * SDK's own retries are off; retry.ts classifies by error class and status), and the two calls whose answer can be
 * lost after the provider acted on them are made safe to repeat: an upload is found again by its file name, a
 * created batch by its input file, before either is made a second time.
 */
import OpenAI, { APIError, toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import { z } from "zod";
import { CancelledError, ModelRequestError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Redaction } from "./openai-client.js";
import { classifyFailure, retryDelayMs } from "./retry.js";
import type { ChatResponse } from "./types.js";
import { fromWireCompletion } from "./wire.js";

export type ProviderBatch = Batch;

/** States after which a batch changes no more. */
export const TERMINAL = new Set(["completed", "failed", "expired", "cancelled"]);

/** One line of a batch's output or error file. */
export const ResultLineSchema = z.object({
  custom_id: z.string(),
  response: z.object({ status_code: z.number().int(), body: z.unknown() }).nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type ResultLine = z.infer<typeof ResultLineSchema>;

/**
 * One result line read: a completion (status 200, validated like a synchronous answer), or why it failed, noting
 * the one refusal the client fixes itself (a model that wants max_completion_tokens instead of max_tokens).
 */
export function readResultLine(line: ResultLine): { ok: true; answer: Omit<ChatResponse, "latencyMs"> } | { ok: false; status: number | undefined; message: string; refusedMaxTokens: boolean } {
  const status = line.response?.status_code;
  if (status === 200) {
    try {
      return { ok: true, answer: fromWireCompletion(line.response!.body) };
    } catch (err) {
      return { ok: false, status: undefined, message: `Batch answer to a request is not a chat completion: ${(err as Error).message}`, refusedMaxTokens: false };
    }
  }
  const body = line.response?.body as { error?: { message?: string; param?: string } } | undefined;
  const said = body?.error?.message ?? line.error?.message ?? line.error?.code ?? "no answer";
  const refusedMaxTokens = status === 400 && (body?.error?.param === "max_tokens" || /'max_tokens'/.test(said)) && /unsupported|not supported/i.test(said);
  return { ok: false, status: status ?? undefined, message: `Batch request failed (${status === undefined ? (line.error?.code ?? "error") : `HTTP ${status}`}): ${said}`, refusedMaxTokens };
}

/** The provider no longer has it (HTTP 404): the caller drops what depended on it and sends again. */
export class GoneError extends Error {
  override name = "GoneError";
}

export interface BatchProviderOptions {
  sdk: OpenAI;
  endpoint: string;
  redaction: Redaction;
  logger: Logger;
  attempts: number;
  backoff: { baseMs: number; maxMs: number; maxRetryAfterMs: number };
  sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** How far back a lost upload or create is looked for: lists are newest first, and a round's own is recent. */
const MAX_LISTED = 2000;

export class BatchProvider {
  constructor(private readonly o: BatchProviderOptions) {}

  /** Uploads a round's requests as a `batch` file named `name`; returns the file id. */
  async upload(name: string, content: Buffer, signal: AbortSignal): Promise<string> {
    // Safe to repeat: after a failed attempt, a file that reached the provider anyway is found by its name.
    const file = await this.call("upload the batch input file", "POST /files", signal, async (attempt) => {
      const found = attempt > 1 ? await this.findFile(name, signal) : undefined;
      if (found) return found;
      const created = await this.o.sdk.files.create({ file: await toFile(content, name, { type: "application/jsonl" }), purpose: "batch" }, { signal });
      return created.id;
    });
    return file;
  }

  /** A `batch` file uploaded under `name`, if the provider has one. */
  async findFile(name: string, signal: AbortSignal): Promise<string | undefined> {
    return this.call("list batch files", "GET /files", signal, async () => {
      let seen = 0;
      for await (const f of this.o.sdk.files.list({ purpose: "batch" }, { signal })) {
        if (f.filename === name) return f.id;
        if (++seen >= MAX_LISTED) break;
      }
      return undefined;
    });
  }

  /** True while the provider still has the file. */
  async fileExists(fileId: string, signal: AbortSignal): Promise<boolean> {
    try {
      await this.call("look up the batch input file", "GET /files/{id}", signal, () => this.o.sdk.files.retrieve(fileId, { signal }));
      return true;
    } catch (e) {
      if (e instanceof GoneError) return false;
      throw e;
    }
  }

  /**
   * Creates the batch of an uploaded file, exactly once: before each retry, a batch already made from this file (an
   * attempt whose answer was lost) is looked for and reused. A restart looks for one itself (findBatch) first.
   */
  async create(fileId: string, round: string, signal: AbortSignal): Promise<ProviderBatch> {
    return this.call("create the batch", "POST /batches", signal, async (attempt) => {
      const existing = attempt > 1 ? await this.findBatch(fileId, signal) : undefined;
      if (existing) return existing;
      return this.o.sdk.batches.create({ input_file_id: fileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { "skill-following-round": round } }, { signal });
    });
  }

  /** The batch made from `fileId`, if any (newest first, a bounded number of pages). */
  async findBatch(fileId: string, signal: AbortSignal): Promise<ProviderBatch | undefined> {
    let seen = 0;
    for await (const b of this.o.sdk.batches.list({ limit: 100 }, { signal })) {
      if (b.input_file_id === fileId) return b;
      if (++seen >= MAX_LISTED) break;
    }
    return undefined;
  }

  retrieve(batchId: string, signal: AbortSignal): Promise<ProviderBatch> {
    return this.call("poll the batch", "GET /batches/{id}", signal, () => this.o.sdk.batches.retrieve(batchId, { signal }));
  }

  /** The lines of a result file, streamed (an output file can be hundreds of MB). */
  async *lines(fileId: string, signal: AbortSignal): AsyncGenerator<ResultLine> {
    const response = await this.call("download the batch results", "GET /files/{id}/content", signal, () => this.o.sdk.files.content(fileId, { signal }));
    if (!response.body) return;
    const decoder = new TextDecoder();
    let rest = "";
    const parse = (text: string): ResultLine | undefined => {
      if (text.trim() === "") return undefined;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        raw = undefined;
      }
      const r = ResultLineSchema.safeParse(raw);
      if (!r.success) this.o.logger.warn(`batch result file ${fileId}: a line is not a batch result; skipped`);
      return r.success ? r.data : undefined;
    };
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf("\n")) >= 0) {
        const line = parse(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
        if (line) yield line;
      }
    }
    const last = parse(rest + decoder.decode());
    if (last) yield last;
  }

  /**
   * One provider call under the retry rule. A 404 is GoneError for the caller to handle, except for an upload,
   * where it means the endpoint has no batch API at all; other refusals are ModelRequestErrors with a hint.
   */
  private async call<T>(what: string, route: string, signal: AbortSignal, fn: (attempt: number) => Promise<T>): Promise<T> {
    const { o } = this;
    for (let n = 1; ; n++) {
      if (signal.aborted) throw new CancelledError();
      try {
        return await fn(n);
      } catch (error) {
        if (signal.aborted) throw new CancelledError();
        const failure = classifyFailure(error, false);
        if (error instanceof APIError && error.status === 404) {
          if (route === "POST /files") {
            throw new ModelRequestError(`${o.endpoint} has no batch API (${route} answered 404)`, 404, {
              hint: "Batch mode needs an endpoint with OpenAI's Files and Batches API; run without it.",
              hintIds: ["batch", "baseUrl"],
              cause: o.redaction.cause(error),
            });
          }
          throw new GoneError(`${route}: not found at ${o.endpoint}`);
        }
        if (!failure.retryable || n >= o.attempts) {
          throw new ModelRequestError(`Could not ${what} at ${o.endpoint} (${failure.summary})${o.redaction.serverSays(error)}`, failure.status, {
            ...(failure.hint === undefined ? {} : { hint: failure.hint }),
            hintIds: failure.hintIds ?? ["log"],
            cause: o.redaction.cause(error),
          });
        }
        const delay = retryDelayMs(n, failure, o.backoff);
        o.logger.debug(`batch: ${what} failed (${failure.summary}); retrying in ${delay} ms`);
        await o.sleep(delay, signal);
      }
    }
  }
}
