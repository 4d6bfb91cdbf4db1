import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { toVerdict } from "../../../src/core/grading/python-grader.js";
import { HostMessageSchema, ProcessMessageSchema } from "../../../src/core/sandbox/protocol.js";
import { parseJsonLossless, stringifyJsonLossless } from "../../../src/core/tasks/evalplus-json.js";

test("protocol: well-formed messages parse; malformed or forged-looking ones are rejected", () => {
  const run = { type: "run", job: { mode: "exec", code: "print(1)", capMs: 100 } };
  assert.ok(HostMessageSchema.safeParse(run).success);
  assert.ok(!HostMessageSchema.safeParse({ ...run, job: { mode: "exec", code: "x" } }).success, "capMs is required");
  assert.ok(!HostMessageSchema.safeParse({ ...run, job: { ...run.job, capMs: -1 } }).success);
  const ok = (m: unknown) => ProcessMessageSchema.safeParse(m).success;
  assert.ok(ok({ type: "out", i: 0, v: { t: [1, { f: "2.5" }] } }));
  assert.ok(ok({ type: "out", i: 3, h: "a".repeat(64), n: 10 }));
  assert.ok(!ok({ type: "out", i: 0, v: 2.5 }), "a float must be tagged");
  assert.ok(!ok({ type: "out", i: -1, v: 1 }));
  assert.ok(!ok({ type: "out", i: 0, h: "not-a-digest" }));
  assert.ok(!ok({ type: "raise", i: 0, kind: "pass", error: "x" }), "an answer cannot claim anything but a failure");
  assert.ok(!ok({ type: "result", id: 1, nonce: "abc", result: { status: "pass", count: 3 } }), "the old verdict message does not exist");
  assert.ok(!ok({ type: "ready", version: 999, pyodide: "x" }), "protocol version is checked");
  assert.ok(!ok({ type: "raise", kind: "error", error: "x".repeat(5000) }), "strings are bounded");
});

test("verdict reasons name the input, expected and actual, or the error and where it happened", () => {
  assert.deepEqual(toVerdict({ status: "pass", count: 7 }, 7, 512), { pass: true, reason: "passed all 7 inputs" });
  assert.equal(toVerdict({ status: "fail", kind: "wrong-answer", phase: "plus", index: 12, input: "[1, [2, 3]]", expected: "5", actual: "6" }, 20, 512).reason, "plus input #12 [1, [2, 3]]: expected 5, got 6");
  assert.equal(toVerdict({ status: "fail", kind: "timeout", phase: "base", index: 0, input: "[1]", error: "timed out after 4.0 s" }, 1, 512).reason, "timeout on base input #0 [1]: timed out after 4.0 s");
  assert.equal(toVerdict({ status: "fail", kind: "memory", phase: "base", index: 2, error: "MemoryError: " }, 3, 256).reason, "out of memory (cap 256 MB) on base input #2: MemoryError: ");
  assert.equal(toVerdict({ status: "fail", kind: "error", error: "the answer failed to load: SyntaxError: x" }, 3, 512).reason, "the answer failed to load: SyntaxError: x");
  assert.equal(toVerdict({ status: "fail", kind: "sandbox", error: "the sandbox process ended (exit code 3)" }, 3, 512).failure?.kind, "sandbox");
});

test("lossless JSON: any JSON text comes back byte-identical, and plain values stay plain (property)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v);
      const parsed = parseJsonLossless(text);
      assert.equal(stringifyJsonLossless(parsed), text);
      // Markers appear only for numbers a JS number would misrepresent (e.g. -2^53, 1e+21).
      if (!/\d{16}|e\+/.test(text)) assert.deepEqual(parsed, JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

test("lossless JSON: every Python-only number token survives parse + stringify (property)", () => {
  const token = fc.oneof(
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 40n }).map((b) => (b % 2n ? "-" : "") + b.toString()),
    fc.integer({ min: -1000, max: 1000 }).map((i) => `${i}.0`),
    fc.constantFrom("Infinity", "-Infinity", "NaN", "1e+20", "-0.0", "2.5e+300"),
  );
  fc.assert(
    fc.property(fc.array(token, { minLength: 1, maxLength: 8 }), (tokens) => {
      const text = `[${tokens.join(",")}]`;
      assert.equal(stringifyJsonLossless(parseJsonLossless(text)), text);
    }),
    { numRuns: 300 },
  );
});
