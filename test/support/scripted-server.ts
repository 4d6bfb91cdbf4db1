/**
 * A scripted OpenAI-compatible chat completions server for tests and benchmarks (test code only).
 * The real `openai` client talks to it over loopback HTTP; answers come from a script function, and
 * transport faults can be injected deterministically (seeded) to prove the client's retry layer.
 *
 * Accounting: `calls` counts script invocations (the "model calls" a run really cost). A transport fault
 * never reaches the script, so a retried request is answered by the script exactly once.
 *
 * Events: every completion request is numbered on arrival, and the server reports what happens to it (`request`,
 * `stalled`, `chunk`, `responded`, `aborted` when the client hangs up first). Tests wait for these with
 * `waitFor()` instead of for time to pass, so they mean the same on a loaded machine.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { buildCompletion, completionJson, errorBody, streamEvents, type ChatCompletionRequestBody, type ScriptedReply } from "./openai-wire.js";
import { createBatchApi, type BatchApi, type BatchApiOptions } from "./scripted-batches.js";

export type { ChatCompletionRequestBody, ScriptedReply, WireMessage } from "./openai-wire.js";

export type FaultKind =
  | "429"
  | "500"
  | "503"
  | "reset"
  | "stall"
  /** Opt-in: the response headers (200) go out, then nothing: past the SDK's timeout, only the client's own deadline helps. */
  | "stall-after-headers"
  | "truncated-stream"
  | "malformed-json"
  | "bad-tool-args";

/** Every fault the client must survive without changing the outcome; "bad-tool-args" and "stall-after-headers" are opt-in. */
export const TRANSPORT_FAULTS: FaultKind[] = ["429", "500", "503", "reset", "stall", "truncated-stream", "malformed-json"];

export type ScriptFn = (req: ChatCompletionRequestBody, ctx: { callIndex: number }) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedServerOptions {
  script: ScriptFn;
  /** Delay before each completion response (ms). */
  latencyMs?: number;
  faults?: {
    /** Probability in [0, 1] that a completion request gets a fault. */
    rate: number;
    seed?: number;
    /** Default: TRANSPORT_FAULTS (never "bad-tool-args" unless asked for). */
    kinds?: FaultKind[];
    /** Retry-After seconds sent with a "429" fault; default: 0 or 1, chosen by the seeded generator. */
    retryAfterSeconds?: number;
    /**
     * Default true: until every listed transport kind has been injected once, a hit takes the first one not
     * yet injected (list order), so "every kind at 20%" really exercises every kind. Which requests are hit
     * never depends on this; which of them gets which kind first does depend on arrival order, but the count
     * per kind does not. false: the kind, too, comes from the hash only.
     */
    cover?: boolean;
  };
  /** When set, requests without `Authorization: Bearer <requireKey>` get a 401. */
  requireKey?: string;
  /** Ids listed by GET /v1/models. */
  models?: string[];
  /** How batches behave (Files and Batch API, scripted-batches.ts); the endpoints are always there. */
  batches?: BatchApiOptions;
  /** How the server waits `latencyMs` (default: a timer that close() clears). Tests inject one to hold a reply. */
  delay?: (ms: number) => Promise<void>;
}

/** What happened to completion request `seq` (numbered from 1 in arrival order, faults included). */
export type ServerEvent =
  | { type: "request"; seq: number; body: ChatCompletionRequestBody }
  /** A stall fault began: the response will never finish (a streamed one has sent its headers and first chunk). */
  | { type: "stalled"; seq: number; streaming: boolean }
  /** Streamed chunk number `n` (from 1) was written. */
  | { type: "chunk"; seq: number; n: number }
  | { type: "responded"; seq: number; status: number }
  /** The client closed the connection before the response ended. */
  | { type: "aborted"; seq: number };

