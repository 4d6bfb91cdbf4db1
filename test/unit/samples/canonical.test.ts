import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createMathGrader } from "../../../src/core/grading/math.js";
import { createPythonGrader } from "../../../src/core/grading/python-grader.js";
import type { MathAnswerTask, PythonFunctionTask, Task } from "../../../src/core/tasks/schema.js";

/**
 * The built-in sets are only useful if their references are right and their tags are true: every canonical
 * solution and answer passes the product's own graders, the counter-example skills' transformations fail
 * exactly the tasks tagged `harmed-by`, and the slips the helpful skills warn about really fail their tasks.
 */

const root = process.cwd();
function readTasks<T extends Task>(file: string): T[] {
  return readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}
const tagged = (t: Task, tag: string) => (t.tags ?? []).includes(tag);

describe("math-word samples under the math grader", () => {
  const tasks = readTasks<MathAnswerTask>("samples/math-word.jsonl");
  const grader = createMathGrader();

  it("every reference answer passes, boxed in a full response and as the bare extracted answer", async () => {
    for (const t of tasks) {
      for (const answer of [`So the result is \\boxed{${t.answer}}.`, t.answer]) {
        const v = await grader.grade(t, answer);
        assert.ok(v.pass, `${t.id}: ${JSON.stringify(answer)}: ${v.reason}`);
      }
    }
  });

  it("rounding money to whole units fails exactly the tasks tagged harmed-by:round-money-whole-units", async () => {
    let harmed = 0;
    for (const t of tasks.filter((x) => tagged(x, "money"))) {
      const rounded = Math.round(Number(t.answer));
      assert.ok(Number.isFinite(rounded), `${t.id}: money answer ${t.answer} is not a plain number`);
      const v = await grader.grade(t, `\\boxed{${rounded}}`);
      assert.equal(!v.pass, tagged(t, "harmed-by:round-money-whole-units"), `${t.id}: ${v.reason}`);
      if (!v.pass) harmed++;
    }
    assert.ok(harmed >= 5);
  });

  it("the slips the math skills warn about are graded wrong", async () => {
    const slips: Record<string, string> = {
      "math-train-minutes": "1800", // km/h times minutes
      "math-dripping-tap": "21600", // millilitres reported as litres
      "math-of-the-rest": "50", // 1/3 of the total instead of the rest
      "math-up-down-percent": "0", // +20% then -20% is not a wash
      "math-how-many-more": "144", // the total, not the difference
      "math-fraction-of-day": "0.67", // a rounded decimal, not the exact fraction
    };
    for (const [id, wrong] of Object.entries(slips)) {
      const t = tasks.find((x) => x.id === id);
      assert.ok(t, id);
      const v = await grader.grade(t, `\\boxed{${wrong}}`);
      assert.equal(v.pass, false, `${id}: ${wrong} should fail: ${v.reason}`);
    }
  });
});

// In the runtime an evaluation of the samples gets here (`auto`: CPython where its probe passes, else Pyodide). What
// these tests check is the data (references, tags, slips), not a runtime: each runtime has its own canonical sweep.
describe("python-basics samples in the sandbox", () => {
  const tasks = readTasks<PythonFunctionTask>("samples/python-basics.jsonl");
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), "sf-samples-expected-"));
  const grader = createPythonGrader({ cacheDir, python: "auto" });
  after(async () => {
    await grader.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("every canonical solution passes all of its base and plus inputs", async () => {
    const verdicts = await Promise.all(tasks.map(async (t) => [t.id, await grader.grade(t, t.canonicalSolution)] as const));
    const failed = verdicts.filter(([, v]) => !v.pass).map(([id, v]) => `${id}: ${v.reason}`);
    assert.deepEqual(failed, []);
  });

  it("sorting and de-duplicating returned lists fails exactly the tasks tagged harmed-by:tidy-list-outputs", async () => {
    const results = await Promise.all(
      tasks.map(async (t) => {
        const tidied = `${t.canonicalSolution}\n_untidy = ${t.entryPoint}\n\ndef ${t.entryPoint}(*args):\n    r = _untidy(*args)\n    try:\n        return sorted(set(r)) if isinstance(r, list) else r\n    except TypeError:\n        return r\n`;
        const v = await grader.grade(t, tidied);
        return { t, v };
      }),
    );
    const mismatched = results.filter(({ t, v }) => v.pass === tagged(t, "harmed-by:tidy-list-outputs")).map(({ t, v }) => `${t.id}: ${v.reason}`);
    assert.deepEqual(mismatched, []);
    assert.ok(results.filter(({ v }) => !v.pass).length >= 5);
  });

  it("the mistakes the python skills warn about fail their tasks", async () => {
    const slips: Record<string, string> = {
      "py-safe-average": "def safe_average(nums):\n    return sum(nums) / len(nums)",
      "py-last-digit": "def last_digit(n):\n    return n % 10",
      "py-mean-round-half-up": "def mean_rounded(nums, places):\n    return round(sum(nums) / len(nums), places)",
      "py-is-perfect-square": "def is_perfect_square(n_text):\n    n = int(n_text)\n    return n >= 0 and int(n ** 0.5) ** 2 == n",
      "py-div-toward-zero": "def div_toward_zero(a, b):\n    return a // b",
      "py-fib": "from functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)",
      "py-valid-code": "import re\n\ndef is_valid_code(s):\n    return re.match(r'[A-Z]{2}-\\d{4}$', s) is not None",
      "py-min-max": "def min_max(nums):\n    return [min(nums), max(nums)]",
      "py-top-k-words": "from collections import Counter\n\ndef top_k_words(words, k):\n    c = Counter(words)\n    return sorted(c, key=lambda w: (-c[w], w))[:k]",
      "py-split-on-chars": "import re\n\ndef split_on_chars(text, seps):\n    return [p for p in re.split('[' + seps + ']', text) if p]",
    };
    const results = await Promise.all(
      Object.entries(slips).map(async ([id, code]) => {
        const t = tasks.find((x) => x.id === id);
        assert.ok(t, id);
        return { id, v: await grader.grade(t, code) };
      }),
    );
    const passed = results.filter(({ v }) => v.pass).map(({ id }) => id);
    assert.deepEqual(passed, [], "these naive answers should fail");
  });
});
