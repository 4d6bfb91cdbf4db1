import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateRational, extractMathAnswer, mathAnswersEqual, normaliseMathAnswer } from "../../../../src/core/grading/math.js";
import { cpuMicros } from "../../../support/work-bound.js";

/** [model answer, reference, expected verdict]. Each `false` row is a near miss a sloppy normaliser would pass. */
const PAIRS: [string, string, boolean][] = [
  // numbers, commas, signs
  ["18", "18", true],
  ["17", "18", false],
  ["1,234", "1234", true],
  ["1,234,567.5", "1234567.5", true],
  ["10,\\!080", "10080", true],
  ["10{,}080", "10080", true],
  ["-5", "−5", true],
  ["-5", "5", false],
  ["+7", "7", true],
  ["18.00", "18", true],
  ["18.01", "18", false],
  [".5", "0.5", true],
  ["0.1+0.2", "0.3", true],
  ["1e3", "1000", false],
  // fractions and decimals, exactly
  ["0.5", "\\frac{1}{2}", true],
  ["1/2", "\\frac{1}{2}", true],
  ["\\dfrac{3}{6}", "\\frac12", true],
  ["\\tfrac{2}{4}", "0.5", true],
  ["0.333", "\\frac{1}{3}", false],
  ["\\frac{1}{3}", "\\frac{2}{6}", true],
  ["-\\frac{24}{25}", "\\frac{-24}{25}", true],
  ["-\\frac{24}{25}", "\\frac{24}{25}", false],
  ["1\\frac{4}{5}", "\\frac{9}{5}", true],
  ["137 \\frac{1}{2}", "275/2", true],
  ["1\\frac{4}{5}", "\\frac{4}{5}", false],
  ["2^{-1}", "0.5", true],
  ["\\frac{448}{15625}", "0.028672", true],
  [".0000672", "6.72\\times10^{-5}", true],
  // currency, units, percent, degrees, text
  ["\\$36", "36", true],
  ["$36.00", "36", true],
  ["36 dollars", "36", true],
  ["10\\text{ cm}", "10", true],
  ["15\\mbox{ cm}^2", "15", true],
  ["12 square units", "12", true],
  ["12 cm", "13", false],
  ["50\\%", "50", true],
  ["145^\\circ", "145", true],
  ["145^{\\circ}", "145°", true],
  ["\\text{Evelyn}", "Evelyn", true],
  ["\\text{even}", "\\text{odd}", false],
  ["\\textbf{(B)}", "\\text{(B)}", true],
  ["B", "\\text{(B)}", true],
  ["C", "\\text{(B)}", false],
  // LaTeX spacing, delimiters, trailing period, variables
  ["\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\pi/2)", true],
  ["(3, \\frac{\\pi}{3})", "\\left( 3, \\frac{\\pi}{2} \\right)", false],
  ["3\\sqrt{13}", "3 \\sqrt{13}", true],
  ["3\\sqrt5", "3\\sqrt{5}", true],
  ["\\sqrt13", "\\sqrt{13}", false], // TeX reads \sqrt13 as \sqrt{1}3
  // closed forms with roots and π are compared by value (src/core/math/closed-form.ts), never against a decimal approximation
  ["3\\sqrt{13}", "\\sqrt{117}", true],
  ["\\sqrt{8}", "2\\sqrt{2}", true],
  ["\\sqrt{8}", "2\\sqrt{3}", false],
  ["\\frac{5}{\\sqrt{2}}", "\\frac{5\\sqrt{2}}{2}", true],
  ["\\frac{\\pi}{2}", "\\frac{1}{2}\\pi", true],
  ["\\frac{\\pi}{2}", "\\frac{\\pi}{3}", false],
  ["\\sqrt[3]{27}", "3", true],
  ["\\sqrt[3]{-8}", "-2", true],
  ["2", "\\sqrt{4}", true],
  ["2", "\\sqrt{5}", false],
  ["\\sqrt{2}", "1.41421356237", false],
  ["\\sqrt{2}", "1.4142135623730951", false],
  ["\\pi", "3.14159", false],
  ["2\\sqrt{2}+1", "1+\\sqrt{8}", true],
  ["\\pi r^2", "\\pi", false],
  ["2\\sqrt{x}", "\\sqrt{4x}", true], // same where defined (x ≥ 0)
  ["\\sqrt{-4}", "2", false],
  ["(\\sqrt{8}, 1)", "(2\\sqrt{2}, 1)", true],
  ["\\sqrt{8}, \\sqrt{2}", "\\sqrt{2}, 2\\sqrt{2}", true],
  ["10^{\\frac{1}{2}}", "\\sqrt{10}", true],
  ["2^{100}\\sqrt{2}", "2^{100}\\sqrt{3}", false],
  // expressions in the same variables: equal when they agree at fixed test points
  ["x+1", "1+x", true],
  ["2x", "x\\cdot 2", true],
  ["(x+1)^2", "x^2+2x+1", true],
  ["(x+1)^2", "x^2+x+1", false],
  ["\\frac{x}{2}", "\\frac{1}{2}x", true],
  ["a^2-b^2", "(a-b)(a+b)", true],
  ["a^2-b^2", "(a-b)^2", false],
  ["x+1", "y+1", false],
  ["x\\sqrt{2}", "\\sqrt{2x^2}", false], // differ for x < 0
  ["|x|", "\\sqrt{x^2}", false], // no absolute value: not read, left alone
  ["2\\pi r", "2r\\pi", false], // normalisation glues \pi and r into an unknown command: left alone
  ["no", "on", false],
  ["ab", "ba", false],
  ["6+9i", "9i+6", false],
  ["x = 5", "5", true],
  ["k=-3", "-3", true],
  ["y = -2x", "y=-2x", true],
  ["42.", "42", true],
  ["\\boxed{42}", "42", false],
  ["\\frac{\\sqrt{3}}{2}", "\\sqrt{3}/2", true],
  ["\\frac{1+\\sqrt{5}}{2}", "(1+\\sqrt5)/2", true],
  ["2\\pi", "2 \\cdot \\pi", true],
  ["288 \\pi", "288\\pi", true],
  ["288 \\pi", "289\\pi", false],
  ["6+9i", "6 + 9i", true],
  // tuples, intervals, sets, lists, matrices
  ["(6,31,-1)", "(6, 31, -1)", true],
  ["(6,31,-1)", "(6,-1,31)", false],
  ["(2,\\infty)", "\\left(2, \\infty\\right)", true],
  ["[2,\\infty)", "(2,\\infty)", false],
  ["(0,9) \\cup (9,36)", "(0,9)\\cup(9,36)", true],
  ["(0,9) \\cup (9,36)", "(0,9]\\cup(9,36)", false],
  ["3, 5, 7", "7,5,3", true],
  ["3, 5, 7", "3, 5", false],
  ["\\{1, 2\\}", "\\{2,1\\}", true],
  ["\\{1, 2\\}", "2, 1", true],
  ["(1, 2)", "1, 2", false],
  ["-\\frac{\\sqrt{3}}{2}", "\\frac{-\\sqrt{3}}{2}", true],
  ["-\\frac{\\sqrt{3}}{2}", "\\frac{\\sqrt{3}}{2}", false],
  ["(0.5, 2)", "(\\frac{1}{2}, 2)", true],
  ["\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}", "\\begin{pmatrix} 0.2 \\\\ -3.6 \\end{pmatrix}", true],
  ["\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}", "\\begin{pmatrix} -18/5 \\\\ 1/5 \\end{pmatrix}", false],
  ["\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "\\begin{bmatrix}-1&0\\\\0&-1\\end{bmatrix}", true],
  ["\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}", "\\begin{pmatrix} -1 & 0 \\\\ 0 & 1 \\end{pmatrix}", false],
  ["\\begin{pmatrix} 1 & 2 \\end{pmatrix}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", false],
  ["√2", "\\sqrt{2}", true],
  // nothing is not an answer
  ["", "0", false],
  ["   ", "", false],
];

describe("mathAnswersEqual: table of equivalent and non-equivalent pairs", () => {
  for (const [a, b, want] of PAIRS) {
    it(`${JSON.stringify(a)} ${want ? "==" : "!="} ${JSON.stringify(b)}`, () => {
      assert.equal(mathAnswersEqual(a, b), want);
      assert.equal(mathAnswersEqual(b, a), want, "equivalence is symmetric");
    });
  }
  it("has at least 40 rows, both verdicts well represented", () => {
    assert.ok(PAIRS.length >= 40);
    assert.ok(PAIRS.filter((p) => !p[2]).length >= 20);
  });
});

describe("normaliseMathAnswer", () => {
  it("is idempotent on tricky inputs", () => {
    for (const s of ["10,\\!080", "\\left( 3, \\frac{\\pi}{2} \\right)", "\\$32,\\!348", "x \\in [1, 2)", "15\\mbox{ cm}^2", "\\text{\\textbf{Yes}}"]) {
      const n = normaliseMathAnswer(s);
      assert.equal(normaliseMathAnswer(n), n, s);
    }
  });
});

describe("evaluateRational", () => {
  it("evaluates exactly and refuses symbols, bad syntax and runaway exponents", () => {
    const q = (s: string) => {
      const r = evaluateRational(s);
      return r && `${r.n}/${r.d}`;
    };
    assert.equal(q("\\frac{3}{6}"), "1/2");
    assert.equal(q("-2^2"), "-4/1");
    assert.equal(q("(1+2)*3/4"), "9/4");
    assert.equal(q("0.1+0.2"), "3/10");
    assert.equal(q("12345678901234567890123"), "12345678901234567890123/1");
    assert.equal(q("\\pi"), null);
    assert.equal(q("1/0"), null);
    assert.equal(q("2^{1/2}"), null);
    assert.equal(q("10^{100000}"), null);
    assert.equal(q("1+"), null);
    assert.equal(q("(1"), null);
  });
});

describe("extractMathAnswer", () => {
  const cases: [string, string | null][] = [
    ["So the answer is $\\boxed{18}$.", "18"],
    ["First \\boxed{1}, then corrected: \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"],
    ["\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}", "\\left( 3, \\frac{\\pi}{2} \\right)"],
    ["\\boxed{\\{1,2\\}}", "\\{1,2\\}"],
    ["\\fbox{7}", "7"],
    ["\\boxed 5 is it", "5"],
    ["good \\boxed{4} then broken \\boxed{5", "4"],
    ["\\boxed{}", null],
    ["Work...\nAnswer: 42", "42"],
    ["**Final Answer:** $\\frac{3}{4}$.", "\\frac{3}{4}"],
    ["Answer:\n\n  17\n", "17"],
    ["Answer: 1\nlater Answer: 2", "2"],
    ["She makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 1,080", "1,080"],
    ["I think it's about 3,500 or maybe 4,250.", "4250"],
    ["The temperature fell to -12 degrees.", "-12"],
    ["no numbers here", null],
    ["", null],
  ];
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text).slice(0, 60)} -> ${want}`, () => {
      assert.equal(extractMathAnswer(text), want);
    });
  }
});

// Not a benchmark: the bounds are ~50x what these take, and only catch super-linear blow-ups (a 10k-dot
// answer took 0.5 s and a tower of powers 9.5 s before the fixes), even on a loaded 2-core machine.
describe("adversarial answers stay fast", () => {
  const n = 3990;
  const hostile: Record<string, string> = {
    dots: ".".repeat(n) + "x",
    spaces: " ".repeat(n) + "x",
    openBraces: "{".repeat(n),
    nestedParens: "(".repeat(1990) + "1" + ")".repeat(1990),
    nestedFracs: "\\frac{".repeat(380) + "1" + "}{2}".repeat(380),
    hugePower: "((9^512)^512)^512",
    longList: "a,".repeat(1990),
    overCap: "1".repeat(50_000),
  };
  // CPU time, not elapsed time: a loaded machine stretches the latter without more work being done.
  for (const [name, s] of Object.entries(hostile)) {
    it(name, () => {
      const us = cpuMicros(() => assert.equal(mathAnswersEqual(s, s + "1"), false));
      assert.ok(us < 3_000_000, `${name} took ${us / 1000} ms of CPU`);
    });
  }
  it("thousands of unclosed boxes", () => {
    const us = cpuMicros(() => assert.equal(extractMathAnswer("\\boxed{1} " + "\\boxed{".repeat(20_000)), "1"));
    assert.ok(us < 3_000_000, `${us / 1000} ms of CPU`);
  });
});

describe("trailing words after a number", () => {
  const rows: [string, string, boolean][] = [
    ["5 apples", "5", true],
    ["12 eggs per day", "12", true],
    ["\\frac{1}{2} cup", "0.5", true],
    ["5 x", "5", false],
    ["5x", "5", false],
    ["x + 5 apples", "5", false],
    ["6 apples", "5", false],
  ];
  for (const [a, b, want] of rows) it(`${a} vs ${b}`, () => assert.equal(mathAnswersEqual(a, b), want));
});
