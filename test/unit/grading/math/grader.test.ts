// test-requires: shared-data
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createMathGrader, evaluateRational, extractMathAnswer, normaliseMathAnswer } from "../../../../src/core/grading/math.js";
import { loadTaskSet, type MathAnswerTask, type Task } from "../../../../src/core/tasks/index.js";

const data = path.resolve(process.cwd(), "../shared/data");
const rawLines = (rel: string) =>
  readFileSync(path.join(data, rel), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, string>);
const mathTask = (answer: string, id = "t"): MathAnswerTask => ({ id, kind: "math-answer", prompt: "p", answer });

describe("math grader on the real reference answers", () => {
  const grader = createMathGrader();

  it("GSM8K: the '#### N' number and the whole worked solution both pass, 1,319/1,319", async () => {
    const set = await loadTaskSet(path.join(data, "gsm8k/test.jsonl"));
    const raw = rawLines("gsm8k/test.jsonl");
    assert.equal(set.tasks.length, raw.length);
    let number = 0;
    let worked = 0;
    for (const [i, task] of set.tasks.entries()) {
      const solution = raw[i]!.answer as string;
      const final = /####\s*(.+)$/.exec(solution)![1]!.trim();
      if ((await grader.grade(task, final)).pass) number++;
      if ((await grader.grade(task, solution)).pass) worked++;
    }
    assert.equal(number, 1319);
    assert.equal(worked, 1319);
  });

  it("GSM8K: another task's answer fails exactly when the integers differ", async () => {
    const set = await loadTaskSet(path.join(data, "gsm8k/test.jsonl"));
    const tasks = set.tasks as MathAnswerTask[];
    let mismatches = 0;
    for (const [i, task] of tasks.entries()) {
      const other = tasks[(i + 1) % tasks.length]!.answer;
      const v = await grader.grade(task, other);
      assert.equal(v.pass, BigInt(other) === BigInt(task.answer), `${task.id}: ${v.reason}`);
      if (!v.pass) mismatches++;
    }
    assert.ok(mismatches > 1200);
  });

  it("MATH-500: `answer` and the full `solution` (last \\boxed) pass, 500/500", async () => {
    const set = await loadTaskSet(path.join(data, "math500/test.jsonl"));
    const raw = rawLines("math500/test.jsonl");
    let answers = 0;
    let solutions = 0;
    for (const [i, task] of set.tasks.entries()) {
      const r = raw[i]!;
      if ((await grader.grade(task, r.answer as string)).pass) answers++;
      const v = await grader.grade(task, r.solution as string);
      if (v.pass) solutions++;
      else assert.fail(`${task.id}: ${v.reason}`);
    }
    assert.equal(answers, 500);
    assert.equal(solutions, 500);
  });

  it("MATH-500: a neighbour's answer passes only when it is the same answer written differently", async () => {
    const set = await loadTaskSet(path.join(data, "math500/test.jsonl"));
    const tasks = set.tasks as MathAnswerTask[];
    const squash = (s: string) => s.replace(/\s+/g, "");
    const passed: string[] = [];
    for (const [i, task] of tasks.entries()) {
      for (const k of [1, 7, 31]) {
        const other = tasks[(i + k) % tasks.length]!.answer;
        if ((await grader.grade(task, other)).pass && squash(other) !== squash(task.answer)) passed.push(`${task.answer} | ${other}`);
      }
    }
    // Every cross-task pass must be a genuine equivalence; list them so a regression shows what slipped.
    // Independent, much cruder oracle: degrees, dollar signs and a leading `x=` are notation only.
    const core = (s: string) => squash(s).replace(/\^\\circ|\\\$|^[a-z]=/g, "");
    for (const p of passed) {
      const [a, b] = p.split(" | ") as [string, string];
      assert.equal(core(a), core(b), p);
    }
    assert.ok(passed.length > 0, "the neighbour set includes some notation-only differences");
  });
});

