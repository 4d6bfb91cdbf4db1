/** The pass/fail rule of `npm run bench -- --only memory` (bench/memory.ts), on samples whose answer is known. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memoryVerdict, type MemorySample } from "../../../bench/memory.js";

const TOTAL = 40_000;
/** A sample every 400 runs: rss(done) MiB. */
const series = (rss: (done: number) => number): MemorySample[] => Array.from({ length: 101 }, (_, i) => ({ done: i * 400, rssMiB: rss(i * 400) }));

describe("bench memory: the bound", () => {
  it("flat RSS under the peak bound holds, start-up and the final report left out of the slope", () => {
    // A start-up ramp to 250 MiB, flat with noise, and a rise at the very end (the report reads summaries back).
    const v = memoryVerdict(series((d) => (d < 4000 ? 100 + d / 40 : d >= TOTAL ? 320 : 250 + 3 * Math.sin(d))), 320, TOTAL);
    assert.equal(v.holds, true, v.why);
    assert.ok(Math.abs(v.growthPer1000!) < 0.2, String(v.growthPer1000));
  });

  it("RSS that grows with finished runs fails, with the rate", () => {
    const v = memoryVerdict(series((d) => 150 + (2 * d) / 1000), 230, TOTAL);
    assert.equal(v.holds, false);
    assert.ok(Math.abs(v.growthPer1000! - 2) < 1e-9);
    assert.match(v.why, /growth 2\.00 MiB per 1,000 runs > 1/);
  });

  it("a peak at or over 500 MiB fails; too few samples is no measurement", () => {
    assert.match(memoryVerdict(series(() => 200), 500, TOTAL).why, /peak 500 MiB ≥ 500 MiB/);
    const few = memoryVerdict([{ done: 0, rssMiB: 90 }, { done: 9000, rssMiB: 95 }], 95, TOTAL);
    assert.equal(few.holds, false);
    assert.match(few.why, /too few samples/);
  });
});
