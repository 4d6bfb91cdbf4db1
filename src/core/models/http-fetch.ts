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
 *
 * `post` is the same exchange without the web `Response`: the body is read into one string (chat-post.ts builds
 * the SDK's answer and errors from it). Its failures are the very errors `fetch` and the body stream raise.
 */
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import { urlToHttpOptions } from "node:url";
import zlib from "node:zlib";
import type { Abortable } from "./tripwire.js";

const IDLE_SOCKET_MS = 4_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface NodeFetch {
  fetch: typeof fetch;
  /**
   * A text body POSTed with these headers (lowercase names, as `fetch` sends them: the content length and
   * accept-encoding are added here); rejects as `fetch` does. A redirect is answered through `fetch`, which
   * follows it.
   */
  post(url: string, headers: Readonly<Record<string, string>>, body: string, signal: Abortable | undefined, firstByte?: FirstByteLimit): Promise<PostAnswer>;
  /** Closes idle kept-alive sockets (a client is usually kept for the process's life; tests call this). */
  close(): void;
}

/** Stops waiting for the response headers after `ms`; `onExpire` is told, and the request is torn down. */
export interface FirstByteLimit {
  ms: number;
  onExpire(): void;
}

/** An answer to `post`: what the SDK reads of a `Response`, without building one. */
export interface PostAnswer {
  status: number;
  /** A header as `Headers.get` reads it (repeats joined with ", "), or null. */
  header(name: string): string | null;
  /** Every header, as a fetch `Headers` (for an error). */
  headers(): Headers;
  /** The decoded body as text (UTF-8, a leading BOM dropped, as `Response.text()` reads it). */
  text(): Promise<string>;
}

function abortReason(signal: Abortable): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** Headers as fetch hands them to the wire: lowercase names in sorted order (the Headers iteration order). */
export function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  // The SDK passes a Headers; anything else goes through Headers too (same normalisation as fetch).
  const h = headers === undefined ? undefined : headers instanceof Headers ? headers : new Headers(headers);
  h?.forEach((v, k) => (out[k] = v));
  return out;
}

/** What follows the request's own headers: the body's length, and the encodings we decode. */
function withBodyHeaders(base: Readonly<Record<string, string>>, body: string | Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = { ...base };
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

/**
 * Feeds the body's chunks to `sink` and ends it once; a broken connection fails it the way undici does
 * (`terminated`), an abort with the signal's reason.
 */
function readBody(res: http.IncomingMessage, signal: Abortable | undefined, sink: { chunk(c: Buffer): void; end(): void; fail(err: unknown): void }): () => void {
  const source = decoded(res);
  let done = false;
  const fail = (err: unknown) => {
    if (done) return;
    done = true;
    sink.fail(err);
  };
  source.on("data", (chunk: Buffer) => {
    if (!done) sink.chunk(chunk);
  });
  source.on("end", () => {
    if (done) return;
    done = true;
    sink.end();
  });
  source.on("error", (err) => fail(signal?.aborted ? abortReason(signal) : new TypeError("terminated", { cause: err })));
  res.on("close", () => {
    if (!res.complete) fail(signal?.aborted ? abortReason(signal) : new TypeError("terminated", { cause: new Error("other side closed") }));
  });
  return () => {
    done = true;
    res.destroy();
  };
}

/** The response body as a web stream. */
function bodyStream(res: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let cancel: () => void = () => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      cancel = readBody(res, signal, {
        chunk: (c) => controller.enqueue(new Uint8Array(c.buffer, c.byteOffset, c.byteLength)),
        end: () => controller.close(),
        fail: (err) => controller.error(err),
      });
    },
    cancel() {
      cancel();
    },
  });
}

// UTF-8 with a leading BOM dropped and bad bytes replaced: what undici's Response.text() and .json() decode.
const utf8 = new TextDecoder();

