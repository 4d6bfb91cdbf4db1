// The scripted server's own contract (other suites build on it): routes, auth, latency, reset, and a close()
// that does not hang on stalled requests.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startScriptedServer } from "../../support/scripted-server.js";

const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

describe("scripted server", () => {
  it("lists models, answers 404 for other routes and 400 for bodies that are not chat requests", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), models: ["a", "b"] });
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
      assert.deepEqual(models.data.map((m) => m.id), ["a", "b"]);
      assert.equal((await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" })).status, 404);
      assert.equal((await post(server.url, "{not json")).status, 400);
      assert.equal((await post(server.url, { model: "m" })).status, 400);
      assert.equal(server.calls, 0);
    } finally {
      await server.close();
    }
  });

  it("requireKey: 401 without the right Bearer key, on every route, without echoing what was sent", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), requireKey: "sk-right" });
    try {
      const wrong = await post(server.url, { model: "m", messages: [] }, { authorization: "Bearer sk-wrong-SECRET" });
      assert.equal(wrong.status, 401);
      assert.ok(!(await wrong.text()).includes("sk-wrong-SECRET"));
      assert.equal((await fetch(`${server.url}/models`)).status, 401);
      const right = await post(server.url, { model: "m", messages: [{ role: "user", content: "hi" }] }, { authorization: "Bearer sk-right" });
      assert.equal(right.status, 200);
      assert.equal(server.calls, 1);
    } finally {
      await server.close();
    }
  });

  it("waits latencyMs before answering and passes callIndex in order", async () => {
    const seen: number[] = [];
    const server = await startScriptedServer({ latencyMs: 60, script: (_req, ctx) => (seen.push(ctx.callIndex), { content: "x" }) });
    try {
      const t0 = performance.now();
      const r = await post(server.url, { model: "m", messages: [{ role: "user", content: "hi" }] });
      assert.equal(r.status, 200);
      assert.ok(performance.now() - t0 >= 55);
      await post(server.url, { model: "m", messages: [{ role: "user", content: "again" }] });
      assert.deepEqual(seen, [0, 1]);
      assert.equal(server.requests[1]!.messages[0]!.content, "again");
    } finally {
      await server.close();
    }
  });

  it("reset() clears counters and the fault history: the same requests meet the same faults again", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), faults: { rate: 0.5, seed: 5, kinds: ["500", "503"] } });
    try {
      const statuses = async (): Promise<number[]> => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++) out.push((await post(server.url, { model: "m", messages: [{ role: "user", content: `q${i}` }] })).status);
        return out;
      };
      const first = await statuses();
      assert.ok(first.some((s) => s !== 200) && first.some((s) => s === 200), first.join(","));
      const injected = { ...server.faultsInjected };
      server.reset();
      assert.equal(server.calls, 0);
      assert.deepEqual(server.faultsInjected, {});
      assert.deepEqual(await statuses(), first);
      assert.deepEqual(server.faultsInjected, injected);
    } finally {
      await server.close();
    }
  });

  it("close() returns promptly with stalled requests open", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), faults: { rate: 1, kinds: ["stall"] } });
    const pending = [0, 1, 2].map((i) => post(server.url, { model: "m", messages: [{ role: "user", content: `s${i}` }], stream: i === 2 }).then((r) => r.text()).catch((e: unknown) => e));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await server.close();
    assert.ok(performance.now() - t0 < 500, "close did not hang");
    const results = await Promise.all(pending);
    assert.ok(results.every((r) => r instanceof Error), "stalled requests end with a connection error");
    assert.equal(server.faultsInjected.stall, 3);
  });
});
