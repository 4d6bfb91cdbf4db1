/**
 * The OpenAI-compatible ModelClient (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server, OpenRouter) over the
 * `openai` package. Retries live here and only here: the SDK is built with maxRetries 0, and each attempt
 * has our own deadline covering the whole exchange (the SDK's timeout stops at the response headers, so a
 * stream that stalls after them would otherwise hang forever).
 */
import { setMaxListeners } from "node:events";
import OpenAI, { APIError } from "openai";
import { CancelledError, EndpointUnreachableError, ModelConfigError, ModelRequestError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { DirectChat } from "./chat-post.js";
import { Tripwire } from "./tripwire.js";
import { createNodeFetch } from "./http-fetch.js";
import { classifyFailure, errnoCode, retryDelayMs, unsupportedParameter, type Failure } from "./retry.js";
import type { CallOptions, ChatRequest, ChatResponse, ModelClient } from "./types.js";
import { fromWireCompletion, StreamAccumulator, toWireBody } from "./wire.js";

export interface OpenAIClientOptions {
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Deadline of one attempt, headers to last byte (default 120 s). */
  timeoutMs?: number;
  /**
   * How long an attempt may wait for the response headers (default: timeoutMs). A non-streamed answer's headers come
   * only once it is generated, so this is below timeoutMs only for endpoints known to answer fast.
   */
  firstByteTimeoutMs?: number;
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
  /** Waits between attempts (default: a timer that a cancel cuts short). Tests inject one to observe backoff without waiting. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** The clock a response's latencyMs is read from (default performance.now); tests inject one with the sleep. */
  now?: () => number;
  /**
   * The deadline of one attempt: a signal that fires when the attempt has taken too long (default: a timer of
   * timeoutMs). Tests inject one that fires on an event (the server reports the request stalled) instead of time.
   */
  attemptDeadline?: (request: ChatRequest, attempt: number) => AttemptDeadline;
  /**
   * How long an endpoint that has not answered once may stay silent, from the first attempt, before the breaker
   * trips whatever the attempt count (default: 170 s, or timeoutMs + 10 s when that is longer, so one whole attempt
   * always fits). With one call at a time a hung server is thus given up within 3 minutes, not 3 × timeoutMs.
   */
  neverAnsweredBudgetMs?: number;
  /** The budget above as a signal; tests inject one that fires on an event instead of time. */
  neverAnsweredDeadline?: () => AttemptDeadline;
  /**
   * false: non-streamed calls go through the SDK's own request pipeline too, instead of chat-post.ts (same bytes,
   * answers and errors, more CPU per call). Default true; tests compare the two.
   */
  directCalls?: boolean;
}

export interface AttemptDeadline {
  signal: AbortSignal;
  /** Called when the attempt ends either way. */
  dispose(): void;
}

function timerDeadline(timeoutMs: number, unref = false): AttemptDeadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  // The never-answered budget outlives single calls: it must not keep a finished or cancelled process alive.
  if (unref) timer.unref();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

/** The default deadline of an attempt: a timer that calls `onExpire` (no AbortController of its own per attempt). */
function attemptTimer(timeoutMs: number, onExpire: () => void): () => void {
  const timer = setTimeout(onExpire, timeoutMs);
  return () => clearTimeout(timer);
}

/** An injected deadline (a signal) as an attempt's deadline: fired already, or when its signal fires. */
function signalDeadline(make: (request: ChatRequest, attempt: number) => AttemptDeadline): RetrierConfig["deadline"] {
  return (request, attempt, onExpire) => {
    const deadline = make(request, attempt);
    if (deadline.signal.aborted) onExpire();
    else deadline.signal.addEventListener("abort", onExpire, { once: true });
    return () => {
      deadline.signal.removeEventListener("abort", onExpire);
      deadline.dispose();
    };
  };
}

/** The default never-answered budget: under the 3 minutes a dead endpoint may cost, but never shorter than one attempt. */
export function neverAnsweredBudgetMs(timeoutMs: number): number {
  return Math.max(170_000, timeoutMs + 10_000);
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

/** The fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking), which Node's fetch refuses. */
const BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723,
  2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

function effectivePort(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
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
    throw new ModelConfigError(`The base URL is not a valid URL (${describeEndpoint(baseURL)}).`, { hint: "Use a URL like http://127.0.0.1:11434/v1 or https://api.openai.com/v1.", hintIds: ["baseUrl"] });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new ModelConfigError(`The base URL must start with http:// or https:// (got ${u.protocol}).`, { hintIds: ["baseUrl"] });
  }
  if (BLOCKED_PORTS.has(effectivePort(u))) {
    // fetch refuses these before connecting, with an error that carries no code: every retry would fail the same way.
    throw new EndpointUnreachableError(`Nothing can be reached at ${describeEndpoint(baseURL)}: port ${effectivePort(u)} is one HTTP clients refuse to connect to (the fetch standard's blocked ports)`, describeEndpoint(baseURL), {
      hint: "Run the model server on another port (8000, 8080, 11434 …) and point the base URL at it.",
      hintIds: ["baseUrl"],
    });
  }
  if (u.username || u.password) {
    throw new ModelConfigError(`The base URL ${describeEndpoint(baseURL)} carries credentials (user:key@host), which HTTP clients refuse.`, {
      hint: "Remove them from the URL and give the key the way the product keeps keys.",
      hintIds: ["baseUrl", "apiKey"],
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

export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
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

/**
 * The endpoint of an OpenAI-compatible client from its options and the environment, checked: a URL that can work,
 * and a key unless the server is local. `id` is the client id (also the batch client's, so both share one cache).
 */
export function openAIEndpoint(options: Pick<OpenAIClientOptions, "baseURL" | "apiKey" | "model" | "env">): { baseURL: string; apiKey: string; endpoint: string; id: string } {
  const env = options.env ?? process.env;
  const baseURL = options.baseURL || env.OPENAI_BASE_URL || DEFAULT_BASE_URL;
  const given = options.apiKey || env.OPENAI_API_KEY;
  assertUsableBaseUrl(baseURL);
  if (!given && !isLocalEndpoint(baseURL)) {
    throw new ModelConfigError(`No API key for ${describeEndpoint(baseURL)}.`, {
      hint: "Set an API key; local servers on localhost need none.",
      hintIds: ["apiKey", "baseUrl"],
    });
  }
  const endpoint = describeEndpoint(baseURL);
  return { baseURL, apiKey: given || LOCAL_DUMMY_KEY, endpoint, id: `openai-compatible:${options.model}@${endpoint}` };
}

export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const { baseURL, apiKey, endpoint, id } = openAIEndpoint(options);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const http = createNodeFetch();
  const sdk = new OpenAI({
    apiKey,
    baseURL,
    maxRetries: 0,
    // The SDK's timeout stops at the response headers: it is the first-byte limit; ours covers the whole exchange.
    timeout: Math.min(options.firstByteTimeoutMs ?? timeoutMs, timeoutMs),
    // The SDK logs to console at OPENAI_LOG levels; the core speaks only through our Logger.
    logLevel: "off",
    // node:http with keep-alive instead of undici's fetch: the same request, a fraction of the CPU per call (http-fetch.ts).
    fetch: http.fetch,
  });
  const retrier = new Retrier({
    id,
    endpoint,
    model: options.model,
    wire: new WireExchange(sdk, options.stream ?? false, options.directCalls === false ? undefined : new DirectChat(sdk, http)),
    redaction: new Redaction(apiKey),
    timeoutMs,
    attempts: Math.max(0, options.maxRetries ?? 6) + 1,
    backoff: { baseMs: options.retryBaseMs ?? 500, maxMs: options.maxBackoffMs ?? 20_000, maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000 },
    logger: options.logger ?? silentLogger,
    sleep: options.sleep ?? abortableSleep,
    now: options.now ?? (() => performance.now()),
    deadline: options.attemptDeadline ? signalDeadline(options.attemptDeadline) : (_request, _attempt, onExpire) => attemptTimer(timeoutMs, onExpire),
    neverAnswered: options.neverAnsweredDeadline ?? (() => timerDeadline(options.neverAnsweredBudgetMs ?? neverAnsweredBudgetMs(timeoutMs), true)),
    // The placeholder sent to local servers is no key: a 401 then means "this server wants one".
    keyGiven: apiKey !== LOCAL_DUMMY_KEY,
  });
  return { id: retrier.id, complete: (request, callOptions) => retrier.complete(request, callOptions) };
}

/** Whatever a server echoes back, the key never leaves this module in a message. */
export class Redaction {
  constructor(private readonly apiKey: string) {}

  text(text: string): string {
    return this.apiKey.length >= 4 ? text.split(this.apiKey).join("[redacted]") : text;
  }

  /**
   * What we attach as `cause`: name, redacted message, status and errno code only. The SDK's error object
   * carries the endpoint's parsed error body, where a hostile or careless server may echo the key back in
   * any field, and people print causes.
   */
  cause(error: unknown): Error | undefined {
    if (error === undefined) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever was thrown, as text; [object Object] is no worse than the value itself
    const copy = new Error(this.text(error instanceof Error ? error.message : String(error))) as Error & { status?: number; code?: string };
    copy.name = error instanceof Error ? error.name : "Error";
    // `instanceof` narrows to APIError<any, …>; the class's declared default says status is number | undefined.
    const status = error instanceof APIError ? (error as APIError).status : undefined;
    if (status !== undefined) copy.status = status;
    const code = errnoCode(error);
    if (code) copy.code = code;
    return copy;
  }

  /** The server's own words, for the error message; redacted, and short enough for a notification. */
  serverSays(error: unknown): string {
    if (!(error instanceof Error) || !error.message) return "";
    const text = this.text(error.message);
    return `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
  }
}

/** One HTTP exchange with the SDK, streamed or not. */
class WireExchange {
  /**
   * Reasoning models (OpenAI o-series, gpt-5) refuse max_tokens and want max_completion_tokens; learned from the
   * first refusal and kept for this client, so each later request goes out right the first time.
   */
  completionTokensParam = false;

  constructor(
    private readonly sdk: OpenAI,
    private readonly stream: boolean,
    /** Non-streamed calls without the SDK's per-request work (chat-post.ts); absent: through the SDK. */
    private readonly direct: DirectChat | undefined,
  ) {}

  async send(request: ChatRequest, trip: Tripwire): Promise<Omit<ChatResponse, "latencyMs">> {
    const body = toWireBody(request);
    if (this.completionTokensParam && body.max_tokens !== undefined) {
      body.max_completion_tokens = body.max_tokens;
      delete body.max_tokens;
    }
    if (!this.stream) {
      // The same params object either way: create() posts it as is, and DirectChat as the SDK's encoder would.
      const raw: unknown = this.direct ? await this.direct.create({ ...body, stream: false }, trip) : await this.sdk.chat.completions.create({ ...body, stream: false }, { signal: trip.signal });
      return fromWireCompletion(raw);
    }
    const chunks = await this.sdk.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal: trip.signal });
    const acc = new StreamAccumulator();
    for await (const chunk of chunks) acc.add(chunk);
    return acc.finish();
  }
}

type Outcome = { ok: true; response: ChatResponse } | { ok: false; failure: Failure; error: unknown };

interface RetrierConfig {
  id: string;
  endpoint: string;
  model: string;
  wire: WireExchange;
  redaction: Redaction;
  timeoutMs: number;
  attempts: number;
  backoff: { baseMs: number; maxMs: number; maxRetryAfterMs: number };
  logger: Logger;
  sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  now: () => number;
  /** Starts an attempt's deadline, which calls `onExpire` when it passes; returns what stops it. */
  deadline: (request: ChatRequest, attempt: number, onExpire: () => void) => () => void;
  /** Starts the never-answered budget (at the client's first attempt). */
  neverAnswered: () => AttemptDeadline;
  /** Whether a real API key was given (for the 401 hint). */
  keyGiven: boolean;
}

/** Connection failures that mean "nothing is listening there", as opposed to a flaky network. */
const NOTHING_LISTENING = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** Failures in which no HTTP answer came back at all: the server was silent, hung up, or never reached. */
const SILENT: ReadonlySet<Failure["kind"]> = new Set(["timeout", "connection", "transport"]);

/**
 * The breaker: this many silent attempts in a row (any call of this client), from an endpoint that has not answered
 * once in this run, stop the evaluation. At the default concurrency of 4 the first wave of attempts is enough.
 */
export const SILENT_ATTEMPTS_TO_TRIP = 3;

/**
 * One listener per caller's signal, however many attempts are in flight under it: an evaluation's calls share one
 * signal, and an abort listener added and removed per attempt was a measurable share of the CPU per call
 * (bench/README.md, "Engine CPU per call").
 */
class CancelFanout {
  private readonly bySignal = new WeakMap<AbortSignal, Set<Tripwire>>();

  /** Aborts `trip` when `signal` aborts (at once if it has); returns what stops watching. */
  watch(signal: AbortSignal, trip: Tripwire): () => void {
    if (signal.aborted) {
      trip.abort();
      return () => undefined;
    }
    let trips = this.bySignal.get(signal);
    if (!trips) {
      const set = new Set<Tripwire>();
      trips = set;
      this.bySignal.set(signal, set);
      signal.addEventListener(
        "abort",
        () => {
          for (const t of [...set]) t.abort();
          set.clear();
        },
        { once: true },
      );
    }
    const set = trips;
    set.add(trip);
    return () => void set.delete(trip);
  }
}

/** The one retry layer: attempts under their own deadline, backoff honouring Retry-After, typed final errors. */
class Retrier {
  readonly id: string;
  /** Some request of this client got an answer: a later connection failure is a hiccup, not a dead endpoint. */
  private answered = false;
  /** Silent attempts in a row, over every call of this client (any other outcome resets it). */
  private silentStreak = 0;
  /** Once tripped, every call fails at once with this (a new client, e.g. a resumed run, starts afresh). */
  private tripped: EndpointUnreachableError | undefined;
  /** Runs from the first attempt until the endpoint answers: once spent, a silent attempt trips the breaker. */
  private budget: AttemptDeadline | undefined;
  /** The caller's cancellation reaches every attempt in flight under it. */
  private readonly cancels = new CancelFanout();

  constructor(private readonly c: RetrierConfig) {
    this.id = c.id;
  }

  async complete(request: ChatRequest, callOptions: CallOptions): Promise<ChatResponse> {
    const { c } = this;
    const userSignal = callOptions.signal;
    let last: Extract<Outcome, { ok: false }> | undefined;
    let switched = false;
    for (let n = 1; n <= c.attempts; n++) {
      if (userSignal?.aborted) throw new CancelledError();
      if (this.tripped) throw this.tripped;
      const outcome = await this.attempt(request, n, userSignal);
      if (outcome.ok) {
        this.answered = true;
        this.silentStreak = 0;
        this.budget?.dispose();
        if (n > 1) c.logger.debug(`model request succeeded on attempt ${n} (${c.id})`);
        return outcome.response;
      }
      last = outcome;
      const { failure, error } = outcome;
      this.silentStreak = SILENT.has(failure.kind) ? this.silentStreak + 1 : 0;
      const nothingListening = failure.kind === "connection" && NOTHING_LISTENING.has(errnoCode(error) ?? "");
      const budgetSpent = SILENT.has(failure.kind) && this.budget?.signal.aborted === true;
      if (!this.answered && ((n >= 2 && nothingListening) || this.silentStreak >= SILENT_ATTEMPTS_TO_TRIP || budgetSpent)) {
        // Refused twice, or silent several times in a row or for the whole budget, and never answered: a dead or
        // hung endpoint fails fast with one message, not minutes of retries per task.
        this.budget?.dispose();
        throw (this.tripped = this.unreachable(failure, error, nothingListening));
      }
      if (!switched && request.maxTokens !== undefined && unsupportedParameter(error, "max_tokens")) {
        // Requests in flight when the first refusal arrived are refused too; each switches once and goes again.
        switched = true;
        if (!c.wire.completionTokensParam) c.logger.info(`${c.id} refuses max_tokens; sending max_completion_tokens from now on`);
        c.wire.completionTokensParam = true;
        n--; // the refusal was ours to fix, not an attempt at the task
        continue;
      }
      if (!failure.retryable) throw this.refused(request, failure, error);
      if (n === c.attempts) break;
      const delay = retryDelayMs(n, failure, c.backoff);
      c.logger.debug(`model request attempt ${n}/${c.attempts} failed (${failure.summary}); retrying in ${delay} ms`);
      await c.sleep(delay, userSignal);
    }
    throw this.gaveUp(last);
  }

  /**
   * The never-answered budget. Every attempt in flight listens on it until the endpoint first answers, as many as the
   * concurrency (each removes its listener when it ends): no bound fits, and the default one warned at 11.
   */
  private startBudget(): AttemptDeadline {
    const budget = this.c.neverAnswered();
    setMaxListeners(0, budget.signal);
    return budget;
  }

  /** One HTTP exchange under its own deadline; the timer and listener are gone before any backoff starts. */
  private async attempt(request: ChatRequest, n: number, userSignal: AbortSignal | undefined): Promise<Outcome> {
    const trip = new Tripwire();
    let timedOut = false;
    const onDeadline = (): void => {
      timedOut = true;
      trip.abort();
    };
    const stopDeadline = this.c.deadline(request, n, onDeadline);
    // Until the endpoint has answered once, the never-answered budget ends an attempt too.
    const budget = this.answered ? undefined : (this.budget ??= this.startBudget()).signal;
    if (budget?.aborted) onDeadline();
    else budget?.addEventListener("abort", onDeadline, { once: true });
    const unwatch = userSignal ? this.cancels.watch(userSignal, trip) : undefined;
    const started = this.c.now();
    try {
      const result = await this.c.wire.send(request, trip);
      return { ok: true, response: { ...result, latencyMs: Math.round(this.c.now() - started), attempts: n } };
    } catch (error) {
      if (userSignal?.aborted) throw new CancelledError();
      return { ok: false, failure: classifyFailure(error, timedOut), error };
    } finally {
      stopDeadline();
      budget?.removeEventListener("abort", onDeadline);
      unwatch?.();
    }
  }

  private unreachable(failure: Failure, error: unknown, nothingListening: boolean): EndpointUnreachableError {
    const { c } = this;
    const code = errnoCode(error);
    if (nothingListening && (code === "ENOTFOUND" || code === "EAI_AGAIN")) {
      return new EndpointUnreachableError(`Nothing can be reached at ${c.endpoint}: its host name does not resolve (${code})`, c.endpoint, {
        hint: "Check the host name in the base URL (and that this machine is online), or point it at a server that runs.",
        hintIds: ["baseUrl", "log"],
        cause: c.redaction.cause(error),
      });
    }
    if (nothingListening) {
      return new EndpointUnreachableError(`Nothing is listening at ${c.endpoint} (${code})`, c.endpoint, {
        hint: "Start the model server, or point the base URL at one that runs.",
        hintIds: ["baseUrl", "log"],
        cause: c.redaction.cause(error),
      });
    }
    // Accepts connections and never answers (a hung server, a proxy, a firewall).
    return new EndpointUnreachableError(`No answer from ${c.endpoint}: ${this.silentStreak} attempts in a row failed (${failure.summary}), and it has not answered once in this run`, c.endpoint, {
      hint: "Check that the model server is running and not stuck; if it is only slow to answer, allow more time per request.",
      hintIds: ["timeoutSeconds", "baseUrl", "log"],
      cause: c.redaction.cause(error),
    });
  }

  /** A failure no retry can fix (400, 401, 404 …): the error says why and what to change. */
  private refused(request: ChatRequest, failure: Failure, error: unknown): ModelRequestError {
    const { c } = this;
    const message = `Model request to ${c.endpoint} failed (${failure.summary})${c.redaction.serverSays(error)}`;
    if (request.temperature !== undefined && unsupportedParameter(error, "temperature")) {
      return new ModelRequestError(message, failure.status, {
        hint: `${c.model} accepts only its default temperature. Run without a temperature (or with temperature 1) and with samples of 3 or more, so the report can tell an effect from sampling noise.`,
        hintIds: ["temperature", "samples"],
        cause: c.redaction.cause(error),
      });
    }
    if (failure.status === 401) {
      // Say which it is: a key that was refused, or none given to an endpoint that wants one.
      const hint = c.keyGiven ? "The endpoint rejected the API key that was given: set a valid one." : "No API key was given, and this endpoint requires one: set one.";
      return new ModelRequestError(message, failure.status, { hint, hintIds: ["apiKey"], cause: c.redaction.cause(error) });
    }
    return new ModelRequestError(message, failure.status, {
      ...(failure.hint === undefined ? {} : { hint: failure.hint }),
      ...(failure.hintIds === undefined ? {} : { hintIds: failure.hintIds }),
      cause: c.redaction.cause(error),
    });
  }

  private gaveUp(last: Extract<Outcome, { ok: false }> | undefined): ModelRequestError {
    const { c } = this;
    const summary = last?.failure.summary ?? "unknown";
    c.logger.warn(`model request to ${c.endpoint} failed after ${c.attempts} attempts (${summary})`);
    const connection = last?.failure.kind === "connection";
    return new ModelRequestError(`Model request to ${c.endpoint} failed after ${c.attempts} attempts (${summary})${c.redaction.serverSays(last?.error)}`, last?.failure.status, {
      hint: connection
        ? `Nothing answered at ${c.endpoint}: check the server is running and the base URL is right.`
        : "The endpoint kept failing: check it is running and reachable, or lower the concurrency.",
      hintIds: connection ? ["baseUrl", "log"] : ["concurrency", "log"],
      cause: c.redaction.cause(last?.error),
    });
  }
}