/** The body read whole, as text. */
function bodyText(res: http.IncomingMessage, signal: Abortable | undefined): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    readBody(res, signal, {
      chunk: (c) => chunks.push(c),
      end: () => resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))),
      fail: reject,
    });
  });
}

type Agents = Record<"http:" | "https:", http.Agent>;

interface Exchange {
  res: http.IncomingMessage;
  url: URL;
  /** performance.now() when the request was made. */
  startedAt: number;
  /** Drops the abort listener (done when the response closes, or here for a redirect). */
  cleanup: () => void;
}

/**
 * A URL and the request options node:http makes of it (what `http.request(url, …)` does per call), kept for the
 * few URLs a client posts to: every call of a client goes to the same one.
 */
const targets = new Map<string, { url: URL; options: http.RequestOptions }>();
function target(href: string): { url: URL; options: http.RequestOptions } {
  let t = targets.get(href);
  if (!t) {
    const url = new URL(href);
    if (targets.size >= 64) targets.clear();
    t = { url, options: urlToHttpOptions(url) };
    targets.set(href, t);
  }
  return t;
}

/** One request, redirects not followed: the response head, or fetch's errors. */
function exchange(agents: Agents, input: string | URL, method: string, headers: Record<string, string>, body: string | Buffer | undefined, signal: Abortable | undefined, firstByte?: FirstByteLimit): Promise<Exchange> {
  const startedAt = performance.now();
  return new Promise<Exchange>((resolve, reject) => {
    const { url, options } = target(typeof input === "string" ? input : input.href);
    if (signal?.aborted) return reject(abortReason(signal));
    const agent = url.protocol === "https:" ? agents["https:"] : url.protocol === "http:" ? agents["http:"] : undefined;
    if (!agent) return reject(new TypeError("fetch failed", { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    const lib = url.protocol === "https:" ? https : http;
    let settled = false;
    const req = lib.request({ ...options, method, headers, agent });
    const onAbort = () => req.destroy(abortReason(signal!) as Error);
    signal?.addEventListener("abort", onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    if (firstByte) {
      timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        firstByte.onExpire();
        req.destroy(new DOMException("This operation was aborted", "AbortError"));
        reject(new DOMException("This operation was aborted", "AbortError"));
      }, firstByte.ms);
    }
    const cleanup = () => signal?.removeEventListener("abort", onAbort);
    req.on("error", (err) => {
      cleanup();
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: err }));
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      if (settled) {
        // The first-byte limit went off as the headers came: the request is already given up.
        res.destroy();
        return;
      }
      settled = true;
      res.on("close", cleanup);
      resolve({ res, url, startedAt, cleanup });
    });
    req.end(body);
  });
}

/** Leading and trailing HTTP whitespace, which Headers strips from every value. */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** `Headers.get` over node's raw header list: `name` in lowercase matches any case; repeats are joined with ", ". */
function rawHeader(raw: readonly string[], name: string): string | null {
  let value: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue;
    const v = raw[i + 1]!.replace(HTTP_WHITESPACE, "");
    value = value === null ? v : `${value}, ${v}`;
  }
  return value;
}

/** A fetch Response (a followed redirect) as a PostAnswer. */
function fromResponse(response: Response): PostAnswer {
  return { status: response.status, header: (name) => response.headers.get(name), headers: () => response.headers, text: () => response.text() };
}

const isRedirect = (res: http.IncomingMessage): boolean => Boolean(res.headers.location) && REDIRECTS.has(res.statusCode ?? 0);

