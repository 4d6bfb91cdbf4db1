// Error classification, Retry-After, retry exhaustion, cancellation and key hygiene of the OpenAI client,
// all against the scripted server over real HTTP.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { CancelledError, EndpointUnreachableError, ModelRequestError } from "../../../src/core/errors.js";
import type { Logger } from "../../../src/core/logger.js";
import { createOpenAIClient, neverAnsweredBudgetMs, type AttemptDeadline } from "../../../src/core/models/openai-client.js";
import { parseRetryAfter, retryDelayMs } from "../../../src/core/models/retry.js";
import { startScriptedServer, type ScriptedReply } from "../../support/scripted-server.js";

const KEY = "sk-test-SECRET-123";
const ask = { model: "scripted-model", messages: [{ role: "user" as const, content: "hi" }] };

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec = (level: string) => (m: string | Error) => lines.push(`${level} ${m instanceof Error ? `${m.message} ${m.stack ?? ""}` : m}`);
  return { lines, trace: rec("trace"), debug: rec("debug"), info: rec("info"), warn: rec("warn"), error: rec("error") };
}

/** A clock that only sleeping advances, and the sleeps asked for: backoff is observed without waiting. */
function virtualClock() {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    options: {
      now: () => t,
      sleep: async (ms: number) => {
        slept.push(ms);
        t += ms;
      },
    },
  };
}

/** A script that fails the first `failures` calls with `reply`, then answers "ok". */
function failingThenOk(failures: number, reply: ScriptedReply) {
  return (_req: unknown, ctx: { callIndex: number }): ScriptedReply => (ctx.callIndex < failures ? reply : { content: "ok" });
}

