// test-requires: shared-data
import { test } from "node:test";
import assert from "node:assert/strict";
import { golden, assertAbs, assertInterval, assertRel } from "./golden.js";
import { aaNoiseFloor, benjaminiHochberg, holm, mcnemarExactP, mcnemarMidP, raeOnlySavings, repeatedSamples, retrievalMetrics, tangoInterval } from "../../../src/core/stats/index.js";
import { aaSingleRun, pairedBootstrap, bonferroni, eBH, exactBootstrap, perSkillCounts } from "../../support/stats-reference/index.js";

const cells = (x: number[]) => ({ a: x[0]!, b: x[1]!, c: x[2]!, d: x[3]! });

test("metrics: all 9 cases (OAE, RAE, NRAE, lift, selection term, decomposition) to 1e-15", () => {
  assert.equal(golden.metrics.cases.length, 9);
  for (const c of golden.metrics.cases) {
    const m = retrievalMetrics(cells(c.retrieved), cells(c.not_retrieved));
    const id = c.id as string;
    assert.equal(m.nPairs, c.n_pairs, id);
    assert.equal(m.nCond, c.n_cond, id);
    assert.deepEqual([m.allB, m.allC, m.condB, m.condC], [c.all_b, c.all_c, c.cond_b, c.cond_c], id);
    const pairs: Array<[number | null, number | null, string]> = [
      [m.OAE, c.OAE, "OAE"], [m.RAE, c.RAE, "RAE"], [m.NRAE, c.NRAE, "NRAE"], [m.retrievalRate, c.retrieval_rate, "r"],
      [m.accEnabledRetrieved, c.acc_enabled_retrieved, "acc+R"], [m.accEnabledNotRetrieved, c.acc_enabled_not_retrieved, "acc+NR"],
      [m.lift, c.aggregate_retrieval_lift, "lift"], [m.accDisabledRetrieved, c.acc_disabled_retrieved, "acc-R"],
      [m.accDisabledNotRetrieved, c.acc_disabled_not_retrieved, "acc-NR"], [m.selectionTerm, c.selection_term, "selection"],
    ];
    for (const [got, want, what] of pairs) assertAbs(got, want, 1e-15, `${id} ${what}`);
    if (c.decomposition_check === null) assert.ok(m.lift === null || m.selectionTerm === null || m.NRAE === null, id);
    else assertAbs(m.selectionTerm! + m.RAE! - m.NRAE!, c.decomposition_check.selection_plus_RAE_minus_NRAE, 1e-15, `${id} decomposition`);
    // The identity OAE = ρ·RAE + (1 − ρ)·NRAE holds whenever all three exist.
    if (m.OAE !== null && m.RAE !== null && m.NRAE !== null) {
      const rho = m.retrievalRate!;
      assertAbs(rho * m.RAE + (1 - rho) * m.NRAE, m.OAE, 1e-15, `${id} OAE identity`);
    }
  }
  const confounded = golden.metrics.cases.find((c: { id: string }) => c.id === "lift_confounded");
  const m = retrievalMetrics(cells(confounded.retrieved), cells(confounded.not_retrieved));
  assert.equal(m.lift, 0.8);
  assert.equal(m.RAE, 0);
  assert.equal(m.paradox, false, "RAE = 0 has no sign to disagree with");
});

test("per_skill: tables, RAE, p-values, Tango and Holm/BH recomputed from the 300-task log", () => {
  const ps = golden.per_skill;
  assert.equal(ps.tasks.length, 300);
  const counts = perSkillCounts(ps.tasks.map((t: { y_minus: number; y_plus: number; skills: string[] }) => ({ yMinus: t.y_minus, yPlus: t.y_plus, skills: t.skills })));
  assert.equal(counts.size, ps.per_skill.length);
  const exact: number[] = [];
  const mid: number[] = [];
  for (const s of ps.per_skill) {
    const t = counts.get(s.skill)!;
    assert.deepEqual(t, { a: s.a, b: s.b, c: s.c, d: s.d }, s.skill);
    assert.equal(t.a + t.b + t.c + t.d, s.n);
    assertAbs((t.b - t.c) / s.n, s.RAE, 1e-15, `${s.skill} RAE`);
    assertRel(mcnemarExactP(t.b, t.c), s.mcnemar_exact_p, 1e-10, `${s.skill} exact`);
    assertRel(mcnemarMidP(t.b, t.c), s.mid_p, 1e-10, `${s.skill} mid`);
    assertInterval(tangoInterval(t.b, t.c, s.n, 0.05), s.tango, 1e-9, `${s.skill} tango`);
    exact.push(mcnemarExactP(t.b, t.c));
    mid.push(mcnemarMidP(t.b, t.c));
  }
  const adj = ps.adjustments;
  const check = (got: { adjusted: number[]; reject: boolean[] }, want: { adjusted: number[]; reject: boolean[] }, what: string) => {
    got.adjusted.forEach((a, i) => assertRel(a, want.adjusted[i]!, 1e-10, `${what}[${i}]`));
    assert.deepEqual(got.reject, want.reject, what);
  };
  check(holm(exact), adj.exact_holm, "exact holm");
  check(benjaminiHochberg(exact), adj.exact_fdr_bh, "exact bh");
  check(holm(mid), adj.midp_holm, "mid holm");
  check(benjaminiHochberg(mid), adj.midp_fdr_bh, "mid bh");
});

