/**
 * A non-streamed chat completion sent without the SDK's per-request pipeline, as the SDK would send it.
 *
 * Why: per call the SDK rebuilds the same URL and headers, formats log details with logging off, runs an
 * AbortController and a timer of its own, and reads the answer through a web `Response`; with the engine's own work
 * that was most of the CPU per call left after http-fetch.ts (bench/README.md, "Engine CPU per call").
 *
 * What stays the SDK's: the URL and the headers are the SDK's own, built once by its `buildRequest` (they are the
 * same for every request of a client: no retries of its own, one timeout, one key); the body is its encoder's
 * (`JSON.stringify` of the params); statuses become its error classes through `APIError.generate`. What is
 * rebuilt here, line for line after `makeRequest` and `defaultParseResponse` (openai 6.x, with `maxRetries: 0` and
 * logging off): a cancelled signal before sending is `APIUserAbortError`; a failure before the headers is
 * `APIUserAbortError` once the signal is aborted, else `APIConnectionTimeoutError` (the first-byte limit, or an abort
 * or "timed out" error) or `APIConnectionError` with the error as cause; a status outside 2xx reads the body as
 * text (a failed read gives its message as the text) and throws `APIError.generate(status, json, text, headers)`;
 * a 2xx is `null` for 204, `undefined` for an empty JSON body, parsed JSON for a JSON media type, else the text.
 * test/unit/models/chat-post.test.ts sends the same requests both ways and compares bytes, answers and errors.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, type OpenAI } from "openai";
import { headerRecord, type NodeFetch, type PostAnswer } from "./http-fetch.js";
import type { Abortable } from "./tripwire.js";

/** The SDK's request, fixed per client: where it goes, its headers and the first-byte limit. */
interface Prepared {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

const CHAT_PATH = "/chat/completions";

export class DirectChat {
  private prepared: Prepared | undefined;
  private preparing: Promise<Prepared> | undefined;

  constructor(
    private readonly sdk: OpenAI,
    private readonly http: Pick<NodeFetch, "post">,
  ) {}

  /** The SDK's URL and headers for a chat completion (built by the SDK itself, once: the first wave of calls waits on one build). */
  private prepare(): Promise<Prepared> {
    this.preparing ??= this.sdk.buildRequest({ method: "post", path: CHAT_PATH, body: {}, stream: false, __security: { bearerAuth: true } }, { retryCount: 0 }).then(
      ({ req, url, timeout }) => (this.prepared = { url, headers: headerRecord(req.headers), timeoutMs: timeout }),
      (err: unknown) => {
        // Not kept: the next call asks the SDK again.
        this.preparing = undefined;
        throw err;
      },
    );
    return this.preparing;
  }

  /** The parsed answer of a non-streamed chat completion, or the error the SDK would have thrown. */
  async create(params: object, signal: Abortable): Promise<unknown> {
    const prepared = this.prepared ?? (await this.prepare());
    if (signal.aborted) throw new APIUserAbortError();
    let expired = false;
    let answer: PostAnswer;
    try {
      answer = await this.http.post(prepared.url, prepared.headers, JSON.stringify(params), signal, { ms: prepared.timeoutMs, onExpire: () => (expired = true) });
    } catch (err) {
      throw connectionFailure(err, signal, expired);
    }
    if (answer.status < 200 || answer.status > 299) {
      const text = await answer.text().catch((e: unknown) => castToError(e).message);
      const json = safeJSON(text);
      // As the SDK: whatever JSON.parse gave (an object, or any other value) goes in as the error body.
      throw APIError.generate(answer.status, json as object | undefined, json ? undefined : text, answer.headers());
    }
    if (answer.status === 204) return null;
    const mediaType = answer.header("content-type")?.split(";")[0]?.trim();
    if (mediaType?.includes("application/json") || mediaType?.endsWith("+json")) {
      if (answer.header("content-length") === "0") return undefined;
      return JSON.parse(await answer.text()) as unknown;
    }
    return answer.text();
  }
}

/** A failure before the response headers, as the SDK's makeRequest turns it into its errors (retries off). */
function connectionFailure(err: unknown, signal: Abortable, expired: boolean): APIError {
  if (signal.aborted) return new APIUserAbortError();
  const error = castToError(err);
  const cause: unknown = (error as { cause?: unknown }).cause;
  const timedOut = expired || isAbortError(error) || /timed? ?out/i.test(String(error) + ("cause" in error ? String(cause) : ""));
  if (timedOut) return new APIConnectionTimeoutError();
  return new APIConnectionError({ message: undefined, cause: error });
}

/** The SDK's isAbortError (openai/internal/errors). */
function isAbortError(err: Error): boolean {
  return err.name === "AbortError" || String(err.message).includes("FetchRequestCanceledException");
}

/** The SDK's castToError, for what our fetch rejects with (an Error; other values as the SDK wraps them). */
function castToError(err: unknown): Error {
  if (err instanceof Error) return err;
  if (typeof err === "object" && err !== null) {
    try {
      return new Error(JSON.stringify(err));
    } catch {
      // As the SDK: fall through to the plain conversion.
    }
  }
  return new Error(String(err));
}

function safeJSON(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
