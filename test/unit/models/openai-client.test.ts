// The real `openai` client against the scripted server over loopback HTTP: wire mapping both ways,
// streaming and non-streaming, sampling parameters, usage, latency.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOpenAIClient, describeEndpoint, isLocalEndpoint, LOCAL_DUMMY_KEY } from "../../../src/core/models/openai-client.js";
import type { ChatRequest } from "../../../src/core/models/types.js";
import { ModelConfigError } from "../../../src/core/errors.js";
import { unsupportedParameter } from "../../../src/core/models/retry.js";
import { APIError } from "openai";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";

const loadSkill = { name: "load_skill", description: "Load a skill", parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } };

function conversation(): ChatRequest {
  return {
    model: "scripted-model",
    messages: [
      { role: "system", content: "You are careful." },
      { role: "user", content: "Add two numbers." },
    ],
    tools: [loadSkill],
  };
}

describe("openai client over the scripted server", () => {
  let server: ScriptedServer;
  // One virtual clock for both sides: the server's 5 ms wait advances it, and the client reads latency from it.
  let clock = 0;
  before(async () => {
    server = await startScriptedServer({
      latencyMs: 5,
      delay: async (ms) => {
        clock += ms;
      },
      script: (req) => {
        const last = req.messages[req.messages.length - 1]!;
        if (req.tools && last.role === "user") return { toolCalls: [{ name: "load_skill", arguments: '{"name":"adding"}' }], usage: { prompt_tokens: 11, completion_tokens: 7 } };
        if (last.role === "tool") return { content: `used: ${last.content} for ${last.tool_call_id}` };
        return { content: "```python\ndef add(a, b):\n    return a + b\n```" };
      },
    });
  });
  after(() => server.close());

  for (const stream of [false, true]) {
    it(`round-trips a tool call and its result (${stream ? "streaming" : "non-streaming"})`, async () => {
      server.reset();
      const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", stream, env: {}, now: () => clock });
      const first = await client.complete(conversation(), { sampleIndex: 0 });
      assert.equal(first.finishReason, "tool_calls");
      assert.equal(first.content, null);
      assert.equal(first.toolCalls.length, 1);
      assert.equal(first.toolCalls[0]!.name, "load_skill");
      assert.deepEqual(JSON.parse(first.toolCalls[0]!.arguments), { name: "adding" });
      assert.match(first.toolCalls[0]!.id, /^call_/);
      assert.deepEqual(first.usage, { promptTokens: 11, completionTokens: 7 });
      assert.equal(first.latencyMs, 5, "latency covers the exchange, the server's wait included");
      assert.equal(first.attempts, 1);

      const req2 = conversation();
      req2.messages.push({ role: "assistant", content: null, toolCalls: first.toolCalls });
      req2.messages.push({ role: "tool", toolCallId: first.toolCalls[0]!.id, content: "SKILL BODY" });
      const second = await client.complete(req2, { sampleIndex: 0 });
      assert.equal(second.content, `used: SKILL BODY for ${first.toolCalls[0]!.id}`);
      assert.equal(second.finishReason, "stop");
      assert.deepEqual(second.toolCalls, []);

      // What went over the wire: OpenAI's shape, tool_calls and tool_call_id included.
      const wire = server.requests[1]!;
      assert.equal(wire.messages[2]!.role, "assistant");
      assert.equal(wire.messages[2]!.tool_calls![0]!.function.name, "load_skill");
      assert.equal(wire.messages[3]!.tool_call_id, first.toolCalls[0]!.id);
      assert.equal(wire.tools![0]!.type, "function");
      assert.equal(wire.stream === true, stream);
      assert.equal(server.calls, 2);
    });
  }

  it("sends no tools key and no sampling parameters unless set", async () => {
    server.reset();
    const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", env: {} });
    const r = await client.complete({ model: "scripted-model", messages: [{ role: "user", content: "hi" }] }, { sampleIndex: 0 });
    assert.match(r.content ?? "", /def add/);
    const wire = server.requests[0]!;
    for (const key of ["tools", "temperature", "top_p", "seed", "max_tokens"]) assert.ok(!(key in wire), `${key} must be absent`);
    await client.complete({ model: "scripted-model", messages: [{ role: "user", content: "hi" }], temperature: 0, topP: 0.9, seed: 7, maxTokens: 64 }, { sampleIndex: 0 });
    const wire2 = server.requests[1]!;
    assert.equal(wire2.temperature, 0);
    assert.equal(wire2.top_p, 0.9);
    assert.equal(wire2.seed, 7);
    assert.equal(wire2.max_tokens, 64);
  });

  it("streams multi-part content and usage", async () => {
    server.reset();
    const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", stream: true, env: {} });
    const r = await client.complete({ model: "scripted-model", messages: [{ role: "user", content: "hi" }] }, { sampleIndex: 0 });
    assert.equal(r.content, "```python\ndef add(a, b):\n    return a + b\n```");
    assert.ok(r.usage.promptTokens > 0 && r.usage.completionTokens > 0);
    assert.equal(server.requests[0]!.stream_options?.include_usage, true);
  });
});