describe("retry and error classification", () => {
  it("honours Retry-After and retries exactly once; latency is the successful attempt's", async () => {
    const server = await startScriptedServer({ script: failingThenOk(1, { error: { status: 429, retryAfter: 0.4 } }) });
    try {
      // An injected clock that only the backoff advances: latency that included the wait would be >= 400.
      const clock = virtualClock();
      const client = createOpenAIClient({ baseURL: server.url, model: "m", retryBaseMs: 1, maxBackoffMs: 2, env: {}, ...clock.options });
      const r = await client.complete(ask, { sampleIndex: 0 });
      assert.equal(r.content, "ok");
      assert.equal(r.attempts, 2);
      assert.equal(server.calls, 2);
      // Backoff alone would be 1-2 ms: 400 ms (plus at most 10% jitter) can only come from the header.
      assert.equal(clock.slept.length, 1);
      assert.ok(clock.slept[0]! >= 400 && clock.slept[0]! <= 440, `slept ${clock.slept[0]} ms for Retry-After 0.4 s`);
      assert.equal(r.latencyMs, 0, "latency is of the successful attempt only");
    } finally {
      await server.close();
    }
  });

  it("caps a huge Retry-After", async () => {
    const server = await startScriptedServer({ script: failingThenOk(1, { error: { status: 503, retryAfter: 3600 } }) });
    try {
      const clock = virtualClock();
      const client = createOpenAIClient({ baseURL: server.url, model: "m", maxRetryAfterMs: 50, env: {}, ...clock.options });
      assert.equal((await client.complete(ask, { sampleIndex: 0 })).content, "ok");
      assert.equal(clock.slept.length, 1);
      assert.ok(clock.slept[0]! >= 50 && clock.slept[0]! <= 55, `slept ${clock.slept[0]} ms, capped at 50 (+10% jitter)`);
    } finally {
      await server.close();
    }
  });

  for (const status of [408, 409, 429, 500, 502, 503]) {
    it(`retries HTTP ${status}`, async () => {
      const server = await startScriptedServer({ script: failingThenOk(2, { error: { status } }) });
      try {
        const client = createOpenAIClient({ baseURL: server.url, model: "m", retryBaseMs: 1, maxBackoffMs: 2, env: {} });
        const r = await client.complete(ask, { sampleIndex: 0 });
        assert.equal(r.content, "ok");
        assert.equal(r.attempts, 3);
      } finally {
        await server.close();
      }
    });
  }

  const hints: Array<[number, RegExp, string[]]> = [
    [400, /tool calls|parameters/, ["log"]],
    [401, /API key/, ["apiKey"]],
    [403, /permission/, ["apiKey"]],
    [404, /model name and the base URL/, ["model", "baseUrl"]],
    [422, /refused/, ["log"]],
  ];
  for (const [status, hint, hintIds] of hints) {
    it(`does not retry HTTP ${status}; throws ModelRequestError with a hint`, async () => {
      const server = await startScriptedServer({ script: () => ({ error: { status, message: `server says ${status}` } }) });
      try {
        const client = createOpenAIClient({ baseURL: server.url, model: "m", retryBaseMs: 1, env: {} });
        await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => {
          assert.ok(e instanceof ModelRequestError, String(e));
          assert.equal(e.status, status);
          assert.match(e.options.hint ?? "", hint);
          assert.deepEqual(e.options.hintIds, hintIds);
          assert.match(e.message, new RegExp(`server says ${status}`));
          return true;
        });
        assert.equal(server.calls, 1);
      } finally {
        await server.close();
      }
    });
  }

  it("gives up after maxRetries with an actionable error; exactly maxRetries+1 requests (the SDK's own retries are off)", async () => {
    const server = await startScriptedServer({ script: () => ({ error: { status: 503 } }) });
    try {
      const logger = recordingLogger();
      const client = createOpenAIClient({ baseURL: server.url, model: "m", maxRetries: 2, retryBaseMs: 1, maxBackoffMs: 2, logger, env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => e instanceof ModelRequestError && e.status === 503 && /3 attempts/.test(e.message) && e.options.hintIds?.includes("log") === true);
      assert.equal(server.calls, 3);
      assert.equal(logger.lines.filter((l) => l.startsWith("debug") && /retrying/.test(l)).length, 2);
    } finally {
      await server.close();
    }
  });

  it("nothing ever listening: refused twice, it stops with one EndpointUnreachableError naming the endpoint", async () => {
    const gone = await startScriptedServer({ script: () => ({ content: "x" }) });
    await gone.close();
    const client = createOpenAIClient({ baseURL: gone.url, model: "m", maxRetries: 6, retryBaseMs: 1, maxBackoffMs: 2, env: {} });
    await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => {
      assert.ok(e instanceof EndpointUnreachableError);
      assert.match(e.message, /^Nothing is listening at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)$/);
      assert.match(e.options.hint ?? "", /Start the model server/);
      assert.equal((e.cause as { code?: string }).code, "ECONNREFUSED");
      return true;
    });
  });

  it("refused after it once answered: a hiccup, retried to the last attempt, then an error naming ECONNREFUSED", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }) });
    const client = createOpenAIClient({ baseURL: server.url, model: "m", maxRetries: 2, retryBaseMs: 1, maxBackoffMs: 2, env: {} });
    await client.complete(ask, { sampleIndex: 0 });
    await server.close();
    await assert.rejects(client.complete(ask, { sampleIndex: 1 }), (e: unknown) => {
      assert.ok(e instanceof ModelRequestError && !(e instanceof EndpointUnreachableError));
      assert.match(e.message, /3 attempts \(connection failed \(ECONNREFUSED\)\)/);
      assert.match(e.options.hint ?? "", /Nothing answered at http:\/\/127\.0\.0\.1:\d+\/v1/);
      assert.equal((e.cause as { code?: string }).code, "ECONNREFUSED");
      return true;
    });
  });

  it("no headers within the first-byte limit: the attempt ends there, long before the request timeout", { timeout: 120_000 }, async () => {
    const server = await startScriptedServer({ script: () => ({ content: "ok" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      // A request timeout of an hour: only the first-byte limit can end these attempts before the test's own timeout.
      const client = createOpenAIClient({ baseURL: server.url, model: "m", timeoutMs: 3_600_000, firstByteTimeoutMs: 100, maxRetries: 1, ...virtualClock().options, env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => e instanceof ModelRequestError && !(e instanceof EndpointUnreachableError) && /2 attempts \(request timed out\)/.test(e.message));
      assert.equal(server.faultsInjected.stall, 2);
    } finally {
      await server.close();
    }
  });

  it("silent 3 times in a row and never answered: the breaker stops with EndpointUnreachableError, and later calls fail without a request", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "ok" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", timeoutMs: 100, maxRetries: 6, ...virtualClock().options, env: {} });
      const breaker = (e: unknown) => {
        assert.ok(e instanceof EndpointUnreachableError, String(e));
        assert.match(e.message, /^No answer from http:\/\/127\.0\.0\.1:\d+\/v1: 3 attempts in a row failed \(request timed out\), and it has not answered once in this run$/);
        assert.deepEqual(e.options.hintIds, ["timeoutSeconds", "baseUrl", "log"]);
        return true;
      };
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), breaker);
      assert.equal(server.faultsInjected.stall, 3);
      await assert.rejects(client.complete(ask, { sampleIndex: 1 }), breaker);
      assert.equal(server.faultsInjected.stall, 3, "a tripped client sends nothing");
    } finally {
      await server.close();
    }
  });

  it("one call at a time against a hung server: the never-answered budget trips the breaker before the third attempt", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "ok" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      // Neither clock is time: the first attempt ends when the server reports it stalled, and the budget runs out when
      // the second one stalls, as a 120 s timeout against a 170 s budget would order them.
      const onStall = (seq: number): AttemptDeadline => {
        const controller = new AbortController();
        const off = server.onEvent((e) => {
          if (e.type === "stalled" && e.seq === seq) controller.abort();
        });
        return { signal: controller.signal, dispose: off };
      };
      const client = createOpenAIClient({
        baseURL: server.url,
        model: "m",
        timeoutMs: 3_600_000,
        maxRetries: 6,
        ...virtualClock().options,
        attemptDeadline: (_request, attempt) => (attempt === 1 ? onStall(1) : { signal: new AbortController().signal, dispose: () => undefined }),
        neverAnsweredDeadline: () => onStall(2),
        env: {},
      });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => {
        assert.ok(e instanceof EndpointUnreachableError, String(e));
        assert.match(e.message, /: 2 attempts in a row failed \(request timed out\), and it has not answered once in this run$/);
        return true;
      });
      assert.equal(server.faultsInjected.stall, 2, "the second attempt was the last");
      await assert.rejects(client.complete(ask, { sampleIndex: 1 }), EndpointUnreachableError);
      assert.equal(server.faultsInjected.stall, 2, "a tripped client sends nothing");
    } finally {
      await server.close();
    }
  });

  it("the default budget fits 3 minutes and always one whole attempt", () => {
    assert.equal(neverAnsweredBudgetMs(120_000), 170_000);
    assert.equal(neverAnsweredBudgetMs(30_000), 170_000);
    assert.equal(neverAnsweredBudgetMs(600_000), 610_000, "a timeout raised for a slow model keeps its first attempt whole");
  });

  it("silent after it once answered: retried to the last attempt as before, no breaker", async () => {
    // The first call is answered; every later one is held forever (the server never replies).
    const server = await startScriptedServer({ script: (_req, ctx) => (ctx.callIndex === 0 ? { content: "ok" } : new Promise<ScriptedReply>(() => undefined)) });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", timeoutMs: 100, maxRetries: 4, ...virtualClock().options, env: {} });
      await client.complete(ask, { sampleIndex: 0 });
      await assert.rejects(client.complete(ask, { sampleIndex: 1 }), (e: unknown) => e instanceof ModelRequestError && !(e instanceof EndpointUnreachableError) && /5 attempts \(request timed out\)/.test(e.message));
      assert.equal(server.calls, 6);
    } finally {
      await server.close();
    }
  });

  it("a stalled answer times out and is retried", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "ok" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", timeoutMs: 100, maxRetries: 1, retryBaseMs: 1, env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => e instanceof ModelRequestError && /timed out/.test(e.message));
      assert.equal(server.faultsInjected.stall, 2);
      // Each attempt was given up by the client's own deadline: it hung up on both stalled requests.
      await server.waitFor("aborted", (e) => e.seq === 2);
      assert.deepEqual(server.events.filter((e) => e.type === "stalled" || e.type === "aborted").map((e) => `${e.type} ${e.seq}`).sort(), ["aborted 1", "aborted 2", "stalled 1", "stalled 2"]);
    } finally {
      await server.close();
    }
  });
});

