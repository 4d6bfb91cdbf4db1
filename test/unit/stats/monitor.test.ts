// test-requires: shared-data
import { test } from "node:test";
import assert from "node:assert/strict";
import { golden } from "./golden.js";
import { SequentialMonitor, mixtureEValues, type PairOutcomeKind } from "../../../src/core/stats/index.js";
import { bettingCsPath } from "../../support/stats-reference/index.js";

test("SequentialMonitor decides 'helpful' at the golden first crossing (pair 28 of the 30-pair sequence)", () => {
  const bb = golden.sequential.beta_binomial_mixture;
  const mon = new SequentialMonitor({ alpha: 0.05, scope: "all" });
  let decidedAt: number | null = null;
  bb.sequence.forEach((x: number, i: number) => {
    const s = mon.observe({ outcome: x ? "rescued" : "harmed", retrieved: true });
    if (decidedAt === null && s.decided) decidedAt = i + 1;
    assert.ok(Math.abs(s.eHelp - bb.path[i].e_helpful) <= 1e-10 * bb.path[i].e_helpful);
  });
  assert.equal(decidedAt, bb.first_crossing["helpful_2_over_0.05"]);
  assert.equal(mon.state().decided, "helpful");
  assert.equal(mon.state().decidedAt, 28);
  assert.equal(mon.threshold, 40);
});

test("SequentialMonitor mirrors: the swapped sequence decides 'harmful' at the same step; decisions are sticky", () => {
  const bb = golden.sequential.beta_binomial_mixture;
  const mon = new SequentialMonitor({ alpha: 0.05, scope: "all" });
  for (const x of bb.sequence) mon.observe({ outcome: x ? "harmed" : "rescued", retrieved: true });
  assert.equal(mon.state().decided, "harmful");
  assert.equal(mon.state().decidedAt, 28);
  // Many rescues afterwards move the e-values but never the decision.
  for (let i = 0; i < 200; i++) mon.observe({ outcome: "rescued", retrieved: true });
  assert.equal(mon.state().decided, "harmful");
  assert.ok(mon.state().eHelp > 1e6);
});

test("SequentialMonitor with scope 'retrieved' ignores non-retrieved tasks; concordant pairs only move the CS", () => {
  const mon = new SequentialMonitor({ alpha: 0.05 });
  for (let i = 0; i < 50; i++) mon.observe({ outcome: "rescued", retrieved: false });
  let s = mon.state();
  assert.equal(s.skipped, 50);
  assert.equal(s.observed, 0);
  assert.deepEqual(s.cs, [-1, 1]);
  assert.equal(s.eHelp, 1);
  for (let i = 0; i < 10; i++) s = mon.observe({ outcome: "concordant", retrieved: true });
  assert.equal(s.discordant, 0);
  assert.equal(s.eHelp, 1);
  assert.equal(s.decided, null);
  assert.ok(s.cs[0] > -1 && s.cs[1] < 1 && s.cs[0] < 0 && s.cs[1] > 0, `CS narrows around 0: ${s.cs}`);
});

test("SequentialMonitor CS equals the betting CS over the same in-scope sequence; K skills raise the threshold", () => {
  const d = golden.sequential.betting_cs.D_sequence as number[];
  const mon = new SequentialMonitor({ alpha: 0.05, scope: "retrieved", skills: 5 });
  const kinds: PairOutcomeKind[] = d.map((x) => (x > 0 ? "rescued" : x < 0 ? "harmed" : "concordant"));
  let s = mon.state();
  kinds.forEach((k, i) => {
    // Interleave non-retrieved tasks: they must not change anything in scope.
    mon.observe({ outcome: "harmed", retrieved: false });
    s = mon.observe({ outcome: k, retrieved: true });
    assert.equal(s.observed, i + 1);
  });
  const path = bettingCsPath(d, 0.05);
  assert.deepEqual(s.cs, path[path.length - 1]!.theta);
  assert.equal(s.threshold, 200);
  const rescued = d.filter((x) => x > 0).length;
  const harmed = d.filter((x) => x < 0).length;
  assert.equal(s.eHelp, mixtureEValues(rescued, harmed).eHelpful);
  assert.throws(() => new SequentialMonitor({ alpha: 0 }), RangeError);
});

test("SequentialMonitor precision rule: reached once the θ-CS is narrower than the target, never without a target", () => {
  const withTarget = new SequentialMonitor({ alpha: 0.05, scope: "all", precision: 0.5 });
  const without = new SequentialMonitor({ alpha: 0.05, scope: "all" });
  let reachedAt: number | null = null;
  for (let i = 1; i <= 400 && reachedAt === null; i++) {
    const outcome: PairOutcomeKind = i % 3 === 0 ? "rescued" : "concordant";
    const s = withTarget.observe({ outcome, retrieved: true });
    assert.equal(without.observe({ outcome, retrieved: true }).precisionReached, false);
    if (s.precisionReached) {
      reachedAt = i;
      assert.ok(s.cs[1] - s.cs[0] < 0.5);
    }
  }
  assert.ok(reachedAt !== null && reachedAt > 10, `reached at ${reachedAt}`);
});
