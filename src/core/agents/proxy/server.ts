/**
 * The recording, caching model proxy of one harness run. The harness talks to it (a Unix socket bind-mounted into
 * its sandbox, or loopback TCP when unconfined) in its own wire format; each request becomes the engine's
 * ChatRequest, is normalised (the adapter's `normalizeRequest`), given the run's model and sampling parameters, and
 * answered by the evaluation's ModelClient — so the response cache, retries, token counts and the user's key all
 * stay in this process. The harness holds only a dummy key, which the proxy checks so no other local process can
 * spend the user's budget through it.
 *
 * Every exchange is kept in order (`exchanges`) for the run's transcript and evidence. Past `maxCalls` model calls
 * the proxy answers with an error (the turn limit), as the built-in loop stops after its turns.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CancelledError, ModelRequestError } from "../../errors.js";
import { canonicalJson } from "../../models/cache.js";
import type { ChatRequest, ModelClient, SamplingParams } from "../../models/types.js";
import { WireFormatError, type ProxyExchange, type WireFormat, type WireReply } from "../types.js";

export interface ProxyOptions {
  client: ModelClient;
  formats: readonly WireFormat[];
  /** The model name every request is sent with (whatever the harness asked for). */
  model: string;
  /** The run's sampling parameters, set on every request. */
  params: SamplingParams;
  sampleIndex: number;
  /** The harness identity in the cache key (harnessCacheScope). */
  cacheScope: string;
  /** Model calls allowed; the next one is refused as the turn limit. */
  maxCalls: number;
  /** The credential the harness must send (`Authorization: Bearer …`, `x-api-key` or `x-goog-api-key`). */
  dummyKey: string;
  normalize?: (request: ChatRequest) => ChatRequest;
  /** The form of a (normalised) request the response cache keys on (e.g. without the day's date); default: as sent. */
  cacheKeyOf?: (request: ChatRequest) => ChatRequest;
  /** Listen on this Unix socket; otherwise on a loopback TCP port. */
  socketPath?: string;
  signal?: AbortSignal;
}

export interface ModelProxy {
  /** `http://127.0.0.1:<port>` (TCP) or undefined (Unix socket). */
  readonly url: string | undefined;
  readonly exchanges: readonly ProxyExchange[];
  /** The first model failure (after the client's retries), if any: the run is then lost, not graded. */
  readonly failure: Error | undefined;
  /** Whether a request was refused for the turn limit. */
  readonly turnLimitHit: boolean;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new WireFormatError(`request body over ${limit} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The answer to every request after a failed model call (see `handle`). */
export const LOST_RUN = "this run is lost: an earlier model call of it failed, so the proxy asks the model nothing more";

/** 64 MB: a harness resends the whole conversation each turn. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The whole reply in one write. A streamed reply's events are all known by now (the answer is complete), so writing
 * them one by one only cost a packet, a wake-up of the harness and, through the sandbox's TCP forwarder, a chance of
 * Nagle's delay per event; the harness reads the same bytes in one chunk (still chunked transfer encoding).
 */
function send(res: http.ServerResponse, reply: WireReply): void {
  res.writeHead(reply.status, reply.headers);
  res.end(typeof reply.body === "string" ? reply.body : reply.body.join(""));
}

function authorized(req: http.IncomingMessage, key: string): boolean {
  const auth = req.headers.authorization;
  return auth === `Bearer ${key}` || req.headers["x-api-key"] === key || req.headers["x-goog-api-key"] === key;
}

export async function startModelProxy(options: ProxyOptions): Promise<ModelProxy> {
  const exchanges: ProxyExchange[] = [];
  let failure: Error | undefined;
  let turnLimitHit = false;
  let calls = 0;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    const format = req.method === "POST" ? options.formats.find((f) => f.handles(path)) : undefined;
    if (!format) {
      const fallback = options.formats[0]!;
      send(res, fallback.error(404, `the model proxy serves no ${req.method ?? "?"} ${path}`, undefined));
      return;
    }
    if (!authorized(req, options.dummyKey)) {
      send(res, format.error(401, "the model proxy refused a request without its key", undefined));
      return;
    }
    let body: unknown;
    let request: ChatRequest;
    try {
      body = JSON.parse(await readBody(req, MAX_BODY_BYTES)) as unknown;
      request = format.toChatRequest(body);
    } catch (err) {
      send(res, format.error(400, `the model proxy cannot read this request: ${err instanceof Error ? err.message : String(err)}`, body));
      return;
    }
    request = { ...request, model: options.model, ...options.params };
    if (options.normalize) request = options.normalize(request);
    // The run is lost once a model call failed (after the client's retries): a harness that retries on its own
    // (OpenCode has no setting against it) is refused without another upstream request, with a 400 whose text names
    // no status or overload, which no harness retries (the first failure's own error reached it already).
    if (failure) {
      send(res, format.error(400, LOST_RUN, body));
      return;
    }
    if (calls >= options.maxCalls) {
      turnLimitHit = true;
      send(res, format.error(400, `turn limit reached: ${options.maxCalls} model turns`, body));
      return;
    }
    calls++;
    const replyId = createHash("sha256").update(canonicalJson({ request, sample: options.sampleIndex })).digest("hex").slice(0, 24);
    try {
      const response = await options.client.complete(request, { sampleIndex: options.sampleIndex, cacheScope: options.cacheScope, ...(options.cacheKeyOf ? { cacheKeyRequest: options.cacheKeyOf(request) } : {}), ...(options.signal ? { signal: options.signal } : {}) });
      exchanges.push({ format: format.id, request, response });
      send(res, format.reply(response, body, replyId, path));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      exchanges.push({ format: format.id, request, error: message });
      const status = err instanceof CancelledError ? 499 : err instanceof ModelRequestError && err.status ? err.status : 502;
      failure ??= err instanceof Error ? err : new Error(typeof err === "string" ? err : "the model call failed");
      send(res, format.error(status, message, body));
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: err instanceof Error ? err.message : String(err) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (options.socketPath) server.listen(options.socketPath, resolve);
    else server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const url = options.socketPath ? undefined : `http://127.0.0.1:${(address as AddressInfo).port}`;
  return {
    url,
    exchanges,
    get failure() {
      return failure;
    },
    get turnLimitHit() {
      return turnLimitHit;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
