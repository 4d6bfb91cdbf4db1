import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { analyzeTable, holm, benjaminiHochberg, mcnemarExactP, mcnemarMidP, mcnemarOneSided, newcombeInterval, tangoInterval } from "../../../src/core/stats/index.js";
import { agrestiMinInterval, mcnemarChi2, waldInterval } from "../../support/stats-reference/index.js";

const table = fc
  .record({ a: fc.nat(60), b: fc.nat(60), c: fc.nat(60), d: fc.nat(60) })
  .filter((t) => t.a + t.b + t.c + t.d > 0);
const alpha = fc.constantFrom(0.01, 0.05, 0.1, 0.2);
const runs = { numRuns: 300, seed: 20260901 };

test("effects stay in [−1, 1] and every interval is inside [−1, 1] and contains θ̂", () => {
  fc.assert(
    fc.property(table, alpha, (t, a) => {
      const n = t.a + t.b + t.c + t.d;
      const an = analyzeTable(t, a);
      const theta = an.effect!;
      assert.ok(theta >= -1 && theta <= 1);
      for (const ci of [an.tango, an.newcombe10, newcombeInterval(t, a, 8), waldInterval(t.b, t.c, n, a), agrestiMinInterval(t.b, t.c, n, a)]) {
        assert.ok(ci, "defined for n > 0");
        assert.ok(ci[0] >= -1 && ci[1] <= 1 && ci[0] <= ci[1], `ordered and clipped ${ci}`);
      }
      // Score-type intervals contain the point estimate (Agresti–Min is centred on the shrunken estimate, so it
      // is excluded from this property on purpose).
      for (const ci of [an.tango!, an.newcombe10!, waldInterval(t.b, t.c, n, a)!]) {
        assert.ok(ci[0] <= theta + 1e-12 && theta <= ci[1] + 1e-12, `${ci} contains ${theta}`);
      }
      // Tango has positive width even when b = c = 0.
      assert.ok(an.tango![1] - an.tango![0] > 0);
    }),
    runs,
  );
});

test("p-values lie in [0, 1], mid-p ≤ exact, and the two one-sided exact p-values sum to 1 + P(X = b)", () => {
  fc.assert(
    fc.property(table, (t) => {
      const pm = mcnemarMidP(t.b, t.c);
      const pe = mcnemarExactP(t.b, t.c);
      for (const p of [pm, pe]) assert.ok(p >= 0 && p <= 1, `p = ${p}`);
      assert.ok(pm <= pe + 1e-15, "mid-p never exceeds the exact p");
      const os = mcnemarOneSided(t.b, t.c);
      for (const p of Object.values(os)) assert.ok(p >= 0 && p <= 1 + 1e-15);
      if (t.b + t.c > 0) assert.ok(Math.abs(os.helpfulMid + os.harmfulMid - 1) < 1e-12, "mid one-sided p-values sum to 1");
    }),
    runs,
  );
});

test("swapping conditions flips signs and intervals and keeps every two-sided p", () => {
  fc.assert(
    fc.property(table, alpha, (t, a) => {
      // Swapping enabled/disabled exchanges b and c (a and d stay: both-pass and both-fail are symmetric).
      const s = { a: t.a, b: t.c, c: t.b, d: t.d };
      const x = analyzeTable(t, a);
      const y = analyzeTable(s, a);
      assert.equal(y.effect, x.effect === 0 ? 0 : -x.effect!);
      assert.equal(y.pMid, x.pMid);
      assert.equal(y.pExact, x.pExact);
      assert.equal(mcnemarChi2(s.b, s.c)?.p, mcnemarChi2(t.b, t.c)?.p);
      assert.ok(Math.abs(y.tango![0] + x.tango![1]) < 1e-9 && Math.abs(y.tango![1] + x.tango![0]) < 1e-9, "Tango mirrors");
      assert.ok(Math.abs(y.newcombe10![0] + x.newcombe10![1]) < 1e-12 && Math.abs(y.newcombe10![1] + x.newcombe10![0]) < 1e-12, "Newcombe mirrors");
      const ox = mcnemarOneSided(t.b, t.c);
      const oy = mcnemarOneSided(s.b, s.c);
      assert.ok(Math.abs(ox.helpfulMid - oy.harmfulMid) < 1e-15, "one-sided p swap sides");
    }),
    runs,
  );
});

test("Tango CI excludes 0 exactly when the asymptotic McNemar test rejects (random tables, several α)", () => {
  fc.assert(
    fc.property(table, alpha, (t, a) => {
      if (t.b + t.c === 0) return;
      const n = t.a + t.b + t.c + t.d;
      const [lo, hi] = tangoInterval(t.b, t.c, n, a)!;
      const p = mcnemarChi2(t.b, t.c)!.p;
      // Skip knife-edge ties where the p-value equals α to rounding.
      if (Math.abs(p - a) < 1e-9) return;
      assert.equal(lo > 0 || hi < 0, p < a, `b=${t.b} c=${t.c} n=${n} α=${a}: [${lo}, ${hi}] p=${p}`);
    }),
    runs,
  );
});

test("Holm and BH adjusted p-values are monotone in the raw p, ≥ raw p, ≤ 1, and BH ≤ Holm", () => {
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }), (p) => {
      const h = holm(p).adjusted;
      const b = benjaminiHochberg(p).adjusted;
      for (let i = 0; i < p.length; i++) {
        assert.ok(h[i]! >= p[i]! - 1e-15 && h[i]! <= 1);
        assert.ok(b[i]! >= p[i]! - 1e-15 && b[i]! <= 1);
        assert.ok(b[i]! <= h[i]! + 1e-15);
        for (let j = 0; j < p.length; j++) if (p[i]! < p[j]!) assert.ok(h[i]! <= h[j]! && b[i]! <= b[j]!);
      }
    }),
    runs,
  );
});
