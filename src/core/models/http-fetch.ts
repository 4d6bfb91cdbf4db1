/**
 * A `fetch` for the OpenAI SDK over node:http(s) with keep-alive agents, instead of the global (undici) fetch.
 *
 * Why: per model call, undici's fetch builds a Request, a body stream, a teed response stream and their
 * transferable wrappers, and the profile of the scripted-server benchmark put about half of the engine's CPU per
 * call there (bench/README.md, "Engine CPU per call"). The SDK keeps doing everything else — the request body,
 * headers, status → error mapping — so the bytes of the request body and what reaches the retry layer are the same.
 *
 * What it keeps of fetch's behaviour, because the retry layer (retry.ts) classifies on it:
 * - a failure before the response headers rejects with `TypeError("fetch failed")` whose `cause` carries the
 *   errno code (ECONNREFUSED, ECONNRESET …), as undici does; the SDK turns that into APIConnectionError;
 * - an abort rejects with the signal's reason (an `AbortError` DOMException), before or after the headers;
 * - the body is a stream that fails with `TypeError("terminated")` when the connection breaks mid-body, so a
 *   truncated answer is a transport failure read from the body, as before;
 * - gzip, deflate and br answers are decoded (fetch asks for them; so does this);
 * - redirects are followed as fetch follows them.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";

const IDLE_SOCKET_MS = 4_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface NodeFetch {
  fetch: typeof fetch;
  /** Closes idle kept-alive sockets (a client is usually kept for the process's life; tests call this). */
  close(): void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function requestHeaders(init: RequestInit | undefined, body: string | Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  // The SDK passes a Headers; anything else goes through Headers too (same normalisation as fetch).
  const h = init?.headers === undefined ? undefined : init.headers instanceof Headers ? init.headers : new Headers(init.headers);
  h?.forEach((v, k) => (out[k] = v));
  if (body !== undefined) out["content-length"] = String(Buffer.byteLength(body));
  out["accept-encoding"] ??= "gzip, deflate, br";
  return out;
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder = encoding === "gzip" || encoding === "x-gzip" ? zlib.createGunzip() : encoding === "deflate" ? zlib.createInflate() : encoding === "br" ? zlib.createBrotliDecompress() : undefined;
  if (!decoder) return res;
  res.on("error", (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/** The response body as a web stream; a broken connection errors it the way undici does (`terminated`). */
function bodyStream(res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const source = decoded(res);
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: unknown) => {
        if (done) return;
        done = true;
        controller.error(err);
      };
      source.on("data", (chunk: Buffer) => {
        if (!done) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      source.on("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      source.on("error", (err) => fail(signal?.aborted ? abortReason(signal) : new TypeError("terminated", { cause: err })));
      res.on("close", () => {
        if (!res.complete) fail(signal?.aborted ? abortReason(signal) : new TypeError("terminated", { cause: new Error("other side closed") }));
      });
    },
    cancel() {
      done = true;
      res.destroy();
    },
  });
}

export function createNodeFetch(): NodeFetch {
  const agents = {
    // An idle socket is closed after 4 s (undici's default) or before the server's Keep-Alive hint, whichever is first.
    "http:": new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_SOCKET_MS }),
    "https:": new https.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_SOCKET_MS }),
  };
  const nodeFetch = (input: string | URL | Request, init?: RequestInit, redirects = 0): Promise<Response> => {
    const rawBody = init?.body;
    // Chat requests are JSON text; anything else (a stream, form data, a Request object) goes to the global fetch.
    if (input instanceof Request || (rawBody !== undefined && rawBody !== null && typeof rawBody !== "string" && !Buffer.isBuffer(rawBody))) return fetch(input, init);
    const body = rawBody ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === "string" ? input : input.href);
      const signal = init?.signal ?? undefined;
      if (signal?.aborted) return reject(abortReason(signal));
      const agent = url.protocol === "https:" ? agents["https:"] : url.protocol === "http:" ? agents["http:"] : undefined;
      if (!agent) return reject(new TypeError("fetch failed", { cause: new Error(`unsupported protocol ${url.protocol}`) }));
      const lib = url.protocol === "https:" ? https : http;
      let settled = false;
      const req = lib.request(url, { method: init?.method ?? "GET", headers: requestHeaders(init, body), agent });
      const onAbort = () => req.destroy(abortReason(signal!) as Error);
      signal?.addEventListener("abort", onAbort, { once: true });
      const cleanup = () => signal?.removeEventListener("abort", onAbort);
      req.on("error", (err) => {
        cleanup();
        if (settled) return;
        settled = true;
        reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: err }));
      });
      req.on("response", (res) => {
        settled = true;
        res.on("close", cleanup);
        const location = res.headers.location;
        if (location && REDIRECTS.has(res.statusCode ?? 0)) {
          // Followed as fetch does: up to 20; 303 (and 301/302 after a POST) go on as a GET without the body.
          res.resume();
          cleanup();
          if (redirects >= 20) return reject(new TypeError("fetch failed", { cause: new Error("redirect count exceeded") }));
          const method = init?.method ?? "GET";
          const toGet = res.statusCode === 303 ? method !== "HEAD" : (res.statusCode === 301 || res.statusCode === 302) && method === "POST";
          const next: RequestInit = toGet ? { ...init, method: "GET", body: null } : { ...init };
          if (toGet && next.headers) {
            const headers = new Headers(next.headers);
            for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
            next.headers = headers;
          }
          resolve(nodeFetch(new URL(location, url), next, redirects + 1));
          return;
        }
        const headers = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
        const status = res.statusCode ?? 0;
        const nullBody = status === 204 || status === 205 || status === 304 || init?.method === "HEAD";
        if (nullBody) res.resume();
        resolve(new Response(nullBody ? null : bodyStream(res, signal), { status, statusText: res.statusMessage ?? "", headers }));
      });
      req.end(body);
    });
  };
  return {
    fetch: nodeFetch,
    close: () => {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
