/**
 * The Tripwire stands in for an attempt's AbortController on the direct path: everything the path reads of it
 * must behave as the AbortController it replaced, side by side.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CancelledError } from "../../../src/core/errors.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { Tripwire, type Abortable } from "../../../src/core/models/tripwire.js";
import { startScriptedServer } from "../../support/scripted-server.js";

/** What happened, step by step, when the same script runs on an abortable. */
function script(a: Abortable, abort: () => void): string[] {
  const seen: string[] = [];
  const first = () => seen.push("first");
  const second = () => seen.push("second");
  const removed = () => seen.push("removed");
  a.addEventListener("abort", first, { once: true });
  a.addEventListener("abort", second, { once: true });
  a.addEventListener("abort", first, { once: true }); // the same listener again: still once
  a.addEventListener("abort", removed, { once: true });
  a.removeEventListener("abort", removed);
  seen.push(`before: ${a.aborted}`);
  abort();
  abort(); // a second abort changes nothing
  a.addEventListener("abort", () => seen.push("late"), { once: true });
  abort();
  const reason = a.reason as DOMException;
  seen.push(`after: ${a.aborted} ${reason instanceof DOMException} ${reason.name} ${reason.message}`);
  return seen;
}

describe("Tripwire", () => {
  it("calls its listeners as an AbortController's signal does: once each, in order, none added late or removed", () => {
    const c = new AbortController();
    const t = new Tripwire();
    const expected = script(c.signal, () => c.abort());
    assert.deepEqual(expected, ["before: false", "first", "second", "after: true true AbortError This operation was aborted"]);
    assert.deepEqual(script(t, () => t.abort()), expected);
  });

  it("its AbortSignal follows it, made before the abort or after, with the same reason", () => {
    const before = new Tripwire();
    const early = before.signal;
    let heard = 0;
    early.addEventListener("abort", () => heard++);
    assert.equal(early.aborted, false);
    before.abort();
    assert.equal(heard, 1);
    assert.equal(early.aborted, true);
    assert.equal(early.reason, before.reason);
    assert.equal(before.signal, early, "one signal per tripwire");

    const after = new Tripwire();
    after.abort();
    assert.equal(after.signal.aborted, true);
    assert.equal(after.signal.reason, after.reason);
  });

  it("a listener that throws does not stop the others; the error goes to whoever aborted", () => {
    const t = new Tripwire();
    const seen: string[] = [];
    t.addEventListener("abort", () => {
      throw new Error("listener failed");
    });
    t.addEventListener("abort", () => seen.push("second"));
    assert.throws(() => t.abort(), /listener failed/);
    assert.deepEqual(seen, ["second"]);
    assert.equal(t.aborted, true);
  });
});

describe("a caller's cancel through the client (one listener on its signal for every attempt in flight)", () => {
  for (const stream of [false, true]) {
    it(`stops every call in flight under the signal, hangs up each request, and fails a later call at once (${stream ? "streamed" : "direct"})`, async () => {
      // Replies are held for ever: only the cancel can end these calls.
      const server = await startScriptedServer({ script: () => ({ content: "never sent" }), delay: () => new Promise<void>(() => undefined) });
      try {
        const client = createOpenAIClient({ baseURL: server.url, model: "scripted-model", stream, env: {} });
        const controller = new AbortController();
        const other = new AbortController();
        let requests = 0;
        let hungUp = 0;
        const three = new Promise<void>((resolve) => server.onEvent((e) => e.type === "request" && ++requests === 4 && resolve()));
        const gone = new Promise<void>((resolve) => server.onEvent((e) => e.type === "aborted" && ++hungUp === 3 && resolve()));
        const ask = (text: string, signal: AbortSignal) => client.complete({ model: "scripted-model", messages: [{ role: "user", content: text }] }, { signal, sampleIndex: 0 });
        const calls = ["a", "b", "c"].map((t) => ask(t, controller.signal).then(() => "answered", (e: unknown) => e));
        // A call under another signal is not touched by this cancel.
        let dSettled = false;
        const untouched = ask("d", other.signal).then(
          () => "answered",
          (e: unknown) => e,
        );
        void untouched.finally(() => (dSettled = true));
        await three;
        controller.abort();
        for (const outcome of await Promise.all(calls)) assert.ok(outcome instanceof CancelledError, String(outcome));
        await gone;
        // The cancel's listeners ran in one go: had it reached the fourth call, that call would have settled by now.
        assert.equal(dSettled, false, "the call under another signal is still waiting");
        assert.ok((await ask("late", controller.signal).catch((e: unknown) => e)) instanceof CancelledError, "a call under a cancelled signal fails at once");
        assert.equal(requests, 4, "the late call sent nothing");
        other.abort();
        assert.ok((await untouched) instanceof CancelledError);
      } finally {
        await server.close();
      }
    });
  }
});
