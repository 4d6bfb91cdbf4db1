/**
 * The Tripwire stands in for an attempt's AbortController on the direct path: everything the path reads of it
 * must behave as the AbortController it replaced, side by side.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Tripwire, type Abortable } from "../../../src/core/models/tripwire.js";

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
