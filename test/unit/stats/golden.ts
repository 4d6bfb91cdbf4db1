/** Loads the shared golden vectors (never copied into the repo) and small comparison helpers. */
import { readFileSync } from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";

// CommonJS output (no "type": "module"): __dirname is test/unit/stats.
const repoRoot = path.resolve(__dirname, "../../..");
export const goldenPath = path.resolve(repoRoot, "../shared/data/stats-golden.json");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const golden: any = JSON.parse(readFileSync(goldenPath, "utf8"));

/** |actual − expected| ≤ tol·|expected|; for expected = 0 the same tol is used as an absolute bound. */
export function assertRel(actual: number | null | undefined, expected: number | null, tol: number, label: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${label}: expected null, got ${actual}`);
    return;
  }
  assert.ok(typeof actual === "number" && Number.isFinite(actual), `${label}: got ${actual}`);
  const bound = expected === 0 ? tol : tol * Math.abs(expected);
  assert.ok(Math.abs(actual - expected) <= bound, `${label}: ${actual} vs ${expected} (diff ${Math.abs(actual - expected)}, bound ${bound})`);
}

export function assertAbs(actual: number | null | undefined, expected: number | null, tol: number, label: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${label}: expected null, got ${actual}`);
    return;
  }
  assert.ok(typeof actual === "number", `${label}: got ${actual}`);
  assert.ok(Math.abs(actual - expected) <= tol, `${label}: ${actual} vs ${expected} (diff ${Math.abs(actual - expected)})`);
}

export function assertInterval(actual: readonly number[] | null | undefined, expected: readonly number[] | null, tol: number, label: string): void {
  if (expected === null) {
    assert.equal(actual, null, `${label}: expected null`);
    return;
  }
  assert.ok(actual, `${label}: got null`);
  assertAbs(actual[0], expected[0]!, tol, `${label} lower`);
  assertAbs(actual[1], expected[1]!, tol, `${label} upper`);
}
