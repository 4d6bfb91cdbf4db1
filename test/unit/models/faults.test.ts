// Every transport fault the scripted server can inject, at a 20% rate, must end with the same answers as a
// clean run, with each request answered by the script exactly once (retries happen in the client only).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createOpenAIClient, type AttemptDeadline } from "../../../src/core/models/openai-client.js";
import type { ChatRequest, ChatResponse } from "../../../src/core/models/types.js";
import { startScriptedServer, TRANSPORT_FAULTS, type FaultKind, type ScriptFn } from "../../support/scripted-server.js";

const N = 30;
const MIXED_N = 80;

const script: ScriptFn = (req) => {
  const text = req.messages[req.messages.length - 1]!.content ?? "";
  if (req.tools) return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: `skill-for-${text}` }) }] };
  return { content: `answer to ${text}: ${"x".repeat(text.length)}` };
};

/** The text of a request's last message (unique per request here: "task <i>"), from either side of the wire. */
function lastText(messages: ReadonlyArray<{ content?: unknown }>): string {
  return String(messages[messages.length - 1]?.content ?? "");
}

/** The comparable part of a response: what the agent loop acts on. */
function outcome(r: ChatResponse): unknown {
  return { content: r.content, toolCalls: r.toolCalls.map((t) => [t.name, t.arguments]), finishReason: r.finishReason };
}

async function runAll(kinds: FaultKind[] | undefined, stream: boolean, retryAfterSeconds?: number, n = N): Promise<{ outcomes: unknown[]; calls: number; faults: Record<string, number>; attempts: number; perRequest: number[] }> {
  const server = await startScriptedServer({ script, ...(kinds ? { faults: { rate: 0.2, seed: 42, kinds, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) } } : {}) });
  try {
    // An attempt's deadline fires when the server reports that very request stalled, never by time: a timer short
    // enough to keep stalls cheap would also fire on ordinary requests of a loaded machine.
    const bodies = new Map<number, string>();
    server.onEvent((e) => {
      if (e.type === "request") bodies.set(e.seq, lastText(e.body.messages));
    });
    const attemptDeadline = (request: ChatRequest): AttemptDeadline => {
      const controller = new AbortController();
      const text = lastText(request.messages);
      const off = server.onEvent((e) => {
        if (e.type === "stalled" && bodies.get(e.seq) === text) controller.abort();
      });
      return { signal: controller.signal, dispose: off };
    };
    // No backoff beyond what the server asks for keeps the test fast.
    const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", stream, timeoutMs: 600_000, attemptDeadline, retryBaseMs: 1, maxBackoffMs: 5, maxRetries: 8, env: {} });
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.complete(
          { model: "scripted-model", messages: [{ role: "user", content: `task ${i}` }], ...(i % 3 === 0 ? { tools: [{ name: "load_skill", description: "d", parameters: { type: "object" } }] } : {}) },
          { sampleIndex: 0 },
        ),
      ),
    );
    return { outcomes: responses.map(outcome), calls: server.calls, faults: { ...server.faultsInjected }, attempts: responses.reduce((s, r) => s + (r.attempts ?? 1), 0), perRequest: responses.map((r) => r.attempts ?? 1) };
  } finally {
    await server.close();
  }
}

/**
 * Every attempt either met an injected fault or was served by the script, and transport faults never reach
 * the script: each request is served exactly once. (Stalls end by the event-driven deadline above, so no timer can
 * fire on an ordinary request and make the script serve it twice.)
 */
function assertAccounting(run: { calls: number; faults: Record<string, number>; attempts: number }, n = N): void {
  const faults = Object.values(run.faults).reduce((a, b) => a + b, 0);
  assert.equal(run.attempts, run.calls + faults, `attempts ${run.attempts} = served ${run.calls} + faults ${faults}`);
  assert.equal(run.calls, n, "each request is served by the script exactly once");
}

// Each test owns its server, so a few run side by side.
describe("fault injection at 20%", { concurrency: 4 }, () => {
  for (const stream of [false, true]) {
    const mode = stream ? "streaming" : "non-streaming";
    it(`a clean run answers every request once (${mode})`, async () => {
      const clean = await runAll(undefined, stream);
      assert.equal(clean.calls, N);
      assert.equal(clean.attempts, N);
    });

    for (const kind of TRANSPORT_FAULTS) {
      it(`${kind}: same answers as a clean run (${mode})`, async () => {
        const clean = await runAll(undefined, stream);
        const faulty = await runAll([kind], stream);
        assert.ok((faulty.faults[kind] ?? 0) >= 2, `expected some ${kind} faults, got ${JSON.stringify(faulty.faults)}`);
        assert.deepEqual(faulty.outcomes, clean.outcomes);
        assertAccounting(faulty);
      });
    }

    it(`all transport faults mixed: same answers as a clean run (${mode})`, async () => {
      // Enough requests that 20% of them exceed the number of kinds; Retry-After 1 s is measured on its own
      // above, here it would only add waiting.
      const clean = await runAll(undefined, stream, undefined, MIXED_N);
      const faulty = await runAll(TRANSPORT_FAULTS, stream, 0, MIXED_N);
      const injected = Object.values(faulty.faults).reduce((a, b) => a + b, 0);
      assert.ok(injected >= TRANSPORT_FAULTS.length, JSON.stringify(faulty.faults));
      for (const kind of TRANSPORT_FAULTS) assert.ok((faulty.faults[kind] ?? 0) >= 1, `every kind is covered: ${JSON.stringify(faulty.faults)}`);
      assert.deepEqual(faulty.outcomes, clean.outcomes);
      assertAccounting(faulty, MIXED_N);
    });
  }

  it("is deterministic for a seed", async () => {
    // Kinds that cost no waiting, so this test stays quick.
    const quick: FaultKind[] = ["500", "503", "reset", "truncated-stream", "malformed-json"];
    const a = await runAll(quick, false);
    const b = await runAll(quick, false);
    // Concurrent requests arrive in a different order each time; faults follow the request, not the order.
    assert.deepEqual(a.faults, b.faults);
    assert.deepEqual(a.perRequest, b.perRequest);
    assert.ok(a.perRequest.some((n) => n > 1));
  });

  it("bad-tool-args is served and counted as a call, with invalid JSON arguments", async () => {
    const server = await startScriptedServer({ script, faults: { rate: 0.5, seed: 3, kinds: ["bad-tool-args"] } });
    try {
      const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", env: {} });
      const tools = [{ name: "load_skill", description: "d", parameters: { type: "object" } }];
      const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => client.complete({ model: "m", messages: [{ role: "user", content: `t${i}` }], tools }, { sampleIndex: 0 })));
      const broken = rs.filter((r) => {
        try {
          JSON.parse(r.toolCalls[0]!.arguments);
          return false;
        } catch {
          return true;
        }
      });
      assert.equal(server.calls, 20);
      assert.equal(broken.length, server.faultsInjected["bad-tool-args"]);
      assert.ok(broken.length >= 3 && broken.length <= 17, `broken ${broken.length}`);
      assert.ok(rs.every((r) => r.attempts === 1), "a model-output fault is not retried by the client");
    } finally {
      await server.close();
    }
  });
});
