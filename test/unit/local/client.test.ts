import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancelledError, ModelRequestError } from "../../../src/core/errors.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createLocalClient, type LocalModelClient } from "../../../src/core/models/local/client.js";
import { sha256File } from "../../../src/core/models/local/file-digest.js";
import type { ChatMessage, ChatRequest, ToolDefinition } from "../../../src/core/models/types.js";
import { DEFAULT_TINY_ANSWER, writeTinyChatModel } from "../../support/gguf-writer.js";

/**
 * The in-process client on generated GGUF models: the chain network (known greedy output, real tool calls through
 * node-llama-cpp's function calling) and a random-weight one (sampling, seeds, cancellation).
 */
let work: string;
let chainFile: string;
let randomFile: string;
const clients: LocalModelClient[] = [];

const LOAD_SKILL: ToolDefinition = {
  name: "load_skill",
  description: "Read the full text of a skill from the library, by its exact name.",
  parameters: { type: "object", properties: { name: { type: "string", description: "The skill's name." } }, required: ["name"], additionalProperties: false },
};
const SEARCH: ToolDefinition = {
  name: "search_skills",
  description: "Search the skill library.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false },
};

async function client(file: string, extra: Partial<Parameters<typeof createLocalClient>[0]> = {}): Promise<LocalModelClient> {
  const c = createLocalClient({ name: `local:${path.basename(file)}`, file, sha256: await sha256File(file), bytes: 1, chatFormat: "qwen", threads: 1, contextSize: 2048, ...extra });
  clients.push(c);
  return c;
}

const ask = (messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: "local:test", messages, temperature: 0, ...extra });
const first: ChatMessage[] = [
  { role: "system", content: "You are a careful problem solver." },
  { role: "user", content: "Write a Python function `f(x)` that returns x." },
];

before(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "sf-local-client-"));
  chainFile = path.join(work, "chain.gguf");
  randomFile = path.join(work, "random.gguf");
  await writeTinyChatModel(chainFile, { kind: "chain" });
  await writeTinyChatModel(randomFile, { kind: "random", seed: 3 });
});
after(async () => {
  for (const c of clients) await c.dispose();
  await rm(work, { recursive: true, force: true });
});

describe("local client: a GGUF model in-process", () => {
  it("loads nothing until the first call, and names the weights by sha256 in its id", async () => {
    const c = await client(chainFile);
    assert.equal(c.loaded, false);
    assert.match(c.id, new RegExp(`^local:chain\\.gguf@sha256:${await sha256File(chainFile)};ctx=2048;max=1024;format=qwen$`));
    assert.equal(c.weights.file, chainFile);
  });

  it("calls a tool through function calling, then answers after the tool result", async () => {
    const c = await client(chainFile);
    const call = await c.complete(ask(first, { tools: [LOAD_SKILL] }), { sampleIndex: 0 });
    assert.equal(c.loaded, true);
    assert.equal(call.content, null);
    assert.equal(call.finishReason, "tool_calls");
    assert.equal(call.toolCalls.length, 1);
    assert.equal(call.toolCalls[0]!.name, "load_skill");
    assert.deepEqual(JSON.parse(call.toolCalls[0]!.arguments), { name: "tidy-list-outputs" });
    assert.ok(call.usage.promptTokens > 100 && call.usage.completionTokens > 0, JSON.stringify(call.usage));

    const followUp: ChatMessage[] = [
      ...first,
      { role: "assistant", content: null, toolCalls: call.toolCalls },
      { role: "tool", toolCallId: call.toolCalls[0]!.id, content: "---\nname: tidy-list-outputs\n---\nReturn lists, not tuples." },
    ];
    const answer = await c.complete(ask(followUp, { tools: [LOAD_SKILL] }), { sampleIndex: 0 });
    assert.deepEqual(answer.toolCalls, []);
    assert.equal(answer.content, DEFAULT_TINY_ANSWER);
    assert.equal(answer.finishReason, "stop");
  });

  it("offers the search tool the same way (its argument is the query)", async () => {
    const c = await client(chainFile);
    const call = await c.complete(ask(first, { tools: [SEARCH] }), { sampleIndex: 0 });
    assert.equal(call.toolCalls[0]!.name, "search_skills");
    assert.deepEqual(JSON.parse(call.toolCalls[0]!.arguments), { query: "tidy-list-outputs" });
  });

  it("without tools (the disabled condition) the model answers in text, streamed piece by piece", async () => {
    const pieces: string[] = [];
    const c = await client(chainFile, { onText: (t) => pieces.push(t) });
    const r = await c.complete(ask(first), { sampleIndex: 0 });
    assert.equal(r.content, DEFAULT_TINY_ANSWER);
    assert.equal(pieces.join(""), DEFAULT_TINY_ANSWER);
    assert.deepEqual(r.toolCalls, []);
  });

  it("at temperature 0 equal requests get equal answers; a seed makes sampling reproducible and samples differ", async () => {
    const c = await client(randomFile);
    const greedy = ask(first, { maxTokens: 12 });
    assert.equal((await c.complete(greedy, { sampleIndex: 0 })).content, (await c.complete(greedy, { sampleIndex: 0 })).content);
    const sampled = ask(first, { temperature: 1, seed: 5, maxTokens: 24 });
    const a = await c.complete(sampled, { sampleIndex: 0 });
    const b = await c.complete(sampled, { sampleIndex: 0 });
    const other = await c.complete(sampled, { sampleIndex: 1 });
    assert.equal(a.content, b.content, "the same seed and sample give the same text");
    assert.notEqual(a.content, other.content, "another sample index is another seed");
    assert.equal(a.finishReason, "length");
    assert.equal(a.usage.completionTokens, 24);
  });

  it("a cancel stops generation mid-way with a CancelledError, and the client stays usable", async () => {
    const controller = new AbortController();
    const c = await client(randomFile, { onText: () => controller.abort() });
    await assert.rejects(c.complete(ask(first, { maxTokens: 500 }), { sampleIndex: 0, signal: controller.signal }), CancelledError);
    const later = await c.complete(ask(first, { maxTokens: 4 }), { sampleIndex: 0 });
    assert.equal(later.usage.completionTokens, 4);
  });

  it("a conversation longer than the context is an error, never silently cut", async () => {
    const c = await client(randomFile, { contextSize: 256 });
    const long: ChatMessage[] = [first[0]!, { role: "user", content: "word ".repeat(400) }];
    await assert.rejects(c.complete(ask(long, { maxTokens: 8 }), { sampleIndex: 0 }), (e: unknown) => e instanceof ModelRequestError && /no longer fits the local model's context of 256 tokens/.test(e.message));
  });

  it("behind the response cache: weights pass through, and a repeated request costs no generation", async () => {
    const dir = path.join(work, "responses");
    const inner = await client(chainFile);
    const cached = createCachedClient(inner, { dir });
    assert.deepEqual(cached.weights, inner.weights);
    const r1 = await cached.complete(ask(first), { sampleIndex: 0 });
    await inner.dispose();
    const r2 = await createCachedClient(inner, { dir }).complete(ask(first), { sampleIndex: 0 });
    assert.equal(r2.cached, true);
    assert.equal(r2.content, r1.content);
    assert.equal(inner.loaded, false, "a cache hit loads no model");
  });
});
