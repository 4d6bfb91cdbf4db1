// test-requires: shared-data
import { test } from "node:test";
import assert from "node:assert/strict";
import { golden, assertAbs, assertRel } from "./golden.js";
import { BettingCS, mixtureEValues } from "../../../src/core/stats/index.js";
import { bettingCsPath, bettingLogCapital, fixedSampleDiscordant, mixtureConfidenceSequence, normalMixtureBoundary, normalMixtureOptimalRho, sprtAsn, sprtFirstDecision, sprtLlrPath, sprtThresholds, toUnit } from "../../support/stats-reference/index.js";

const seq = golden.sequential;

test("SPRT: thresholds, LLR path, first decision, ASN and the fixed-n comparison to 1e-12", () => {
  const s = seq.sprt;
  for (const t of s.thresholds) {
    const th = sprtThresholds(t.alpha, t.beta);
    assertRel(th.upperA, t.upper_A, 1e-12, `A(${t.alpha}, ${t.beta})`);
    assertRel(th.lowerB, t.lower_B, 1e-12, `B(${t.alpha}, ${t.beta})`);
  }
  const path = sprtLlrPath(s.sequence, s.pi1);
  assert.equal(path.length, s.llr_path.length);
  path.forEach((v, i) => assertAbs(v, s.llr_path[i], 1e-12, `llr[${i}]`));
  const first = sprtFirstDecision(s.sequence, s.pi1, s.alpha, s.beta);
  assert.deepEqual(first, { index: s.first_decision.index, decision: "reject-h0" });
  const asn = sprtAsn(s.asn.pi1, s.asn.alpha, s.asn.beta);
  assertRel(asn.ezH0, s.asn.E_Z_under_H0, 1e-12, "E0[Z]");
  assertRel(asn.ezH1, s.asn.E_Z_under_H1, 1e-12, "E1[Z]");
  assertRel(asn.asnH0, s.asn.ASN_discordant_H0, 1e-12, "ASN H0");
  assertRel(asn.asnH1, s.asn.ASN_discordant_H1, 1e-12, "ASN H1");
  const fixed = fixedSampleDiscordant(s.asn.pi1, s.asn.alpha, s.asn.beta)!;
  const want = s.asn.fixed_sample_discordant_pairs;
  assert.equal(fixed.m, want.m);
  assert.equal(fixed.criticalK, want.critical_k);
  assertRel(fixed.size, want.size, 1e-12, "size");
  assertRel(fixed.power, want.power, 1e-12, "power");
});

test("beta-binomial mixture: all 13 e-value rows to 1e-10 relative", () => {
  const bb = seq.beta_binomial_mixture;
  assert.equal(bb.evalues.length, 13);
  for (const r of bb.evalues) {
    const e = mixtureEValues(r.S, r.F);
    const id = `(S=${r.S}, F=${r.F})`;
    assertRel(e.logETwoSided, r.log_e_two_sided, 1e-10, `${id} log E`);
    assertRel(e.eTwoSided, r.e_two_sided, 1e-10, `${id} E`);
    assertRel(e.eHelpful, r.e_helpful, 1e-10, `${id} E help`);
    assertRel(e.eHarmful, r.e_harmful, 1e-10, `${id} E harm`);
    assertRel(e.iHalf, r.I_half, 1e-10, `${id} I`);
  }
});

test("beta-binomial mixture: the 30-step path and its first crossings (28 two-sided at 1/α, 28 helpful at 2/α)", () => {
  const bb = seq.beta_binomial_mixture;
  let S = 0;
  let F = 0;
  let firstTwo: number | null = null;
  let firstHelp: number | null = null;
  bb.sequence.forEach((x: number, i: number) => {
    if (x) S++;
    else F++;
    const row = bb.path[i];
    assert.deepEqual([row.i, row.S, row.F], [i + 1, S, F]);
    const e = mixtureEValues(S, F);
    assertRel(e.eTwoSided, row.e_two_sided, 1e-10, `path ${i + 1} E`);
    assertRel(e.eHelpful, row.e_helpful, 1e-10, `path ${i + 1} E help`);
    assertRel(e.eHarmful, row.e_harmful, 1e-10, `path ${i + 1} E harm`);
    if (firstTwo === null && e.eTwoSided >= 1 / 0.05) firstTwo = i + 1;
    if (firstHelp === null && e.eHelpful >= 2 / 0.05) firstHelp = i + 1;
  });
  assert.equal(firstTwo, bb.first_crossing["two_sided_1_over_0.05"]);
  assert.equal(firstHelp, bb.first_crossing["helpful_2_over_0.05"]);
});

test("beta-binomial mixture: all 10 confidence-sequence endpoints to 1e-9", () => {
  for (const r of seq.beta_binomial_mixture.confidence_sequence) {
    const [lo, hi] = mixtureConfidenceSequence(r.S, r.F, r.alpha);
    assertAbs(lo, r.lower, 1e-9, `CS(${r.S}, ${r.F}, ${r.alpha}) lower`);
    assertAbs(hi, r.upper, 1e-9, `CS(${r.S}, ${r.F}, ${r.alpha}) upper`);
  }
});

