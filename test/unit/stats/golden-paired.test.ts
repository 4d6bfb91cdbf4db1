// test-requires: shared-data
import { test } from "node:test";
import assert from "node:assert/strict";
import { golden, assertAbs, assertInterval, assertRel } from "./golden.js";
import { analyzeTable, mcnemarExactP, mcnemarMidP, mcnemarMidPFormula, mcnemarOneSided, newcombeInterval, newcombePhi, tangoInterval, wilson } from "../../../src/core/stats/index.js";
import { agrestiMinInterval, mcnemarChi2, waldInterval } from "../../support/stats-reference/index.js";

const pt = golden.paired_tests_and_intervals;

test("Wilson interval: all 14 cases to 1e-12 absolute", () => {
  assert.equal(golden.wilson.cases.length, 14);
  for (const c of golden.wilson.cases) {
    const w = wilson(c.x, c.n, c.alpha);
    assertInterval(w, [c.lower, c.upper], 1e-12, `wilson(${c.x}, ${c.n}, ${c.alpha})`);
  }
});

test("paired tables: all 43 cases, every test and interval", () => {
  assert.equal(pt.cases.length, 43);
  for (const c of pt.cases) {
    const id = c.id as string;
    const t = { a: c.a, b: c.b, c: c.c, d: c.d };
    if (c.n === 0) {
      // Every quantity is undefined on an empty table: intervals null, analysis null (never 0).
      assert.equal(tangoInterval(c.b, c.c, 0, c.alpha), null, id);
      assert.equal(newcombeInterval(t, c.alpha), null, id);
      assert.equal(waldInterval(c.b, c.c, 0, c.alpha), null, id);
      assert.equal(agrestiMinInterval(c.b, c.c, 0, c.alpha), null, id);
      const an = analyzeTable(t, c.alpha);
      for (const k of ["effect", "accEnabled", "accDisabled", "pMid", "pExact", "tango", "rescueShare"] as const) assert.equal(an[k], null, `${id} ${k}`);
      assert.equal(c.theta, null);
      assert.equal(c.mid_p, null);
      continue;
    }
    const an = analyzeTable(t, c.alpha);
    assertRel(an.effect, c.theta, 1e-15, `${id} theta`);
    assertRel(an.accEnabled, c.acc_enabled, 1e-15, `${id} acc+`);
    assertRel(an.accDisabled, c.acc_disabled, 1e-15, `${id} acc-`);
    assertRel(mcnemarExactP(c.b, c.c), c.mcnemar_exact_p, 1e-10, `${id} exact p`);
    assertRel(an.pExact, c.mcnemar_exact_p, 1e-10, `${id} pExact`);
    assertRel(mcnemarMidP(c.b, c.c), c.mid_p, 1e-10, `${id} mid-p`);
    assertRel(an.pMid, c.mid_p, 1e-10, `${id} pMid`);
    assertRel(mcnemarMidPFormula(c.b, c.c), c.mid_p_formula, 1e-10, `${id} mid-p formula`);
    const os = mcnemarOneSided(c.b, c.c);
    assertRel(os.helpfulExact, c.p_helpful_exact, 1e-10, `${id} helpful exact`);
    assertRel(os.harmfulExact, c.p_harmful_exact, 1e-10, `${id} harmful exact`);
    assertRel(os.helpfulMid, c.p_helpful_midp, 1e-10, `${id} helpful mid`);
    assertRel(os.harmfulMid, c.p_harmful_midp, 1e-10, `${id} harmful mid`);
    const chi = mcnemarChi2(c.b, c.c, false);
    const chiCc = mcnemarChi2(c.b, c.c, true);
    assertRel(chi?.statistic ?? null, c.mcnemar_chi2, 1e-10, `${id} chi2`);
    assertRel(chi?.p ?? null, c.mcnemar_chi2_p, 1e-10, `${id} chi2 p`);
    assertRel(chiCc?.statistic ?? null, c.mcnemar_chi2_cc, 1e-10, `${id} chi2 cc`);
    assertRel(chiCc?.p ?? null, c.mcnemar_chi2_cc_p, 1e-10, `${id} chi2 cc p`);
    if (c.wilson_rescue_share === null) assert.equal(an.rescueShare, null, id);
    else {
      assertRel(an.rescueShare?.estimate, c.wilson_rescue_share.estimate, 1e-15, `${id} rescue share`);
      assertInterval(an.rescueShare?.wilson ?? null, [c.wilson_rescue_share.lower, c.wilson_rescue_share.upper], 1e-12, `${id} rescue wilson`);
    }
    assertInterval(wilson(c.a + c.b, c.n, c.alpha), c.wilson_acc_enabled, 1e-12, `${id} wilson acc+`);
    assertInterval(wilson(c.a + c.c, c.n, c.alpha), c.wilson_acc_disabled, 1e-12, `${id} wilson acc-`);
    assertAbs(newcombePhi(t), c.newcombe_phi, 1e-12, `${id} phi*`);
    assertInterval(newcombeInterval(t, c.alpha, 10), c.ci.newcombe10, 1e-12, `${id} newcombe10`);
    assertInterval(an.newcombe10, c.ci.newcombe10, 1e-12, `${id} analysis newcombe10`);
    assertInterval(newcombeInterval(t, c.alpha, 8), c.ci.newcombe8_uncorrected_phi, 1e-12, `${id} newcombe8`);
    assertInterval(tangoInterval(c.b, c.c, c.n, c.alpha), c.ci.tango, 1e-9, `${id} tango`);
    assertInterval(an.tango, c.ci.tango, 1e-9, `${id} analysis tango`);
    assertInterval(agrestiMinInterval(c.b, c.c, c.n, c.alpha), c.ci.agresti_min, 1e-12, `${id} agresti-min`);
    assertInterval(waldInterval(c.b, c.c, c.n, c.alpha), c.ci.wald, 1e-12, `${id} wald`);
  }
});

