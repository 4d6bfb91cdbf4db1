/**
 * The OpenAI-compatible ModelClient (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server, OpenRouter) over the
 * `openai` package. Retries live here and only here: the SDK is built with maxRetries 0, and each attempt
 * has our own deadline covering the whole exchange (the SDK's timeout stops at the response headers, so a
 * stream that stalls after them would otherwise hang forever).
 */
import OpenAI, { APIError } from "openai";
import { CancelledError, ModelConfigError, ModelRequestError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { classifyFailure, errnoCode, retryDelayMs, unsupportedParameter, type Failure } from "./retry.js";
import type { CallOptions, ChatRequest, ChatResponse, ModelClient } from "./types.js";
import { fromWireCompletion, StreamAccumulator, toWireBody } from "./wire.js";

export interface OpenAIClientOptions {
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Deadline of one attempt, headers to last byte (default 120 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 6). */
  maxRetries?: number;
  stream?: boolean;
  logger?: Logger;
  /** First backoff step (default 500 ms); doubles per retry up to maxBackoffMs, with jitter. */
  retryBaseMs?: number;
  maxBackoffMs?: number;
  /** A server's Retry-After is honoured up to this (default 60 s). */
  maxRetryAfterMs?: number;
  /** Environment to read OPENAI_API_KEY / OPENAI_BASE_URL from (default process.env); for tests. */
  env?: Record<string, string | undefined>;
}

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** Sent to local servers that ignore authentication; the SDK refuses to build without some key. */
export const LOCAL_DUMMY_KEY = "sk-no-key-required";

/** Loopback and private-network hosts: where Ollama, vLLM, LM Studio and llama.cpp usually run. */
export function isLocalEndpoint(baseURL: string): boolean {
  let host: string;
  try {
    host = new URL(baseURL).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host === "host.docker.internal") return true;
  if (host === "::1" || host === "0.0.0.0") return true;
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

/**
 * A base URL that cannot work is a configuration error, not a connection failure to retry: fetch refuses URLs with
 * credentials (`https://user:key@host/v1`), and a non-http(s) or unparsable URL never connects.
 */
function assertUsableBaseUrl(baseURL: string): void {
  let u: URL;
  try {
    u = new URL(baseURL);
  } catch {
    throw new ModelConfigError(`The base URL is not a valid URL (${describeEndpoint(baseURL)}).`, { hint: "Use a URL like http://127.0.0.1:11434/v1 or https://api.openai.com/v1.", action: "openSettings" });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new ModelConfigError(`The base URL must start with http:// or https:// (got ${u.protocol}).`, { action: "openSettings" });
  }
  if (u.username || u.password) {
    throw new ModelConfigError(`The base URL ${describeEndpoint(baseURL)} carries credentials (user:key@host), which HTTP clients refuse.`, {
      hint: "Remove them from the URL and set the key with OPENAI_API_KEY (CLI) or the Set API Key command (VS Code).",
      action: "setApiKey",
    });
  }
}

/** The endpoint as shown in ids and logs: no credentials, no query string (keys hide in both). */
export function describeEndpoint(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "invalid-url";
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new CancelledError());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentLogger;
  const baseURL = options.baseURL || env.OPENAI_BASE_URL || DEFAULT_BASE_URL;
  const given = options.apiKey || env.OPENAI_API_KEY;
  assertUsableBaseUrl(baseURL);
  if (!given && !isLocalEndpoint(baseURL)) {
    throw new ModelConfigError(`No API key for ${describeEndpoint(baseURL)}.`, {
      hint: "Set OPENAI_API_KEY (or use the Set API Key command); local servers on localhost need none.",
      action: "setApiKey",
    });
  }
  const apiKey = given || LOCAL_DUMMY_KEY;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRetries = Math.max(0, options.maxRetries ?? 6);
  const stream = options.stream ?? false;
  const backoff = {
    baseMs: options.retryBaseMs ?? 500,
    maxMs: options.maxBackoffMs ?? 20_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
  };
  const endpoint = describeEndpoint(baseURL);
  const id = `openai-compatible:${options.model}@${endpoint}`;
  // Whatever a server echoes back, the key never leaves this module in a message.
  const redact = (text: string): string => (apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text);
  /**
   * What we attach as `cause`: name, redacted message, status and errno code only. The SDK's error object
   * carries the endpoint's parsed error body, where a hostile or careless server may echo the key back in
   * any field, and people print causes.
   */
  const safeCause = (error: unknown): Error | undefined => {
    if (error === undefined) return undefined;
    const copy = new Error(redact(error instanceof Error ? error.message : String(error))) as Error & { status?: number; code?: string };
    copy.name = error instanceof Error ? error.name : "Error";
    if (error instanceof APIError && error.status !== undefined) copy.status = error.status;
    const code = errnoCode(error);
    if (code) copy.code = code;
    return copy;
  };

  const sdk = new OpenAI({
    apiKey,
    baseURL,
    maxRetries: 0,
    timeout: timeoutMs,
    // The SDK logs to console at OPENAI_LOG levels; the core speaks only through our Logger.
    logLevel: "off",
  });

  // Reasoning models (OpenAI o-series, gpt-5) refuse max_tokens and want max_completion_tokens; learned from the
  // first refusal and kept for this client, so each later request goes out right the first time.
  let completionTokensParam = false;

  async function attempt(request: ChatRequest, signal: AbortSignal): Promise<Omit<ChatResponse, "latencyMs">> {
    const body = toWireBody(request);
    if (completionTokensParam && body.max_tokens !== undefined) {
      body.max_completion_tokens = body.max_tokens;
      delete body.max_tokens;
    }
    if (!stream) {
      const raw: unknown = await sdk.chat.completions.create({ ...body, stream: false }, { signal });
      return fromWireCompletion(raw);
    }
    const chunks = await sdk.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    const acc = new StreamAccumulator();
    for await (const chunk of chunks) acc.add(chunk);
    return acc.finish();
  }

  type Outcome = { ok: true; response: ChatResponse } | { ok: false; failure: Failure; error: unknown };

  /** One HTTP exchange under its own deadline; the timer and listener are gone before any backoff starts. */
  async function runAttempt(request: ChatRequest, n: number, userSignal: AbortSignal | undefined): Promise<Outcome> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onUserAbort = (): void => controller.abort();
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    const started = performance.now();
    try {
      const result = await attempt(request, controller.signal);
      return { ok: true, response: { ...result, latencyMs: Math.round(performance.now() - started), attempts: n } };
    } catch (error) {
      if (userSignal?.aborted) throw new CancelledError();
      return { ok: false, failure: classifyFailure(error, timedOut), error };
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onUserAbort);
    }
  }

  /** The server's own words, for the error message; redacted, and short enough for a notification. */
  const serverSays = (error: unknown): string => {
    if (!(error instanceof Error) || !error.message) return "";
    const text = redact(error.message);
    return `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
  };

  async function complete(request: ChatRequest, callOptions: CallOptions): Promise<ChatResponse> {
    const userSignal = callOptions.signal;
    const attempts = maxRetries + 1;
    let last: Extract<Outcome, { ok: false }> | undefined;
    let switched = false;
    for (let n = 1; n <= attempts; n++) {
      if (userSignal?.aborted) throw new CancelledError();
      const outcome = await runAttempt(request, n, userSignal);
      if (outcome.ok) {
        if (n > 1) logger.debug(`model request succeeded on attempt ${n} (${id})`);
        return outcome.response;
      }
      last = outcome;
      const { failure, error } = outcome;
      if (!switched && request.maxTokens !== undefined && unsupportedParameter(error, "max_tokens")) {
        // Requests in flight when the first refusal arrived are refused too; each switches once and goes again.
        switched = true;
        if (!completionTokensParam) logger.info(`${id} refuses max_tokens; sending max_completion_tokens from now on`);
        completionTokensParam = true;
        n--; // the refusal was ours to fix, not an attempt at the task
        continue;
      }
      if (!failure.retryable && request.temperature !== undefined && unsupportedParameter(error, "temperature")) {
        throw new ModelRequestError(`Model request to ${endpoint} failed (${failure.summary})${serverSays(error)}`, failure.status, {
          hint: `${options.model} accepts only its default temperature. Run without a temperature (or with temperature 1) and with samples of 3 or more, so the report can tell an effect from sampling noise.`,
          action: "openSettings",
          cause: safeCause(error),
        });
      }
      if (!failure.retryable) {
        throw new ModelRequestError(`Model request to ${endpoint} failed (${failure.summary})${serverSays(error)}`, failure.status, {
          ...(failure.hint === undefined ? {} : { hint: failure.hint }),
          ...(failure.action === undefined ? {} : { action: failure.action }),
          cause: safeCause(error),
        });
      }
      if (n === attempts) break;
      const delay = retryDelayMs(n, failure, backoff);
      logger.debug(`model request attempt ${n}/${attempts} failed (${failure.summary}); retrying in ${delay} ms`);
      await sleep(delay, userSignal);
    }
    const summary = last?.failure.summary ?? "unknown";
    logger.warn(`model request to ${endpoint} failed after ${attempts} attempts (${summary})`);
    throw new ModelRequestError(`Model request to ${endpoint} failed after ${attempts} attempts (${summary})${serverSays(last?.error)}`, last?.failure.status, {
      hint:
        last?.failure.kind === "connection"
          ? `Nothing answered at ${endpoint}: check the server is running and the base URL is right.`
          : "The endpoint kept failing: check it is running and reachable, or lower the concurrency.",
      action: "showLog",
      cause: safeCause(last?.error),
    });
  }

  return { id, complete };
}
