// The scripted server's own contract (other suites build on it): routes, auth, latency, reset, and a close()
// that does not hang on stalled requests.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startScriptedServer } from "../../support/scripted-server.js";

const post = (url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> =>
  fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body), signal });

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
    const asked: number[] = [];
    let release!: () => void;
    // The injected delay holds the first reply until the test releases it: the order of events shows the wait.
    const delay = (ms: number) => {
      asked.push(ms);
      return asked.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    };
    const server = await startScriptedServer({ latencyMs: 60, delay, script: (_req, ctx) => (seen.push(ctx.callIndex), { content: "x" }) });
    try {
      const first = post(server.url, { model: "m", messages: [{ role: "user", content: "hi" }] });
      await server.waitFor("request", (e) => e.seq === 1);
      assert.deepEqual(asked, [60]);
      assert.deepEqual(seen, [], "the script is not asked before the latency has passed");
      release();
      assert.equal((await first).status, 200);
      await post(server.url, { model: "m", messages: [{ role: "user", content: "again" }] });
      assert.deepEqual(seen, [0, 1]);
      assert.deepEqual(asked, [60, 60]);
      assert.equal(server.requests[1]!.messages[0]!.content, "again");
      assert.deepEqual(server.events.map((e) => `${e.type} ${e.seq}`), ["request 1", "responded 1", "request 2", "responded 2"]);
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

  it("close() returns with stalled requests open, and ends them with a connection error", { timeout: 60_000 }, async () => {
    const server = await startScriptedServer({ script: () => ({ content: "x" }), faults: { rate: 1, kinds: ["stall"] } });
    const pending = [0, 1, 2].map((i) => post(server.url, { model: "m", messages: [{ role: "user", content: `s${i}` }], stream: i === 2 }).then((r) => r.text()).catch((e: unknown) => e));
    for (const seq of [1, 2, 3]) await server.waitFor("stalled", (e) => e.seq === seq);
    // A close that hung would run into the test's timeout.
    await server.close();
    const results = await Promise.all(pending);
    assert.ok(results.every((r) => r instanceof Error), "stalled requests end with a connection error");
    assert.equal(server.faultsInjected.stall, 3);
  });

  it("reports what happens to each request: chunks as they are written, and a client that hangs up", async () => {
    const server = await startScriptedServer({ script: () => ({ content: "abc" }), faults: { rate: 1, kinds: ["stall"] } });
    try {
      const ac = new AbortController();
      const pending = post(server.url, { model: "m", messages: [{ role: "user", content: "s" }], stream: true }, {}, ac.signal).then((r) => r.text()).catch((e: unknown) => e);
      const chunk = await server.waitFor("chunk");
      assert.deepEqual([chunk.seq, chunk.n], [1, 1]);
      ac.abort();
      await server.waitFor("aborted", (e) => e.seq === 1);
      assert.ok((await pending) instanceof Error);
      assert.deepEqual(server.events.map((e) => e.type), ["request", "chunk", "stalled", "aborted"]);
      // A stall is a transport fault: the script never ran, so nothing was abandoned.
      assert.deepEqual([server.calls, server.abandoned], [0, 0]);
    } finally {
      await server.close();
    }
  });

  it("counts a scripted reply the client hung up on before it came as abandoned (a slow reply meeting the client's timeout)", async () => {
    let release!: () => void;
    let entered!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const inScript = new Promise<void>((r) => (entered = r));
    const server = await startScriptedServer({
      script: async (_req, { callIndex }) => {
        if (callIndex === 0) {
          entered();
          await held;
        }
        return { content: "late" };
      },
    });
    try {
      const ac = new AbortController();
      const body = { model: "m", messages: [{ role: "user", content: "s" }] };
      const pending = post(server.url, body, {}, ac.signal).catch((e: unknown) => e);
      await inScript;
      ac.abort();
      await server.waitFor("aborted", (e) => e.seq === 1);
      release();
      assert.ok((await pending) instanceof Error);
      // The client asks again, and this time reads the reply.
      const again = (await (await post(server.url, body)).json()) as { choices: Array<{ message: { content: string } }> };
      assert.equal(again.choices[0]!.message.content, "late");
      assert.deepEqual([server.calls, server.abandoned], [2, 1]);
    } finally {
      await server.close();
    }
  });
});