describe("cancellation", () => {
  it("an abort during the request rejects with CancelledError and hangs up before any answer", async () => {
    // The reply is held until the test ends: only the abort can finish this call.
    const server = await startScriptedServer({ script: () => ({ content: "late" }), latencyMs: 1, delay: () => new Promise(() => {}) });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", env: {} });
      const ac = new AbortController();
      const pending = client.complete(ask, { sampleIndex: 0, signal: ac.signal });
      await server.waitFor("request");
      ac.abort();
      await assert.rejects(pending, CancelledError);
      await server.waitFor("aborted", (e) => e.seq === 1);
      assert.equal(server.events.some((e) => e.type === "responded"), false);
    } finally {
      await server.close();
    }
  });

  it("an abort in the middle of a streamed answer rejects with CancelledError", async () => {
    // A streamed stall sends headers and a first chunk, then nothing: the abort lands mid-stream.
    const server = await startScriptedServer({ script: () => ({ content: "x" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", stream: true, env: {} });
      const ac = new AbortController();
      const pending = client.complete(ask, { sampleIndex: 0, signal: ac.signal });
      await server.waitFor("chunk", (e) => e.seq === 1);
      ac.abort();
      await assert.rejects(pending, CancelledError);
      await server.waitFor("aborted", (e) => e.seq === 1);
      assert.equal(server.faultsInjected.stall, 1, "exactly one attempt");
    } finally {
      await server.close();
    }
  });

  it("an abort during backoff rejects with CancelledError without another attempt", async () => {
    const server = await startScriptedServer({ script: () => ({ error: { status: 429, retryAfter: 5 } }) });
    try {
      const ac = new AbortController();
      let backoffStarted!: () => void;
      const inBackoff = new Promise<void>((r) => (backoffStarted = r));
      // The real wait is 5 s; this one lasts until the abort, and says when it starts.
      const sleep = (_ms: number, signal: AbortSignal | undefined) =>
        new Promise<void>((resolve) => {
          backoffStarted();
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
      const client = createOpenAIClient({ baseURL: server.url, model: "m", env: {}, sleep });
      const pending = client.complete(ask, { sampleIndex: 0, signal: ac.signal });
      await inBackoff;
      ac.abort();
      await assert.rejects(pending, CancelledError);
      assert.equal(server.calls, 1);
    } finally {
      await server.close();
    }
  });

  it("an already-aborted signal sends nothing", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }) });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0, signal: AbortSignal.abort() }), CancelledError);
      assert.equal(server.calls, 0);
    } finally {
      await server.close();
    }
  });
});

