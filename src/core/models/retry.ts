/**
 * Failure classification and backoff for the one retry layer of the model client (the SDK's own retries are
 * off). Classification uses the SDK's error classes and the HTTP status, never message text.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { HintId } from "../errors.js";
import { MalformedResponseError, TruncatedStreamError } from "./wire.js";

export type FailureKind =
  | "http"
  | "timeout"
  | "connection"
  | "truncated-stream"
  | "malformed-response"
  | "stream-error"
  | "transport";

export interface Failure {
  kind: FailureKind;
  retryable: boolean;
  status?: number;
  /** Server-requested delay (Retry-After / retry-after-ms), uncapped. */
  retryAfterMs?: number;
  /** Short description for logs and the final error; never contains the request or the key. */
  summary: string;
  hint?: string;
  hintIds?: readonly HintId[];
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/** The first errno-style `code` (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET ...) along an error's cause chain. */
export function errnoCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e !== null && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Retry-After as milliseconds: `retry-after-ms` first (OpenAI's extension), then seconds or an HTTP date. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function hintFor(status: number): { hint: string; hintIds: readonly HintId[] } {
  switch (status) {
    case 401:
      return { hint: "The endpoint rejected the API key: set a valid key.", hintIds: ["apiKey"] };
    case 403:
      return { hint: "The key is not allowed to use this model or endpoint: check the key's project and permissions.", hintIds: ["apiKey"] };
    case 404:
      return { hint: "Check the model name and the base URL (it usually ends with /v1).", hintIds: ["model", "baseUrl"] };
    case 400:
    case 422:
      return { hint: "The endpoint refused the request: check the model supports tool calls and the sampling parameters.", hintIds: ["log"] };
    default:
      return { hint: "See the log for the endpoint's answer.", hintIds: ["log"] };
  }
}

/** The endpoint's 400 says this parameter is not supported (OpenAI: `param` names it, the message says so). */
export function unsupportedParameter(error: unknown, param: string): boolean {
  if (!(error instanceof APIError) || error.status !== 400) return false;
  const named = (error as APIError & { param?: unknown }).param === param || error.message.includes(`'${param}'`) || error.message.includes(`"${param}"`);
  return named && /unsupported|not supported|does not support|only the default/i.test(error.message);
}

/**
 * @param attemptTimedOut true when our own per-attempt timer aborted the exchange (the SDK reports that
 *   as a user abort because it only sees its signal fire).
 */
export function classifyFailure(error: unknown, attemptTimedOut: boolean): Failure {
  if (error instanceof APIConnectionTimeoutError || (attemptTimedOut && error instanceof APIUserAbortError)) {
    return { kind: "timeout", retryable: true, summary: "request timed out" };
  }
  if (attemptTimedOut) {
    // Our timer aborted while the body or stream was being read; undici surfaces that as an AbortError.
    return { kind: "timeout", retryable: true, summary: "response timed out" };
  }
  if (error instanceof APIConnectionError) {
    const code = errnoCode(error);
    return { kind: "connection", retryable: true, summary: code ? `connection failed (${code})` : "connection failed" };
  }
  if (error instanceof APIError) {
    // `instanceof` narrows the generic class to APIError<any, any, any>; its declared defaults are the real types.
    const apiError = error as APIError;
    const status = apiError.status;
    if (status === undefined) {
      // An error event inside an SSE stream: the server gave up mid-answer.
      return { kind: "stream-error", retryable: true, summary: "the stream reported an error" };
    }
    const retryAfterMs = parseRetryAfter(apiError.headers);
    const shouldRetry = apiError.headers?.get("x-should-retry");
    const retryable = shouldRetry === "true" ? true : shouldRetry === "false" ? false : RETRYABLE_STATUS.has(status) || status >= 500;
    const base: Failure = { kind: "http", retryable, status, summary: `HTTP ${status}`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    return retryable ? base : { ...base, ...hintFor(status) };
  }
  if (error instanceof TruncatedStreamError) return { kind: "truncated-stream", retryable: true, summary: "stream ended early" };
  if (error instanceof MalformedResponseError || error instanceof SyntaxError) {
    return { kind: "malformed-response", retryable: true, summary: "response body is not a valid completion" };
  }
  // Errors raised while reading a body after the SDK returned (undici "terminated", socket resets mid-body).
  return { kind: "transport", retryable: true, summary: `response could not be read (${error instanceof Error ? error.name : typeof error})` };
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Cap on a server-requested Retry-After. */
  maxRetryAfterMs: number;
  random?: () => number;
}

/**
 * Delay before retry number `retry` (1-based). A server-requested delay is honoured (never shortened) plus
 * up to 10% jitter, capped; otherwise exponential backoff with "equal jitter". The jitter keeps 32
 * concurrent callers told "Retry-After: 1" from all coming back in the same millisecond.
 */
export function retryDelayMs(retry: number, failure: Failure, o: BackoffOptions): number {
  const r = (o.random ?? Math.random)();
  if (failure.retryAfterMs !== undefined) return Math.round(Math.min(failure.retryAfterMs * (1 + 0.1 * r), o.maxRetryAfterMs));
  const exp = Math.min(o.maxMs, o.baseMs * 2 ** (retry - 1));
  return Math.round(exp / 2 + (exp / 2) * r);
}
