import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { mathAnswersEqual, normaliseMathAnswer } from "../../../../src/core/grading/math.js";

/** Strings over the characters answers are made of, so the generator hits LaTeX structure, not just noise. */
const token = fc.constantFrom("1", "2", "0", "-", "+", ".", ",", "/", "(", ")", "[", "]", "{", "}", "\\{", "\\}", "\\frac", "\\sqrt", "\\pi", "x", "=", " ", "^", "\\circ", "\\text{cm}", "\\$", "\\cup", "\\left(", "\\right)", "&", "\\\\");
const answerish = fc.array(token, { maxLength: 12 }).map((t) => t.join(""));
const runs = { numRuns: 400, seed: 20261129 };

describe("mathAnswersEqual properties (fast-check)", () => {
  it("p/q in every notation equals itself scaled, and differs from (p+1)/q", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 50 }), (p, q, k) => {
        const frac = `\\frac{${p}}{${q}}`;
        assert.ok(mathAnswersEqual(frac, `${p}/${q}`));
        assert.ok(mathAnswersEqual(`\\dfrac{${p * k}}{${q * k}}`, frac));
        assert.ok(!mathAnswersEqual(`\\frac{${p + 1}}{${q}}`, frac));
      }),
      runs,
    );
  });

  it("terminating fractions equal their decimal expansion; a last-digit change breaks it", () => {
    fc.assert(
      fc.property(fc.integer({ min: -100000, max: 100000 }), fc.constantFrom(1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 125), (p, q) => {
        const dec = (p / q).toString();
        if (dec.includes("e")) return;
        assert.ok(mathAnswersEqual(dec, `\\frac{${p}}{${q}}`), `${dec} vs ${p}/${q}`);
        // Appending a digit always changes the value (5 -> 51, 2.5 -> 2.51, 0 -> 01 = 1).
        assert.ok(!mathAnswersEqual(`${dec}1`, `\\frac{${p}}{${q}}`));
      }),
      runs,
    );
  });

  it("thousands separators, $ signs and trailing units never change an integer; off-by-one always does", () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.constantFrom("", " dollars", "\\text{ cm}", " units"), (n, unit) => {
        const pretty = n.toLocaleString("en-US");
        assert.ok(mathAnswersEqual(`${pretty}${unit}`, String(n)));
        assert.ok(mathAnswersEqual(`\\$${pretty}`, String(n)));
        assert.ok(!mathAnswersEqual(`${(n + 1).toLocaleString("en-US")}${unit}`, String(n)));
      }),
      runs,
    );
  });

  it("is symmetric and reflexive on arbitrary answer-like strings, and never throws", () => {
    fc.assert(
      fc.property(answerish, answerish, (a, b) => {
        assert.equal(mathAnswersEqual(a, b), mathAnswersEqual(b, a), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        if (normaliseMathAnswer(a) !== "") assert.ok(mathAnswersEqual(a, a), JSON.stringify(a));
      }),
      { ...runs, numRuns: 1000 },
    );
  });

  it("tuples are ordered, lists of solutions are not", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -50, max: 50 }), { minLength: 2, maxLength: 5 }), (xs) => {
        const rev = [...xs].reverse();
        assert.ok(mathAnswersEqual(xs.join(", "), rev.join(",")));
        assert.ok(!mathAnswersEqual(`(${xs.join(",")})`, `(${rev.join(",")})`));
        assert.ok(mathAnswersEqual(`\\left(${xs.join(", ")}\\right)`, `(${xs.join(",")})`));
      }),
      runs,
    );
  });
});