test("multiplicity: 10 p-vectors × Holm/BH/Bonferroni to 1e-15 with identical reject flags; 4 e-BH cases", () => {
  assert.equal(golden.multiplicity.cases.length, 10);
  for (const c of golden.multiplicity.cases) {
    for (const [name, fn] of [["holm", holm], ["fdr_bh", benjaminiHochberg], ["bonferroni", bonferroni]] as const) {
      const got = fn(c.p, c.alpha);
      const want = c[name];
      assert.equal(got.adjusted.length, want.adjusted.length);
      got.adjusted.forEach((a: number, i: number) => assertAbs(a, want.adjusted[i], 1e-15, `${c.id} ${name}[${i}]`));
      assert.deepEqual(got.reject, want.reject, `${c.id} ${name} reject`);
    }
  }
  assert.deepEqual(holm([]), { adjusted: [], reject: [] });
  assert.equal(golden.multiplicity.e_bh.length, 4);
  for (const c of golden.multiplicity.e_bh) {
    const r = eBH(c.e, c.alpha);
    assert.equal(r.kStar, c.k_star, c.id);
    assert.deepEqual(r.reject, c.reject, c.id);
  }
});

test("repeated samples: per-task rates, paired t, CR0, corrected and naive SE, A/A floors to 1e-12", () => {
  const r = golden.repeated_samples;
  const s = repeatedSamples(r.s_plus, r.k, r.s_minus, r.k, 0.05);
  assert.equal(s.T, r.T);
  s.pPlus.forEach((p, i) => assertAbs(p, r.per_task_p_plus[i], 1e-12, `p+[${i}]`));
  s.pMinus.forEach((p, i) => assertAbs(p, r.per_task_p_minus[i], 1e-12, `p-[${i}]`));
  s.delta.forEach((d, i) => assertAbs(d, r.per_task_delta[i], 1e-12, `d[${i}]`));
  assertRel(s.deltaHat, r.delta_hat, 1e-12, "delta hat");
  assertRel(s.deltaHat, r.ols_coef, 1e-12, "equals the OLS coefficient");
  assertRel(s.sd, r.sd_task_delta, 1e-12, "sd");
  assertRel(s.se, r.se_paired, 1e-12, "se");
  assertRel(s.tStatistic, r.ttest_rel_statistic, 1e-12, "t");
  assertRel(s.p, r.ttest_rel_p, 1e-12, "p");
  // scipy 1.1.1's t.ppf(0.975, 11) is 8.7e-12 off (mpmath, 40 digits: 2.2009851600916397); see golden-special.
  assertRel(s.tCrit, 2.2009851600916397, 1e-14, "t crit (mpmath)");
  assertRel(s.tCrit, r.t_crit_975, 5e-9, "t crit (golden)");
  assertInterval(s.ci, r.ci95_paired_t, 1e-12, "paired t CI");
  assertInterval(s.ciNormal, r.ci95_paired_normal, 1e-12, "normal CI");
  assertRel(s.cr0, r.cluster_se_cr0, 1e-12, "CR0 (statsmodels)");
  assertRel(s.cr0, r.cluster_se_cr0_formula, 1e-12, "CR0 formula");
  assertRel(s.cr0Corrected, r.cluster_se_statsmodels_corrected, 1e-12, "CR0 corrected");
  assertRel(s.naiveIidSe, r.naive_iid_se_ignoring_clusters, 1e-12, "naive SE");
  const aa = aaNoiseFloor(r.s_minus, r.k);
  aa.perTask.forEach((q, i) => assertAbs(q, r.aa.within_task_disagreement_unbiased[i], 1e-12, `q[${i}]`));
  assertRel(aa.floor, r.aa.noise_floor_mean_disagreement, 1e-12, "A/A floor");
  const aaPair = repeatedSamples(r.s_minus_second_arm, r.k, r.s_minus, r.k);
  aaPair.delta.forEach((d, i) => assertAbs(d, r.aa.aa_delta_per_task[i], 1e-12, `aa d[${i}]`));
  assertRel(aaPair.deltaHat, r.aa.aa_delta_hat, 1e-12, "aa delta");
  assertRel(aaPair.sd, r.aa.aa_delta_sd, 1e-12, "aa sd");
  const one = aaSingleRun(r.aa.single_run.y_disabled_run1, r.aa.single_run.y_disabled_run2);
  assert.equal(one.flips, r.aa.single_run.flips);
  assertRel(one.flipRate, r.aa.single_run.flip_rate, 1e-12, "flip rate");
  assert.deepEqual(one.table, r.aa.single_run.table);
  assertRel(one.mcnemarExactP, r.aa.single_run.mcnemar_exact_p, 1e-12, "A/A McNemar");
});