describe("reasoning models' parameter rules (OpenAI o-series, gpt-5)", () => {
  // OpenAI's own words for both refusals.
  const NO_MAX_TOKENS = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
  const NO_TEMPERATURE = "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.";
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer({
      script: (req) => {
        if (req.max_tokens !== undefined) return { error: { status: 400, message: NO_MAX_TOKENS } };
        if (req.temperature !== undefined && req.temperature !== 1) return { error: { status: 400, message: NO_TEMPERATURE } };
        return { content: `limit ${req.max_completion_tokens ?? "none"}` };
      },
    });
  });
  after(() => server.close());
  const ask = (extra: Partial<ChatRequest>): ChatRequest => ({ model: "o4-mini", messages: [{ role: "user", content: "hi" }], ...extra });

  it("switches to max_completion_tokens after the first refusal, for every request in flight and after", async () => {
    server.reset();
    const client = createOpenAIClient({ baseURL: server.url, model: "o4-mini", env: {}, maxRetries: 0 });
    // Three at once: all meet the refusal before any learns from it, and each goes again once.
    const first = await Promise.all([1, 2, 3].map(() => client.complete(ask({ maxTokens: 256 }), { sampleIndex: 0 })));
    assert.deepEqual(first.map((r) => r.content), ["limit 256", "limit 256", "limit 256"]);
    assert.equal(server.requests.filter((r) => r.max_tokens !== undefined).length, 3);
    const before = server.calls;
    const later = await client.complete(ask({ maxTokens: 64 }), { sampleIndex: 0 });
    assert.equal(later.content, "limit 64");
    assert.equal(server.calls - before, 1, "once learned, a request goes out right the first time");
    assert.equal(server.requests.at(-1)!.max_tokens, undefined);
  });

  it("a model that refuses temperature 0 is an error that says what to run instead, not retried", async () => {
    server.reset();
    const client = createOpenAIClient({ baseURL: server.url, model: "o4-mini", env: {} });
    await assert.rejects(client.complete(ask({ temperature: 0 }), { sampleIndex: 0 }), (e: Error & { options?: { hint?: string } }) => {
      assert.match(e.message, /HTTP 400.*Only the default \(1\) value is supported/);
      assert.match(e.options?.hint ?? "", /o4-mini accepts only its default temperature.*samples of 3 or more/);
      return true;
    });
    assert.equal(server.calls, 1);
  });

  it("an unrelated 400 that mentions neither parameter is not mistaken for one", () => {
    const plain = new APIError(400, { message: "Invalid 'messages': empty array." }, "Invalid 'messages': empty array.", new Headers());
    assert.equal(unsupportedParameter(plain, "max_tokens"), false);
    const refusal = new APIError(400, { message: NO_MAX_TOKENS, param: "max_tokens" }, NO_MAX_TOKENS, new Headers());
    assert.equal(unsupportedParameter(refusal, "max_tokens"), true);
    assert.equal(unsupportedParameter(new APIError(500, undefined, NO_MAX_TOKENS, new Headers()), "max_tokens"), false);
  });
});

describe("openai client configuration", () => {
  it("uses a dummy key only for local endpoints", () => {
    assert.ok(isLocalEndpoint("http://127.0.0.1:11434/v1"));
    assert.ok(isLocalEndpoint("http://localhost:1234/v1"));
    assert.ok(isLocalEndpoint("http://192.168.1.20:8000/v1"));
    assert.ok(!isLocalEndpoint("https://api.openai.com/v1"));
    assert.ok(!isLocalEndpoint("https://openrouter.ai/api/v1"));
    assert.equal(LOCAL_DUMMY_KEY.startsWith("sk-"), true);
    assert.throws(() => createOpenAIClient({ model: "gpt-4o-mini", env: {} }), (e: unknown) => e instanceof ModelConfigError && e.options.hintIds?.[0] === "apiKey");
    assert.doesNotThrow(() => createOpenAIClient({ model: "m", baseURL: "http://localhost:11434/v1", env: {} }));
  });

  it("reads key and base URL from the environment and keeps both out of the id", () => {
    const c = createOpenAIClient({ model: "m", env: { OPENAI_API_KEY: "sk-test-SECRET-123", OPENAI_BASE_URL: "https://example.test/v1?api-key=sk-test-SECRET-123" } });
    assert.equal(c.id, "openai-compatible:m@https://example.test/v1");
    assert.equal(describeEndpoint("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1");
  });
});

describe("base URLs that cannot work are configuration errors, not retried", () => {
  for (const [url, re] of [
    ["https://user:sk-in-url-SECRET@api.example.com/v1", /carries credentials/],
    ["ftp://api.example.com/v1", /must start with http/],
    ["not a url", /not a valid URL/],
  ] as const) {
    it(url.replace(/SECRET/, "…"), () => {
      assert.throws(
        () => createOpenAIClient({ baseURL: url, apiKey: "sk-test", model: "m", env: {} }),
        (err: Error) => err instanceof ModelConfigError && re.test(err.message) && !err.message.includes("SECRET"),
      );
    });
  }
});