export interface ScriptedServer {
  /** Base URL ending with /v1, for `baseURL`. */
  readonly url: string;
  /** Completions answered by the script (including scripted error replies). */
  readonly calls: number;
  /**
   * Of those, the ones whose reply the client hung up on before it was complete (its own request timeout ran out
   * first, as it can for a slow reply on a loaded machine): the client never saw them, so it asks again.
   */
  readonly abandoned: number;
  /** The bodies of those requests, in arrival order. */
  readonly requests: ChatCompletionRequestBody[];
  /** Injected faults by kind. */
  readonly faultsInjected: Record<string, number>;
  /** The Files and Batch API: stored files and batches, counters, release/drop, events. */
  readonly batch: BatchApi;
  /** Clears counters and the fault history (the same requests then meet the same faults again). */
  /** Every event since the start (or the last reset), in order. */
  readonly events: readonly ServerEvent[];
  /** Calls `listener` for each later event; returns the unsubscribe function. */
  onEvent(listener: (e: ServerEvent) => void): () => void;
  /** The first event (already seen or still to come) of this type that matches. */
  waitFor<T extends ServerEvent["type"]>(type: T, match?: (e: Extract<ServerEvent, { type: T }>) => boolean): Promise<Extract<ServerEvent, { type: T }>>;
  /** Clears counters, events and the fault history (the same requests then meet the same faults again). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Uniform numbers in [0, 1) from a hash. Fault draws hash (seed, request body, how often that body was seen),
 * so which request meets which fault does not depend on the arrival order of concurrent requests: a run
 * with the same requests meets the same faults, however the scheduler interleaves them.
 */
function hashedUniforms(material: string): [number, number, number] {
  const d = createHash("sha256").update(material).digest();
  return [d.readUInt32BE(0) / 4294967296, d.readUInt32BE(4) / 4294967296, d.readUInt32BE(8) / 4294967296];
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const faultRate = options.faults?.rate ?? 0;
  const faultKinds = options.faults?.kinds ?? TRANSPORT_FAULTS;
  const seed = options.faults?.seed ?? 1;
  let seen = new Map<string, number>();
  const cover = options.faults?.cover ?? true;
  /** Kinds already drawn (counted at draw time: concurrent draws must not all take the same uncovered kind). */
  let covered = new Set<FaultKind>();
  let calls = 0;
  let abandoned = 0;
  let completionSeq = 0;
  let requests: ChatCompletionRequestBody[] = [];
  let faultsInjected: Record<string, number> = {};
  let closing = false;
  let requestSeq = 0;
  let events: ServerEvent[] = [];
  const listeners = new Set<(e: ServerEvent) => void>();
  const emit = (e: ServerEvent): void => {
    events.push(e);
    for (const l of [...listeners]) l(e);
  };

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const countFault = (kind: FaultKind): void => {
    faultsInjected[kind] = (faultsInjected[kind] ?? 0) + 1;
  };

  /** Decided before the script runs, from the seed, the body and the number of earlier identical bodies. */
  const drawFault = (raw: string): { kind: FaultKind; retryAfter: number; variant: number } | undefined => {
    if (faultRate <= 0 || faultKinds.length === 0) return undefined;
    const digest = createHash("sha256").update(raw).digest("hex");
    const k = seen.get(digest) ?? 0;
    seen.set(digest, k + 1);
    const [hit, pick, wait] = hashedUniforms(`${seed}:${k}:${digest}`);
    if (hit >= faultRate) return undefined;
    // "bad-tool-args" is left to the hash: it only lands on replies that carry tool calls.
    const uncovered = cover ? faultKinds.find((k) => k !== "bad-tool-args" && !covered.has(k)) : undefined;
    const kind = uncovered ?? faultKinds[Math.floor(pick * faultKinds.length)] ?? faultKinds[0]!;
    covered.add(kind);
    return { kind, retryAfter: options.faults?.retryAfterSeconds ?? (wait < 0.5 ? 0 : 1), variant: wait };
  };

  async function handleCompletion(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const seq = ++requestSeq;
    // A hang-up the server did not cause (its own resets and cuts set `dropping` first).
    let dropping = false;
    let scripted = false;
    res.on("close", () => {
      if (res.writableFinished || dropping || closing) return;
      if (scripted) abandoned++;
      emit({ type: "aborted", seq });
    });
    res.on("finish", () => emit({ type: "responded", seq, status: res.statusCode }));
    const drop = (): void => {
      dropping = true;
      req.socket.destroy();
    };
    const raw = await readBody(req);
    let body: ChatCompletionRequestBody;
    try {
      body = JSON.parse(raw) as ChatCompletionRequestBody;
      if (!Array.isArray(body.messages)) throw new Error("messages must be an array");
    } catch (e) {
      sendJson(res, 400, errorBody(400, `invalid request body: ${(e as Error).message}`));
      return;
    }
    emit({ type: "request", seq, body });
    const fault = drawFault(raw);
    await (options.delay ?? sleep)(options.latencyMs ?? 0);
    if (closing) return;
    const streaming = body.stream === true;
    const id = `chatcmpl-${++completionSeq}`;

    if (fault && fault.kind !== "bad-tool-args") {
      countFault(fault.kind);
      switch (fault.kind) {
        case "429":
          sendJson(res, 429, errorBody(429, "Rate limit reached (injected)"), { "retry-after": String(fault.retryAfter) });
          return;
        case "500":
        case "503":
          sendJson(res, Number(fault.kind), errorBody(Number(fault.kind), "Server error (injected)"));
          return;
        case "reset":
          drop();
          return;
        case "stall":
          // Never finish: the client's own deadline must fire. A streamed answer stalls after its headers and
          // first chunk, past the point where the SDK's timeout stops watching. close() destroys the socket.
          if (streaming) {
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
            res.write(`data: ${streamEvents(id, body.model, buildCompletion(body, { content: "stalled" }), false)[0]}\n\n`);
            emit({ type: "chunk", seq, n: 1 });
          }
          emit({ type: "stalled", seq, streaming });
          return;
        case "stall-after-headers":
          res.writeHead(200, { "content-type": streaming ? "text/event-stream" : "application/json" });
          res.flushHeaders();
          emit({ type: "stalled", seq, streaming });
          return;
        case "malformed-json": {
          const text = '{"id": "' + id + '", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assist';
          res.writeHead(200, { "content-type": streaming ? "text/event-stream" : "application/json" });
          res.end(streaming ? `data: ${text}\n\n` : text);
          return;
        }
        case "truncated-stream": {
          // The script is not consulted (stateful scripts must see each served call once); a stand-in answer is cut.
          const c = buildCompletion(body, { content: "This answer is cut off before it ends.", toolCalls: [{ name: "cut", arguments: '{"cut": true}' }] });
          if (streaming) {
            const events = streamEvents(id, body.model, c, true);
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
            // Cut before the finish_reason chunk, no [DONE]; half the time the HTTP body ends cleanly (only the
            // missing finish_reason tells), half the time the connection drops mid-stream.
            for (const e of events.slice(0, Math.max(1, events.length - 2))) res.write(`data: ${e}\n\n`);
            if (fault.variant < 0.5) res.end();
            else setImmediate(drop);
          } else {
            const text = JSON.stringify(completionJson(id, body.model, c));
            res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
            res.write(text.slice(0, Math.floor(text.length / 2)));
            // The declared length is never reached: the client sees the connection end mid-body.
            setImmediate(drop);
          }
          return;
        }
      }
    }

    const callIndex = calls++;
    requests.push(body);
    scripted = true;
    const reply = await options.script(body, { callIndex });
    if (closing) return;
    if ("error" in reply) {
      const headers: Record<string, string> = reply.error.retryAfter === undefined ? {} : { "retry-after": String(reply.error.retryAfter) };
      sendJson(res, reply.error.status, errorBody(reply.error.status, reply.error.message ?? `scripted error ${reply.error.status}`), headers);
      return;
    }
    const c = buildCompletion(body, reply);
    if (fault?.kind === "bad-tool-args" && c.toolCalls.length) {
      countFault("bad-tool-args");
      // Any proper prefix of a JSON object is invalid JSON.
      c.toolCalls = c.toolCalls.map((tc) => ({ ...tc, function: { ...tc.function, arguments: tc.function.arguments.slice(0, Math.floor(tc.function.arguments.length / 2)) || "{" } }));
    }
    if (!streaming) {
      sendJson(res, 200, completionJson(id, body.model, c));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    let n = 0;
    for (const e of streamEvents(id, body.model, c, body.stream_options?.include_usage === true)) {
      res.write(`data: ${e}\n\n`);
      emit({ type: "chunk", seq, n: ++n });
    }
    res.end("data: [DONE]\n\n");
  }

  /** A batch line is answered by the script exactly as a synchronous request is, and counted the same. */
  const batchApi = createBatchApi(options.batches ?? {}, async (body) => {
    const callIndex = calls++;
    requests.push(body);
    const reply = await options.script(body, { callIndex });
    if ("error" in reply) return { status: reply.error.status, body: errorBody(reply.error.status, reply.error.message ?? `scripted error ${reply.error.status}`) };
    return { status: 200, body: completionJson(`chatcmpl-${++completionSeq}`, body.model, buildCompletion(body, reply)) };
  });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (options.requireKey !== undefined && req.headers.authorization !== `Bearer ${options.requireKey}`) {
      req.resume();
      sendJson(res, 401, errorBody(401, "Incorrect API key provided."));
      return;
    }
    if (req.method === "GET" && url.pathname === "/v1/models") {
      const ids = options.models ?? ["scripted-model"];
      sendJson(res, 200, { object: "list", data: ids.map((m) => ({ id: m, object: "model", created: 0, owned_by: "scripted" })) });
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/chat/completions") {
      handleCompletion(req, res).catch((e: unknown) => {
        if (!res.headersSent && !closing) sendJson(res, 500, errorBody(500, `script failed: ${(e as Error).message}`));
        else res.destroy();
      });
      return;
    }
    if (batchApi.handle(req, res, url)) return;
    req.resume();
    sendJson(res, 404, errorBody(404, `no route ${req.method} ${url.pathname}`));
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const onEvent = (listener: (e: ServerEvent) => void): (() => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return calls;
    },
    get abandoned() {
      return abandoned;
    },
    get requests() {
      return requests;
    },
    get faultsInjected() {
      return faultsInjected;
    },
    batch: batchApi,
    get events() {
      return events;
    },
    onEvent,
    waitFor(type, match) {
      type E = Parameters<NonNullable<typeof match>>[0];
      const hit = (e: ServerEvent): e is E => e.type === type && (match === undefined || match(e as E));
      const seen = events.find(hit);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const off = onEvent((e) => {
          if (!hit(e)) return;
          off();
          resolve(e);
        });
      });
    },
    reset() {
      batchApi.reset();
      events = [];
      calls = 0;
      abandoned = 0;
      requests = [];
      faultsInjected = {};
      seen = new Map();
      covered = new Set();
    },
    async close() {
      closing = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