describe("MATH-500 answers rewritten the way models write them", () => {
  const answers = rawLines("math500/test.jsonl").map((r) => r.answer as string);
  const rewrites: Record<string, (a: string) => string> = {
    "inside $...$": (a) => `$${a}$`,
    "\\dfrac for \\frac": (a) => a.replace(/\\frac/g, "\\dfrac"),
    "no spaces": (a) => a.replace(/\s+/g, ""),
    // Not for a lone number: `58, 500` is a list of two numbers, `58,500` one number.
    "space after commas": (a) => (/^[\d,]+$/.test(a) ? a : a.replace(/,\s*/g, ", ")),
    "no \\left/\\right": (a) => a.replace(/\\left|\\right/g, ""),
    "boxed in a sentence": (a) => `Thus the answer is $\\boxed{${a}}$.`,
    "trailing period": (a) => `${a}.`,
    "\\text unwrapped": (a) => a.replace(/\\text\{([^}]*)\}/g, "$1"),
    "Final Answer line": (a) => `We are done.\nFinal Answer: $${a}$`,
  };
  const grader = createMathGrader();
  for (const [name, rewrite] of Object.entries(rewrites)) {
    it(`${name}: 500/500`, async () => {
      const failed: string[] = [];
      for (const a of answers) if (!(await grader.grade(mathTask(a), rewrite(a))).pass) failed.push(`${a} -> ${rewrite(a)}`);
      assert.deepEqual(failed, []);
    });
  }
  it("every numeric answer plus one fails", async () => {
    let numeric = 0;
    for (const a of answers) {
      const n = normaliseMathAnswer(a);
      if (!evaluateRational(n)) continue;
      numeric++;
      const v = await grader.grade(mathTask(a), `${n}+1`);
      assert.equal(v.pass, false, a);
    }
    assert.ok(numeric > 350, `only ${numeric} numeric answers`);
  });
});

describe("math grader: verdicts and reasons", () => {
  const grader = createMathGrader();

  it("names expected and actual values", async () => {
    const v = await grader.grade(mathTask("18"), "17");
    assert.deepEqual(v, { pass: false, reason: "expected 18, got 17", failure: { kind: "wrong-answer", expected: "18", actual: "17" } });
    const ok = await grader.grade(mathTask("\\frac{1}{2}"), "0.5");
    assert.equal(ok.pass, true);
    assert.equal(ok.reason, "expected \\frac{1}{2}, got 0.5");
  });

  it("accepts the extracted answer or, harmlessly, the full response", async () => {
    const task = mathTask("\\frac{1}{2}");
    assert.equal((await grader.grade(task, "\\frac{1}{2}")).pass, true, "an extracted fraction is not re-extracted to its last number");
    assert.equal((await grader.grade(task, "We halve it.\nSo the result is $\\boxed{\\dfrac12}$.")).pass, true);
    assert.equal((await grader.grade(task, "Answer: 1/2")).pass, true);
    const prose = await grader.grade(mathTask("5"), "The number of apples left over after lunch is 7");
    assert.equal(prose.reason, "expected 5, got 7");
    const extracted = extractMathAnswer("Thinking...\n\\boxed{12}");
    assert.equal((await grader.grade(mathTask("12"), extracted)).pass, true);
  });

  it("no answer is a failing verdict with a hint, never an exception", async () => {
    for (const a of [null, "", "   ", "I could not solve it."]) {
      const v = await grader.grade(mathTask("3"), a);
      assert.equal(v.pass, false);
      assert.equal(v.failure?.kind, "no-answer");
      assert.match(v.reason, /^no final answer found \(expected 3\)/);
    }
  });

  it("long answers are shortened in the reason, kept whole in the failure detail", async () => {
    const long = "1+".repeat(100) + "1";
    const v = await grader.grade(mathTask("2"), long);
    assert.ok(v.reason.length < 120);
    assert.equal(v.failure?.actual, extractMathAnswer(long) ?? long);
  });

  it("refuses a python task (a configuration error) and honours an aborted signal", async () => {
    const py = { id: "p", kind: "python-function", prompt: "p", entryPoint: "f", canonicalSolution: "def f(): pass", tests: { base: [], plus: [], atol: 0, oracle: "default" } } as Task;
    await assert.rejects(grader.grade(py, "1"), /math grader got a python-function task/);
    await assert.rejects(grader.grade(mathTask("\\text{ }"), "1"), /reference answer .* is empty after normalisation/);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(grader.grade(mathTask("1"), "1", { signal: ac.signal }), { name: "AbortError" });
    await grader.dispose();
    await grader.dispose();
  });
});