describe("the API key stays secret", () => {
  it("a wrong key gets 401 → setApiKey, and the key is in no message or log line", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), requireKey: "sk-the-right-one" });
    try {
      const logger = recordingLogger();
      const client = createOpenAIClient({ baseURL: server.url, model: "m", apiKey: KEY, logger, env: {} });
      assert.ok(!client.id.includes(KEY));
      const err = await client.complete(ask, { sampleIndex: 0 }).then(
        () => assert.fail("expected a 401"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ModelRequestError);
      assert.equal(err.status, 401);
      assert.deepEqual(err.options.hintIds, ["apiKey"]);
      for (const text of [err.message, err.stack ?? "", err.options.hint ?? "", ...logger.lines]) assert.ok(!text.includes(KEY), text);
    } finally {
      await server.close();
    }
  });

  it("the right key is sent as a Bearer token and works", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), requireKey: KEY });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", env: { OPENAI_API_KEY: KEY } });
      assert.equal((await client.complete(ask, { sampleIndex: 0 })).content, "x");
    } finally {
      await server.close();
    }
  });

  it("a server that echoes the key back has it redacted from our error", async () => {
    const server = await startScriptedServer({ script: () => ({ error: { status: 400, message: `bad key ${KEY} given` } }) });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", apiKey: KEY, env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), (e: unknown) => {
        assert.ok(e instanceof ModelRequestError);
        assert.match(e.message, /\[redacted\]/);
        // util.inspect shows the cause chain, which is what a log of the error would print.
        assert.ok(!inspect(e, { depth: 10 }).includes(KEY), inspect(e));
        return true;
      });
    } finally {
      await server.close();
    }
  });
});

describe("the SDK stays quiet", () => {
  it("prints nothing to the console even with OPENAI_LOG=debug and a malformed stream", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "ok" }), faults: { rate: 1, kinds: ["malformed-json"] } });
    const saved = { log: process.env.OPENAI_LOG, methods: { ...console } };
    const printed: string[] = [];
    process.env.OPENAI_LOG = "debug";
    for (const m of ["log", "info", "warn", "error", "debug"] as const) console[m] = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "m", apiKey: KEY, stream: true, maxRetries: 1, retryBaseMs: 1, env: {} });
      await assert.rejects(client.complete(ask, { sampleIndex: 0 }), ModelRequestError);
    } finally {
      Object.assign(console, saved.methods);
      if (saved.log === undefined) delete process.env.OPENAI_LOG;
      else process.env.OPENAI_LOG = saved.log;
      await server.close();
    }
    assert.deepEqual(printed, []);
  });
});

describe("retry arithmetic", () => {
  it("parses retry-after-ms, seconds and HTTP dates", () => {
    assert.equal(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" })), 250);
    assert.equal(parseRetryAfter(new Headers({ "retry-after": "2" })), 2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now), 3000);
    assert.equal(parseRetryAfter(new Headers({ "retry-after": "soon" })), undefined);
    assert.equal(parseRetryAfter(new Headers()), undefined);
  });

  it("backs off exponentially with jitter, capped", () => {
    const o = { baseMs: 100, maxMs: 1000, maxRetryAfterMs: 5000 };
    const f = { kind: "http" as const, retryable: true, summary: "" };
    assert.equal(retryDelayMs(1, f, { ...o, random: () => 0 }), 50);
    assert.equal(retryDelayMs(1, f, { ...o, random: () => 1 }), 100);
    assert.equal(retryDelayMs(3, f, { ...o, random: () => 1 }), 400);
    assert.equal(retryDelayMs(10, f, { ...o, random: () => 1 }), 1000);
    assert.equal(retryDelayMs(1, { ...f, retryAfterMs: 9000 }, o), 5000);
    assert.equal(retryDelayMs(1, { ...f, retryAfterMs: 0 }, o), 0);
    // A server's delay is never shortened; jitter only adds up to 10%.
    assert.equal(retryDelayMs(4, { ...f, retryAfterMs: 1000 }, { ...o, random: () => 0 }), 1000);
    assert.equal(retryDelayMs(4, { ...f, retryAfterMs: 1000 }, { ...o, random: () => 1 }), 1100);
  });
});
