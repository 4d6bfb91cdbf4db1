/**
 * A non-streamed chat call without the SDK's request pipeline (src/core/models/chat-post.ts) sends the bytes the SDK
 * sends and gives back what the SDK gives back: the same request line, headers in the same order and body; the same
 * parsed answer; the same error class, message, status, body, headers and cause for every way a call fails. Each
 * case runs both ways against one real loopback server, the SDK (`openai`, unmocked) on the same node:http fetch.
 * No timer decides an outcome except the first-byte limit, against a server that never answers.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import OpenAI from "openai";
import { DirectChat } from "../../../src/core/models/chat-post.js";
import { createNodeFetch } from "../../../src/core/models/http-fetch.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import type { ChatRequest } from "../../../src/core/models/types.js";
import { closedPort } from "../../support/ports.js";

interface Seen {
  line: string;
  rawHeaders: string[];
  body: string;
}

const COMPLETION = { id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "héllo ✓" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 2 } };

/** What the server answers on each path (the SDK posts to <base>/<case>/chat/completions). */
const CASES: Record<string, (res: http.ServerResponse, events: { headersSent(): void }) => void> = {
  ok: (res) => res.writeHead(200, { "content-type": "application/json", "x-request-id": "req_1" }).end(JSON.stringify(COMPLETION)),
  bom: (res) => res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(`\uFEFF${JSON.stringify(COMPLETION)}`),
  suffix: (res) => res.writeHead(200, { "content-type": "application/vnd.x+json" }).end(JSON.stringify(COMPLETION)),
  text: (res) => res.writeHead(200, { "content-type": "text/plain" }).end("not json"),
  "no-type": (res) => res.writeHead(200).end(JSON.stringify(COMPLETION)),
  "empty-json": (res) => res.writeHead(200, { "content-type": "application/json", "content-length": "0" }).end(),
  "no-content": (res) => res.writeHead(204).end(),
  "bad-json": (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"choices": ['),
  gzip: (res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(zlib.gzipSync(JSON.stringify(COMPLETION))),
  "bad-utf8": (res) => res.writeHead(200, { "content-type": "application/json" }).end(Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')])),
  unauthorized: (res) => res.writeHead(401, { "content-type": "application/json", "x-request-id": "req_401" }).end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } })),
  forbidden: (res) => res.writeHead(403, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no access" } })),
  "not-found": (res) => res.writeHead(404, { "content-type": "text/plain" }).end("no such model"),
  "bad-request": (res) => res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens'", param: "max_tokens" } })),
  "rate-limited": (res) => res.writeHead(429, { "retry-after": "2", "retry-after-ms": "1500", "x-should-retry": "true" }).end(),
  "server-error": (res) => res.writeHead(500, { "content-type": "application/json" }).end("[1, 2]"),
  "error-cut": (res) => {
    res.writeHead(502, { "content-type": "application/json", "content-length": "100" });
    res.write('{"error": ');
    setImmediate(() => res.socket?.destroy());
  },
  cut: (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"choices":');
    setImmediate(() => res.socket?.destroy());
  },
  redirect: (res) => res.writeHead(307, { location: "/ok/chat/completions" }).end(),
  "see-other": (res) => res.writeHead(303, { location: "/ok/chat/completions" }).end(),
  never: (_res, events) => events.headersSent(),
  hold: (res, events) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{");
    events.headersSent();
  },
};

/** An error as far as anyone reads it: class, message, status, body, headers, and the cause's name, message and code. */
function describeError(e: unknown): unknown {
  if (!(e instanceof Error)) return { thrown: e };
  const x = e as Error & { status?: unknown; error?: unknown; headers?: Headers; code?: unknown; param?: unknown; type?: unknown };
  const cause = x.cause as (Error & { code?: unknown }) | undefined;
  return {
    class: x.constructor.name,
    name: x.name,
    message: x.message,
    status: x.status,
    error: x.error,
    code: x.code,
    param: x.param,
    type: x.type,
    headers: x.headers ? [...x.headers].filter(([k]) => k !== "date") : undefined,
    cause: cause ? { class: cause.constructor.name, name: cause.name, message: cause.message, code: cause.code ?? (cause.cause as { code?: unknown } | undefined)?.code } : undefined,
  };
}

describe("chat calls without the SDK's request pipeline", () => {
  const seen: Seen[] = [];
  let server: http.Server;
  let base: string;
  let headersSent: () => void = () => undefined;
  /** Told when the client has a response head (the SDK's fetch resolved, or DirectChat's post). */
  let headArrived: () => void = () => undefined;
  const nodeFetch = createNodeFetch();
  const notify = <T>(answer: T): T => {
    headArrived();
    return answer;
  };
  const watchedFetch: typeof fetch = (input, init) => nodeFetch.fetch(input, init).then(notify);
  const watchedPost: typeof nodeFetch.post = (...args) => nodeFetch.post(...args).then(notify);

  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (c: string) => (body += c));
      req.on("end", () => {
        seen.push({ line: `${req.method} ${req.url}`, rawHeaders: req.rawHeaders, body });
        const name = (req.url ?? "").split("/")[1] ?? "";
        const answer = CASES[name];
        if (answer) answer(res, { headersSent: () => headersSent() });
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    nodeFetch.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The SDK as createOpenAIClient makes it, for one base URL. */
  const sdkFor = (baseURL: string, timeout = 60_000) => new OpenAI({ apiKey: "sk-test-key", baseURL, maxRetries: 0, timeout, logLevel: "off", fetch: watchedFetch });
  const params = { model: "m", messages: [{ role: "user" as const, content: "2+2? ✓" }], temperature: 0, max_tokens: 5, stream: false as const };

  /** One call through the SDK and one through DirectChat; what each gave or threw, and what the server saw. */
  async function both(baseURL: string, options: { timeout?: number; abort?: (controller: AbortController) => Promise<void> } = {}) {
    const sdk = sdkFor(baseURL, options.timeout);
    const direct = new DirectChat(sdk, { post: watchedPost });
    const run = async (call: (signal: AbortSignal) => Promise<unknown>) => {
      const controller = new AbortController();
      const before = seen.length;
      const pending = call(controller.signal).then(
        (value) => ({ value }),
        (error: unknown) => ({ error: describeError(error) }),
      );
      await options.abort?.(controller);
      const outcome = await pending;
      return { outcome, requests: seen.slice(before) };
    };
    const viaSdk = await run((signal) => sdk.chat.completions.create({ ...params }, { signal }));
    const viaDirect = await run((signal) => direct.create({ ...params }, signal));
    return { viaSdk, viaDirect };
  }

  for (const name of Object.keys(CASES).filter((n) => n !== "never" && n !== "hold")) {
    it(`${name}: same request bytes, same answer or error`, async () => {
      const { viaSdk, viaDirect } = await both(`${base}/${name}`);
      assert.deepEqual(viaDirect.outcome, viaSdk.outcome);
      assert.ok(viaSdk.requests.length > 0);
      assert.deepEqual(viaDirect.requests, viaSdk.requests);
    });
  }

  it("the SDK's answer and DirectChat's differ in nothing the client reads, even the request id it attaches", async () => {
    const { viaSdk, viaDirect } = await both(`${base}/ok`);
    assert.ok("value" in viaSdk.outcome && "value" in viaDirect.outcome);
    assert.deepEqual(viaDirect.outcome.value, COMPLETION);
  });

  it("a refused connection: APIConnectionError with ECONNREFUSED in its cause, both ways", async () => {
    const { viaSdk, viaDirect } = await both(`http://127.0.0.1:${await closedPort()}/v1`);
    assert.equal((viaSdk.outcome as { error: { class: string } }).error.class, "APIConnectionError");
    assert.deepEqual(viaDirect.outcome, viaSdk.outcome);
  });

  it("no headers within the first-byte limit: APIConnectionTimeoutError, both ways", async () => {
    const { viaSdk, viaDirect } = await both(`${base}/never`, { timeout: 50 });
    assert.equal((viaSdk.outcome as { error: { class: string } }).error.class, "APIConnectionTimeoutError");
    assert.deepEqual(viaDirect.outcome, viaSdk.outcome);
  });

  it("cancelled before sending, while waiting for the headers, and while reading the body: the same errors", async () => {
    const already = await both(`${base}/ok`, { abort: (c) => Promise.resolve(c.abort()) });
    assert.equal((already.viaSdk.outcome as { error: { class: string } }).error.class, "APIUserAbortError");
    assert.deepEqual(already.viaDirect.outcome, already.viaSdk.outcome);

    const waitThenAbort = async (c: AbortController) => {
      await new Promise<void>((resolve) => (headersSent = resolve));
      c.abort();
    };
    const early = await both(`${base}/never`, { abort: waitThenAbort });
    assert.equal((early.viaSdk.outcome as { error: { class: string } }).error.class, "APIUserAbortError");
    assert.deepEqual(early.viaDirect.outcome, early.viaSdk.outcome);

    const late = await both(`${base}/hold`, {
      abort: async (c) => {
        await new Promise<void>((resolve) => (headArrived = resolve));
        c.abort();
      },
    });
    assert.equal((late.viaSdk.outcome as { error: { name: string } }).error.name, "AbortError");
    assert.deepEqual(late.viaDirect.outcome, late.viaSdk.outcome);
  });

  it("the OpenAI client sends the same bytes and answers the same with and without direct calls", async () => {
    const request: ChatRequest = {
      model: "m",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
      ],
      tools: [{ name: "load_skill", description: "d", parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }],
      temperature: 0.5,
      seed: 3,
    };
    const answers = [];
    const requests = [];
    for (const directCalls of [false, true]) {
      const client = createOpenAIClient({ baseURL: `${base}/ok`, apiKey: "sk-test-key", model: "m", maxRetries: 0, directCalls });
      const before = seen.length;
      const { latencyMs, ...rest } = await client.complete(request, { sampleIndex: 0 });
      assert.ok(latencyMs >= 0);
      answers.push(rest);
      requests.push(seen.slice(before));
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(requests[1], requests[0]);
    assert.equal(requests[0]!.length, 1);
  });
});