export function createNodeFetch(): NodeFetch {
  const agents: Agents = {
    // An idle socket is closed after 4 s (undici's default) or before the server's Keep-Alive hint, whichever is first.
    "http:": new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_SOCKET_MS }),
    "https:": new https.Agent({ keepAlive: true, scheduling: "lifo", timeout: IDLE_SOCKET_MS }),
  };

  /** A redirect, followed as fetch does: up to 20; 303 (and 301/302 after a POST) go on as a GET without the body. */
  const follow = ({ res, url, cleanup }: Exchange, init: RequestInit | undefined, redirects: number): Promise<Response> => {
    res.resume();
    cleanup();
    if (redirects >= 20) return Promise.reject(new TypeError("fetch failed", { cause: new Error("redirect count exceeded") }));
    const method = init?.method ?? "GET";
    const toGet = res.statusCode === 303 ? method !== "HEAD" : (res.statusCode === 301 || res.statusCode === 302) && method === "POST";
    const next: RequestInit = toGet ? { ...init, method: "GET", body: null } : { ...init };
    if (toGet && next.headers) {
      const headers = new Headers(next.headers);
      for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
      next.headers = headers;
    }
    return nodeFetch(new URL(res.headers.location!, url), next, redirects + 1);
  };

  const nodeFetch = (input: string | URL | Request, init?: RequestInit, redirects = 0): Promise<Response> => {
    const rawBody = init?.body;
    // Chat requests are JSON text; anything else (a stream, form data, a Request object) goes to the global fetch.
    if (input instanceof Request || (rawBody !== undefined && rawBody !== null && typeof rawBody !== "string" && !Buffer.isBuffer(rawBody))) return fetch(input, init);
    const body = rawBody ?? undefined;
    const signal = init?.signal ?? undefined;
    return exchange(agents, input, init?.method ?? "GET", withBodyHeaders(headerRecord(init?.headers), body), body, signal).then((ex) => {
      const { res } = ex;
      if (isRedirect(res)) return follow(ex, init, redirects);
      const headers = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      const status = res.statusCode ?? 0;
      const nullBody = status === 204 || status === 205 || status === 304 || init?.method === "HEAD";
      if (nullBody) res.resume();
      return new Response(nullBody ? null : bodyStream(res, signal), { status, statusText: res.statusMessage ?? "", headers });
    });
  };

  const post = async (url: string, headers: Readonly<Record<string, string>>, body: string, signal: Abortable | undefined, firstByte?: FirstByteLimit): Promise<PostAnswer> => {
    const ex = await exchange(agents, url, "POST", withBodyHeaders(headers, body), body, signal, firstByte);
    const { res } = ex;
    if (isRedirect(res)) return fromResponse(await followWithin(ex, headers, body, signal, firstByte));
    const status = res.statusCode ?? 0;
    const nullBody = status === 204 || status === 205 || status === 304;
    if (nullBody) res.resume();
    return {
      status,
      header: (name) => rawHeader(res.rawHeaders, name),
      headers: () => {
        const h = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) h.append(raw[i]!, raw[i + 1]!);
        return h;
      },
      text: () => (nullBody ? Promise.resolve("") : bodyText(res, signal)),
    };
  };

  /**
   * A redirected POST goes on through fetch (rare: the cost does not matter), still under what is left of the
   * first-byte limit, which covers the whole chain as the SDK's timeout covers its fetch call.
   */
  const followWithin = (ex: Exchange, headers: Readonly<Record<string, string>>, body: string, signal: Abortable | undefined, firstByte: FirstByteLimit | undefined): Promise<Response> => {
    const init: RequestInit = { method: "POST", headers: { ...headers }, body };
    if (!firstByte && !signal) return follow(ex, init, 0);
    // fetch wants an AbortSignal: one that follows the caller's (a Tripwire or a signal), with the same reason.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    if (!firstByte) return follow(ex, { ...init, signal: controller.signal }, 0);
    const timer = setTimeout(() => {
      firstByte.onExpire();
      controller.abort();
    }, firstByte.ms - (performance.now() - ex.startedAt));
    // The abort listener stays: the body is read under the same signal, as the SDK's listener stays for its fetch.
    return follow(ex, { ...init, signal: controller.signal }, 0).finally(() => clearTimeout(timer));
  };

  return {
    fetch: nodeFetch,
    post,
    close: () => {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