test("repeated samples edge cases: T < 2 has no SE; equal dₜ gives a degenerate interval", () => {
  const one = repeatedSamples([3], 5, [1], 5);
  assertAbs(one.deltaHat, 0.4, 1e-15, "T=1 delta");
  assert.equal(one.se, null);
  assert.equal(one.ci, null);
  const flat = repeatedSamples([3, 4], 5, [2, 3], 5);
  assert.equal(flat.degenerate, true);
  assert.equal(flat.p, null);
  assertInterval(flat.ci, [0.2, 0.2], 1e-15, "degenerate");
});

test("exact bootstrap: pmf to 1e-12, percentile interval, CDF at the limits, sd; all 7 cases", () => {
  assert.equal(golden.bootstrap.cases.length, 7);
  for (const c of golden.bootstrap.cases) {
    const id = `(${c.b}, ${c.c}, ${c.n})`;
    const bs = exactBootstrap(c.b, c.c, c.n, 0.05)!;
    for (const [k, p] of Object.entries(c.pmf_of_K)) assertAbs(bs.pmf.get(Number(k)) ?? 0, p as number, 1e-12, `${id} pmf ${k}`);
    let total = 0;
    for (const p of bs.pmf.values()) total += p;
    assertAbs(total, 1, 1e-12, `${id} pmf sums to 1`);
    assertInterval(bs.percentile, c.percentile_ci95, 1e-12, `${id} percentile`);
    assertAbs(bs.cdfAtLower, c.cdf_at_lower, 1e-12, `${id} cdf lower`);
    assertAbs(bs.cdfAtUpper, c.cdf_at_upper, 1e-12, `${id} cdf upper`);
    assertAbs(bs.sd, c.boot_sd, 1e-12, `${id} sd`);
    // The Monte Carlo column is informational: within one grid step (1/n) of the exact limits.
    assert.ok(Math.abs(bs.percentile[0] - c.mc_200k_quantiles[0]) <= 1 / c.n + 1e-12, `${id} mc lower`);
    assert.ok(Math.abs(bs.percentile[1] - c.mc_200k_quantiles[1]) <= 1 / c.n + 1e-12, `${id} mc upper`);
  }
});

test("cost savings: all rows exact", () => {
  for (const row of golden.cost_savings.rows) {
    const s = raeOnlySavings(row.retrieval_rate, row.k_plus, row.k_minus);
    assert.equal(s.callsPerTaskFull, row.calls_per_task_full);
    assert.equal(s.callsPerTaskRaeOnly, row.calls_per_task_rae_only);
    assert.equal(s.savingFraction, row.saving_fraction, `r=${row.retrieval_rate} k=${row.k_plus}/${row.k_minus}`);
  }
});

test("Monte Carlo paired bootstrap (B = 10⁴, seeded) lands within one grid step (1/n) of the exact limits on all 7 cases", () => {
  for (const c of golden.bootstrap.cases) {
    const values = [...Array(c.b).fill(1), ...Array(c.c).fill(-1), ...Array(c.n - c.b - c.c).fill(0)];
    const mc = pairedBootstrap(values, { B: 10000, seed: 12345 })!;
    assert.ok(Math.abs(mc.interval[0] - c.percentile_ci95[0]) <= 1 / c.n + 1e-12, `(${c.b}, ${c.c}, ${c.n}) lower ${mc.interval[0]}`);
    assert.ok(Math.abs(mc.interval[1] - c.percentile_ci95[1]) <= 1 / c.n + 1e-12, `(${c.b}, ${c.c}, ${c.n}) upper ${mc.interval[1]}`);
    assert.ok(Math.abs(mc.sd - c.boot_sd) <= 0.05 * c.boot_sd + 1e-12, `sd ${mc.sd} vs ${c.boot_sd}`);
  }
  // Same seed, same answer; empty input has no interval.
  assert.deepEqual(pairedBootstrap([1, 0, -1, 1], { seed: 3 }), pairedBootstrap([1, 0, -1, 1], { seed: 3 }));
  assert.equal(pairedBootstrap([]), null);
});
