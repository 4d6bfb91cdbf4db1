// The on-disk response cache in front of the real client and the scripted server: hits, misses,
// invalidation by exactly the changed request, corrupt entries, concurrency, and no key on disk.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Logger } from "../../../src/core/logger.js";
import { canonicalJson, createCachedClient, requestCacheKey } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import type { ChatRequest } from "../../../src/core/models/types.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";

const KEY = "sk-test-SECRET-123";

function requests(skillBody: string): ChatRequest[] {
  const tools = [{ name: "load_skill", description: "Load a skill", parameters: { type: "object", properties: { name: { type: "string" } } } }];
  const withSkill: ChatRequest = {
    model: "scripted-model",
    temperature: 0,
    tools,
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "task A" },
      { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "load_skill", arguments: '{"name":"s"}' }] },
      { role: "tool", toolCallId: "call_1", content: skillBody },
    ],
  };
  return [
    { model: "scripted-model", temperature: 0, tools, messages: [{ role: "system", content: "sys" }, { role: "user", content: "task A" }] },
    withSkill,
    { model: "scripted-model", temperature: 0, messages: [{ role: "user", content: "task A" }] },
    { model: "scripted-model", temperature: 0, messages: [{ role: "user", content: "task B" }] },
  ];
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(path.join(e.parentPath, e.name));
  return out;
}