test("Tango reaches the golden limits to 1e-12, not only the 1e-9 contract", () => {
  let worst = 0;
  for (const c of pt.cases) {
    if (c.n === 0) continue;
    const [lo, hi] = tangoInterval(c.b, c.c, c.n, c.alpha)!;
    worst = Math.max(worst, Math.abs(lo - c.ci.tango[0]), Math.abs(hi - c.ci.tango[1]));
  }
  assert.ok(worst < 1e-12, `worst Tango difference ${worst}`);
});

test("published checks: all 12 limits round to the published value", () => {
  assert.equal(pt.published_checks.length, 12);
  const byId = new Map(pt.cases.map((c: { id: string }) => [c.id, c]));
  for (const p of pt.published_checks) {
    const c = byId.get(p.case) as { a: number; b: number; c: number; d: number; n: number; alpha: number };
    assert.ok(c, `case ${p.case} present`);
    const t = { a: c.a, b: c.b, c: c.c, d: c.d };
    const ci =
      p.method === "newcombe10" ? newcombeInterval(t, c.alpha, 10)
      : p.method === "newcombe8_uncorrected_phi" ? newcombeInterval(t, c.alpha, 8)
      : p.method === "tango" ? tangoInterval(c.b, c.c, c.n, c.alpha)
      : p.method === "wald" ? waldInterval(c.b, c.c, c.n, c.alpha)
      : p.method === "agresti_min" ? agrestiMinInterval(c.b, c.c, c.n, c.alpha)
      : undefined;
    assert.ok(ci, `${p.case}: unknown method ${p.method}`);
    const scale = 10 ** p.dp;
    assert.deepEqual(ci.map((x) => Math.round(x * scale) / scale), p.value, `${p.case} ${p.method}`);
  }
});

test("coherence: Tango 'excludes 0' equals the asymptotic McNemar verdict on all 7,285 tables; mid-p differs in 32", () => {
  const coh = pt.coherence;
  let tables = 0;
  let tangoVsChi = 0;
  let tangoVsMid = 0;
  for (const n of [5, 10, 20, 30, 50, 100]) {
    for (let b = 0; b <= n; b++) {
      for (let c = 0; b + c <= n; c++) {
        if (b + c === 0) continue;
        tables++;
        const [lo, hi] = tangoInterval(b, c, n, 0.05)!;
        const excludes = lo > 0 || hi < 0;
        if (excludes !== mcnemarChi2(b, c)!.p < 0.05) tangoVsChi++;
        if (excludes !== mcnemarMidP(b, c) < 0.05) tangoVsMid++;
      }
    }
  }
  assert.equal(tables, coh.tables);
  assert.equal(tangoVsChi, coh.tango_vs_asymptotic_mcnemar_disagreements);
  assert.equal(tangoVsMid, coh.tango_vs_midp_disagreements);
  for (const ex of coh.midp_disagreement_examples) {
    assertInterval(tangoInterval(ex.b, ex.c, ex.n, 0.05), ex.tango, 1e-9, `coherence example ${ex.b},${ex.c},${ex.n}`);
    assertRel(mcnemarMidP(ex.b, ex.c), ex.mid_p, 1e-10, `coherence mid-p ${ex.b},${ex.c}`);
  }
});

test("independent_crosscheck block is informational (R vs the golden values themselves); nothing of ours to compare", () => {
  // The block records max |R − golden| per method; our own agreement with the golden values is asserted above.
  assert.equal(pt.independent_crosscheck.performed, true);
  assert.equal(pt.independent_crosscheck.cases_compared, 42);
});