test("normal mixture: every boundary row to 1e-12, ρ_opt to 1e-6", () => {
  const nm = seq.normal_mixture;
  for (const r of nm.rows) {
    const b = normalMixtureBoundary(r.t, r.rho, r.alpha);
    assertRel(b, r.boundary, 1e-12, `boundary(t=${r.t}, ρ=${r.rho}, α=${r.alpha})`);
    assertRel(b / r.t, r.halfwidth_mean, 1e-12, "halfwidth mean");
    assertRel((2 * b) / r.t, r.halfwidth_delta, 1e-12, "halfwidth delta");
  }
  for (const r of nm.rho_opt) {
    const rho = normalMixtureOptimalRho(r.t_opt, r.alpha);
    assertRel(rho, r.rho_opt, 1e-6, `ρ_opt(t=${r.t_opt}, α=${r.alpha})`);
    assertRel(normalMixtureBoundary(r.t_opt, rho, r.alpha) / r.t_opt, r.halfwidth_mean_at_t_opt, 1e-9, "halfwidth at ρ_opt");
  }
});

test("betting CS: log capital at all 30 (t, m) points to 1e-9; grid endpoints ±0.001; first exclusion of 0 at t = 32", () => {
  const bc = seq.betting_cs;
  const xs = bc.D_sequence.map(toUnit);
  assert.equal(bc.capital_points.length, 30);
  for (const p of bc.capital_points) {
    const k = bettingLogCapital(xs, p.t, p.m, bc.alpha);
    assertAbs(k.logKPlus, p.log_K_plus, 1e-9, `log K+ (t=${p.t}, m=${p.m})`);
    assertAbs(k.logKMinus, p.log_K_minus, 1e-9, `log K- (t=${p.t}, m=${p.m})`);
    assertAbs(k.logKHedged, p.log_K_hedged, 1e-9, `log K (t=${p.t}, m=${p.m})`);
  }
  const path = bettingCsPath(bc.D_sequence, bc.alpha);
  assert.equal(bc.cs.length, 8);
  for (const c of bc.cs) {
    const at = path[c.t - 1]!;
    assertAbs(at.mean[0], c.mean_lower, 0.001 + 1e-12, `t=${c.t} mean lower`);
    assertAbs(at.mean[1], c.mean_upper, 0.001 + 1e-12, `t=${c.t} mean upper`);
    assertAbs(at.theta[0], c.delta_lower, 0.002 + 1e-12, `t=${c.t} θ lower`);
    assertAbs(at.theta[1], c.delta_upper, 0.002 + 1e-12, `t=${c.t} θ upper`);
    const dHat = bc.D_sequence.slice(0, c.t).reduce((s: number, d: number) => s + d, 0) / c.t;
    assertAbs(dHat, c.delta_hat, 1e-12, `t=${c.t} θ̂`);
  }
  const first = path.find((p) => p.theta[0] > 0 || p.theta[1] < 0);
  assert.equal(first?.t, bc.first_t_delta_cs_excludes_zero);
  // The confseq cross-check block records the generator's own agreement; informational only.
  assert.equal(bc.crosscheck.performed, true);
});

test("betting CS endpoints agree exactly with the golden grid values (tolerance is a safety margin only)", () => {
  const bc = seq.betting_cs;
  const path = bettingCsPath(bc.D_sequence, bc.alpha);
  let worst = 0;
  for (const c of bc.cs) {
    const at = path[c.t - 1]!;
    worst = Math.max(worst, Math.abs(at.mean[0] - c.mean_lower), Math.abs(at.mean[1] - c.mean_upper));
  }
  assert.ok(worst < 1e-12, `worst endpoint difference ${worst}`);
});

test("without-replacement betting CS: equals the plain CS for a huge population, is narrower on a finite one, covers the finite mean", () => {
  const d = seq.betting_cs.D_sequence as number[];
  const plain = new BettingCS(0.05);
  const huge = new BettingCS(0.05, 1000, 1e12);
  const finite = new BettingCS(0.05, 1000, d.length);
  const mu = d.reduce((s, x) => s + toUnit(x), 0) / d.length;
  for (const x of d) {
    plain.push(toUnit(x));
    huge.push(toUnit(x));
    finite.push(toUnit(x));
    assert.deepEqual(huge.interval(), plain.interval());
    const [lo, hi] = finite.interval();
    assert.ok(lo <= mu && mu <= hi, `finite CS [${lo}, ${hi}] covers the benchmark mean ${mu}`);
  }
  const wP = plain.interval()[1] - plain.interval()[0];
  const wF = finite.interval()[1] - finite.interval()[0];
  assert.ok(wF < wP / 2, `having seen the whole benchmark the finite CS is much narrower (${wF} vs ${wP})`);
  assert.throws(() => finite.push(0.5), RangeError);
});

test("without-replacement CS covers the benchmark mean on 200 seeded random orders (Ville: misses ≤ α in expectation)", () => {
  let seed = 99;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const base: number[] = Array.from({ length: 80 }, (_, i): number => (i % 5 === 0 ? 0 : i % 3 === 0 ? 0.5 : 1));
  const mu = base.reduce((s, x) => s + x, 0) / base.length;
  let misses = 0;
  for (let rep = 0; rep < 200; rep++) {
    const xs = [...base];
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    const cs = new BettingCS(0.05, 1000, xs.length);
    let missed = false;
    for (const x of xs) {
      cs.push(x);
      const [lo, hi] = cs.interval();
      if (mu < lo || mu > hi) missed = true;
    }
    if (missed) misses++;
  }
  // Time-uniform guarantee: P(ever miss) ≤ 0.05, so about 10 of 200 at most on average; 25 is > 4 sd above that.
  assert.ok(misses <= 25, `missed in ${misses} of 200 orders`);
});