describe("response cache", () => {
  let server: ScriptedServer;
  let dir: string;
  const warnings: string[] = [];
  const logger: Logger = { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(String(m)) };
  before(async () => {
    server = await startScriptedServer({ script: (req, ctx) => ({ content: `answer #${ctx.callIndex} to ${req.messages.length} messages` }), requireKey: KEY });
  });
  after(() => server.close());
  beforeEach(async () => {
    server.reset();
    warnings.length = 0;
    dir = await mkdtemp(path.join(tmpdir(), "sf-cache-"));
  });

  const client = (): ReturnType<typeof createCachedClient> =>
    createCachedClient(createOpenAIClient({ baseURL: server.url, model: "scripted-model", apiKey: KEY, env: {} }), { dir, logger });

  it("a re-run with identical requests makes zero calls and returns the same answers", async () => {
    const first = client();
    const a = await Promise.all(requests("BODY v1").map((r) => first.complete(r, { sampleIndex: 0 })));
    assert.equal(server.calls, 4);
    assert.deepEqual(first.stats(), { hits: 0, misses: 4 });
    assert.ok(a.every((r) => r.cached === false));

    const second = client();
    const b = await Promise.all(requests("BODY v1").map((r) => second.complete(r, { sampleIndex: 0 })));
    assert.equal(server.calls, 4, "no new calls");
    assert.deepEqual(second.stats(), { hits: 4, misses: 0 });
    assert.deepEqual(b.map((r) => r.content), a.map((r) => r.content));
    assert.ok(b.every((r) => r.cached === true && r.latencyMs === 0));
    await rm(dir, { recursive: true });
  });

  it("changing one message re-issues only the requests that contain it", async () => {
    const c = client();
    for (const r of requests("BODY v1")) await c.complete(r, { sampleIndex: 0 });
    server.reset();
    const again = client();
    for (const r of requests("BODY v2 (edited)")) await again.complete(r, { sampleIndex: 0 });
    assert.equal(server.calls, 1);
    assert.equal(server.requests[0]!.messages[3]!.content, "BODY v2 (edited)");
    assert.deepEqual(again.stats(), { hits: 3, misses: 1 });
    await rm(dir, { recursive: true });
  });

  it("sample index, sampling parameters and endpoint are part of the key; key order is not", () => {
    const [r] = requests("x");
    const base = requestCacheKey(r!, 0, "e1");
    assert.notEqual(requestCacheKey(r!, 1, "e1"), base);
    assert.notEqual(requestCacheKey(r!, 0, "e2"), base);
    assert.notEqual(requestCacheKey({ ...r!, temperature: 0.7 }, 0, "e1"), base);
    assert.notEqual(requestCacheKey({ ...r!, seed: 1 }, 0, "e1"), base);
    assert.notEqual(requestCacheKey({ ...r!, model: "other" }, 0, "e1"), base);
    const { tools: _tools, ...noTools } = r!;
    assert.notEqual(requestCacheKey(noTools, 0, "e1"), base);
    const reordered = Object.fromEntries(Object.entries(r!).reverse()) as unknown as ChatRequest;
    assert.equal(requestCacheKey(reordered, 0, "e1"), base);
    assert.equal(requestCacheKey({ ...r!, seed: undefined }, 0, "e1"), base);
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: undefined } }), '{"a":{"d":[1,{"e":3,"f":2}]},"b":1}');
  });

  it("a corrupt or foreign entry is ignored with a warning and fetched again", async () => {
    const c = client();
    const [r] = requests("x");
    await c.complete(r!, { sampleIndex: 0 });
    const [file] = await listFiles(dir);
    assert.ok(file);
    await writeFile(file, '{"version":1,"key":"tor');
    const again = client();
    const res = await again.complete(r!, { sampleIndex: 0 });
    assert.equal(res.cached, false);
    assert.equal(server.calls, 2);
    assert.equal(warnings.filter((w) => /corrupt/.test(w)).length, 1);
    // The re-fetched answer repaired the entry.
    const third = client();
    assert.equal((await third.complete(r!, { sampleIndex: 0 })).cached, true);
    // A valid entry under the wrong name (copied file) is not trusted either.
    const entry = JSON.parse(await readFile(file, "utf8")) as { key: string };
    await writeFile(file, JSON.stringify({ ...entry, key: "0".repeat(64) }));
    assert.equal((await client().complete(r!, { sampleIndex: 0 })).cached, false);
    assert.ok(warnings.some((w) => /invalid entry/.test(w)));
    await rm(dir, { recursive: true });
  });

  it("an entry written before the checksummed format is still a hit (no re-billing), and is stored again checksummed", async () => {
    const c = client();
    const [r] = requests("x");
    const first = await c.complete(r!, { sampleIndex: 0 });
    const [file] = await listFiles(dir);
    const entry = JSON.parse(await readFile(file!, "utf8")) as { key: string; value: unknown };
    // The shape version 0.1 wrote.
    await writeFile(file!, JSON.stringify({ version: 1, key: entry.key, response: entry.value }));
    const again = await client().complete(r!, { sampleIndex: 0 });
    assert.equal(again.cached, true);
    assert.equal(again.content, first.content);
    assert.equal(server.calls, 1);
    assert.match(await readFile(file!, "utf8"), /"sha256":"[0-9a-f]{64}"/);
    await rm(dir, { recursive: true });
  });

  it("concurrent identical requests leave one whole entry and no temp files", async () => {
    const c = client();
    const [r] = requests("x");
    await Promise.all(Array.from({ length: 8 }, () => c.complete(r!, { sampleIndex: 0 })));
    const files = await listFiles(dir);
    assert.equal(files.length, 1, files.join("\n"));
    assert.match(path.basename(path.dirname(files[0]!)), /^[0-9a-f]{2}$/, "sharded by the key's first two hex digits");
    assert.ok((await client().complete(r!, { sampleIndex: 0 })).cached);
    await rm(dir, { recursive: true });
  });

  it("a failed call stores nothing and is asked again next time", async () => {
    const failing = await startScriptedServer({ script: (_req, ctx) => (ctx.callIndex === 0 ? { error: { status: 400, message: "no" } } : { content: "fine" }) });
    try {
      const c = createCachedClient(createOpenAIClient({ baseURL: failing.url, model: "m", env: {} }), { dir, logger });
      const [r] = requests("x");
      await assert.rejects(c.complete(r!, { sampleIndex: 0 }));
      assert.deepEqual(await listFiles(dir), []);
      assert.equal((await c.complete(r!, { sampleIndex: 0 })).content, "fine");
      assert.equal(failing.calls, 2);
    } finally {
      await failing.close();
      await rm(dir, { recursive: true });
    }
  });

  it("an unwritable cache folder warns but still answers", async () => {
    const blocker = path.join(dir, "not-a-folder");
    await writeFile(blocker, "x");
    const c = createCachedClient(createOpenAIClient({ baseURL: server.url, model: "scripted-model", apiKey: KEY, env: {} }), { dir: blocker, logger });
    const [r] = requests("x");
    assert.match((await c.complete(r!, { sampleIndex: 0 })).content ?? "", /answer/);
    assert.ok(warnings.some((w) => /cannot write/.test(w)), warnings.join("\n"));
    await rm(dir, { recursive: true });
  });

  it("stores neither the key nor the request text", async () => {
    const c = client();
    for (const r of requests("SKILL BODY TEXT")) await c.complete(r, { sampleIndex: 0 });
    const files = await listFiles(dir);
    assert.equal(files.length, 4);
    for (const f of files) {
      const text = await readFile(f, "utf8");
      assert.ok(!text.includes(KEY), `${f} contains the key`);
      assert.ok(!text.includes("SKILL BODY TEXT"), `${f} contains request text`);
      assert.ok(!f.includes(KEY));
    }
    assert.ok(!c.id.includes(KEY));
    await rm(dir, { recursive: true });
  });
});
