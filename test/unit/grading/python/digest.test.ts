import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createPythonGrader, type PythonGrader } from "../../../../src/core/grading/python-grader.js";
import type { PythonFunctionTask } from "../../../../src/core/tasks/schema.js";
import { sandboxDist } from "./support.js";

// Expected outputs over 1 MiB are kept as a digest of a canonical form, and the answer's process sends the same digest
// of its own output (it never sees the expected one). The digest takes fast paths by chunk (pickle for str, tuples of
// str and finite non-integral floats, repr for int/str mixes), so these tests pin down that it still follows Python ==: equal values built
// another way, or of other numeric types, pass; any change of type or value, deep inside a chunk, fails.
let grader: PythonGrader;
let cacheDir: string;

before(async () => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), "sf-digest-"));
  grader = createPythonGrader({ distDir: await sandboxDist(), poolSize: 2, cacheDir, minTimeLimitMs: 20_000 });
});
after(async () => {
  await grader.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

function task(id: string, canonical: string, n: number): PythonFunctionTask {
  return { id, kind: "python-function", prompt: id, entryPoint: "f", canonicalSolution: canonical, tests: { base: [[n]], plus: [], atol: 0, oracle: "default" } };
}

async function verdicts(t: PythonFunctionTask, answers: Record<string, string>): Promise<Record<string, boolean>> {
  const exp = await grader.expected(t);
  assert.ok("h" in exp.values[0]!, `${t.id}: the expected output is kept as a digest`);
  const out = await Promise.all(Object.entries(answers).map(async ([k, a]) => [k, (await grader.grade(t, a)).pass] as const));
  return Object.fromEntries(out);
}

test("huge lists of tuples of str (the pickle path): equal values pass, a list for a tuple or one changed item fails", async () => {
  const t = task("digest/pairs", "def f(n):\n    return [('k%d' % i, 'v\\u00e9\\x00') for i in range(n)]\n", 80_000);
  const got = await verdicts(t, {
    same: "def f(n):\n    out = []\n    for i in range(n):\n        out.append(tuple(['k' + str(i), 'v\\u00e9' + chr(0)]))\n    return out\n",
    listsForTuples: "def f(n):\n    return [['k%d' % i, 'v\\u00e9\\x00'] for i in range(n)]\n",
    oneChanged: "def f(n):\n    r = [('k%d' % i, 'v\\u00e9\\x00') for i in range(n)]\n    r[45_017] = ('k45017', 'v\\u00e9\\x01')\n    return r\n",
    oneListInside: "def f(n):\n    r = [('k%d' % i, 'v\\u00e9\\x00') for i in range(n)]\n    r[12_345] = ['k12345', 'v\\u00e9\\x00']\n    return r\n",
    tupleOfLists: "def f(n):\n    return tuple([('k%d' % i, 'v\\u00e9\\x00') for i in range(n)])\n",
    strSubclass: "class S(str):\n    pass\ndef f(n):\n    return [(S('k%d' % i), 'v\\u00e9\\x00') for i in range(n)]\n",
  });
  assert.deepEqual(got, { same: true, listsForTuples: false, oneChanged: false, oneListInside: false, tupleOfLists: false, strSubclass: false });
});

test("huge lists of str and of numbers: Python's numeric equality holds (1 == 1.0 == True == 1+0j), types of containers do not blur", async () => {
  const strs = task("digest/strs", "def f(n):\n    return ['x' * (i % 7) + str(i) for i in range(n)]\n", 120_000);
  assert.deepEqual(
    await verdicts(strs, {
      same: "def f(n):\n    return list(map(lambda i: 'x' * (i % 7) + str(i), range(n)))\n",
      intForStr: "def f(n):\n    r = ['x' * (i % 7) + str(i) for i in range(n)]\n    r[99_999] = 99999\n    return r\n",
    }),
    { same: true, intForStr: false },
  );
  const nums = task("digest/nums", "def f(n):\n    return [i if i % 3 else (i, -i) for i in range(n)]\n", 200_000);
  assert.deepEqual(
    await verdicts(nums, {
      floatsAndBools: "def f(n):\n    return [(True if i == 1 else complex(i, 0) if i == 2 else float(i)) if i % 3 else (i, -float(i)) for i in range(n)]\n",
      fraction: "def f(n):\n    r = [i if i % 3 else (i, -i) for i in range(n)]\n    r[150_001] = 150001.5\n    return r\n",
      innerList: "def f(n):\n    r = [i if i % 3 else (i, -i) for i in range(n)]\n    r[3] = [3, -3]\n    return r\n",
      bigInt: "def f(n):\n    r = [i if i % 3 else (i, -i) for i in range(n)]\n    r[4] = 4 + 2 ** 80\n    return r\n",
    }),
    { floatsAndBools: true, fraction: false, innerList: false, bigInt: false },
  );
  const ints = task("digest/ints", "def f(n):\n    return list(range(n))\n", 300_000);
  assert.deepEqual(
    await verdicts(ints, {
      floats: "def f(n):\n    r = [float(i) for i in range(n)]\n    r[1] = True\n    return r\n",
      tuple: "def f(n):\n    return tuple(range(n))\n",
      offByOne: "def f(n):\n    r = list(range(n))\n    r[-1] += 1\n    return r\n",
    }),
    { floats: true, tuple: false, offByOne: false },
  );
});

/** Each answer's verdict against the expected one: [answer, passes]. */
async function expectVerdicts(t: PythonFunctionTask, cases: Record<string, [string, boolean]>): Promise<void> {
  const answers = Object.fromEntries(Object.entries(cases).map(([k, [a]]) => [k, a]));
  const want = Object.fromEntries(Object.entries(cases).map(([k, [, pass]]) => [k, pass]));
  assert.deepEqual(await verdicts(t, answers), want);
}

test("huge lists of tuples of floats and bools (the pickle and repr paths): == holds across types, a NaN or one ulp fails", async () => {
  const halves = task("digest/halves", "def f(n):\n    return [(i + 0.5, -i - 0.25) for i in range(n)]\n", 80_000);
  await expectVerdicts(halves, {
    same: ["def f(n):\n    return [((2 * i + 1) / 2, -(4 * i + 1) / 4) for i in range(n)]\n", true],
    complexZero: ["def f(n):\n    r = [(i + 0.5, -i - 0.25) for i in range(n)]\n    r[77] = (complex(77.5, 0), -77.25)\n    return r\n", true],
    oneUlp: ["import math\ndef f(n):\n    r = [(i + 0.5, -i - 0.25) for i in range(n)]\n    r[40_000] = (40000.5, math.nextafter(-40000.25, 0))\n    return r\n", false],
    nan: ["def f(n):\n    r = [(i + 0.5, -i - 0.25) for i in range(n)]\n    r[5] = (5.5, float('nan'))\n    return r\n", false],
    strs: ["def f(n):\n    return [(repr(i + 0.5), repr(-i - 0.25)) for i in range(n)]\n", false],
  });
  // Integral floats are written as ints (C(2.0) is "2"): repr writes "2.0", so such a chunk takes the slow path and
  // must still meet an answer of ints, whose chunk takes the repr path.
  const whole = task("digest/whole", "def f(n):\n    return [(i * 1.0, i + 0.5, -0.0) for i in range(n)]\n", 60_000);
  await expectVerdicts(whole, {
    ints: ["def f(n):\n    return [(i, i + 0.5, 0) for i in range(n)]\n", true],
    bools: ["def f(n):\n    return [(i if i > 1 else bool(i), i + 0.5, False) for i in range(n)]\n", true],
    shifted: ["def f(n):\n    return [(i, i + 0.5, 1e-300) for i in range(n)]\n", false],
  });
  const flags = task("digest/flags", "def f(n):\n    return [(i % 2, i, 'inf') for i in range(n)]\n", 90_000);
  await expectVerdicts(flags, {
    bools: ["def f(n):\n    return [(i % 2 == 1, i, 'inf') for i in range(n)]\n", true],
    boolText: ["def f(n):\n    return [(i % 2, i, 'inf') if i != 7 else (1, 7, 'True') for i in range(n)]\n", false],
  });
});

// Finite, non-integral floats are pickled (8 IEEE bytes each) instead of written by repr: such a float equals only
// itself and complex(itself, 0). The path is chosen from the values alone, so these pin down the edges of that choice.
test("huge lists of floats (the pickle path): a complex with no imaginary part meets its float, a sum past the float range falls back to repr", async () => {
  // A list of floats alone is compared by value (with atol); one complex makes it a digest, its last chunk mixed.
  const tail = task("digest/float-tail", "def f(n):\n    return [i + 0.5 for i in range(n)] + [complex(2.5, 0)]\n", 200_000);
  await expectVerdicts(tail, {
    floats: ["def f(n):\n    return [i + 0.5 for i in range(n)] + [2.5]\n", true],
    complexes: ["def f(n):\n    return [complex(i + 0.5, -0.0) for i in range(n)] + [complex(2.5, 0)]\n", true],
    imaginary: ["def f(n):\n    return [i + 0.5 for i in range(n)] + [complex(2.5, 1e-300)]\n", false],
    oneInt: ["def f(n):\n    r = [i + 0.5 for i in range(n)] + [2.5]\n    r[123_456] = 123456\n    return r\n", false],
  });
  // Sums to inf: the chunks take repr's path on both sides, and == still holds.
  const huge = task("digest/float-huge", "def f(n):\n    return [(1.5e308 - i * 1e292, 1.25e308) for i in range(n)]\n", 60_000);
  await expectVerdicts(huge, {
    same: ["def f(n):\n    return [(float(repr(1.5e308 - i * 1e292)), 125e306) for i in range(n)]\n", true],
    complexZero: ["def f(n):\n    r = [(1.5e308 - i * 1e292, 1.25e308) for i in range(n)]\n    r[9] = (complex(r[9][0], 0), 1.25e308)\n    return r\n", true],
    infinity: ["def f(n):\n    r = [(1.5e308 - i * 1e292, 1.25e308) for i in range(n)]\n    r[9] = (float('inf'), 1.25e308)\n    return r\n", false],
  });
});

// Ints past 100,000 bits travel in hex (str(int) is quadratic before CPython 3.12; HumanEval/83 took minutes natively).
// One such int is a plain value (under 1 MiB); a list of them is a digest; both must still follow ==, in both runtimes.
for (const python of ["pyodide", "cpython"] as const) {
  test(`huge ints (${python}): a value and a digest in hex follow ==, and a failure names a readable int`, { skip: python === "cpython" && process.platform !== "linux" ? "Linux only" : false }, async () => {
    const g = python === "pyodide" ? grader : createPythonGrader({ distDir: await sandboxDist(), poolSize: 2, cacheDir: path.join(cacheDir, "cpython"), minTimeLimitMs: 20_000, python });
    try {
      const one: PythonFunctionTask = { id: "digest/bigint", kind: "python-function", prompt: "big", entryPoint: "f", canonicalSolution: "def f(n):\n    return 18 * 10 ** (n - 2)\n", tests: { base: [[40_000], [5]], plus: [[120_000]], atol: 0, oracle: "default" } };
      const exp = await g.expected(one);
      assert.match(JSON.stringify(exp.values[0]), /"i":"0x[0-9a-f]+"/, "an int of 132,872 bits is sent in hex");
      assert.equal(JSON.stringify(exp.values[1]), `{"v":18000}`, "a small int stays a plain number");
      const same = await g.grade(one, "def f(n):\n    return int('18' + '0' * (n - 2))\n");
      assert.equal(same.pass, true, same.reason);
      const floatish = await g.grade(one, "def f(n):\n    return 18 * 10 ** (n - 2) if n > 10 else 18000.0\n");
      assert.equal(floatish.pass, true, "18000.0 == 18000 still holds");
      const off = await g.grade(one, "def f(n):\n    return 18 * 10 ** (n - 2) + (n > 10)\n");
      assert.equal(off.pass, false);
      assert.match(off.reason, /^base input #0 \[40000\]: expected 0x[0-9a-f]+/);
      const negative = await g.grade(one, "def f(n):\n    return -18 * 10 ** (n - 2)\n");
      assert.equal(negative.pass, false);
      const many = task("digest/bigints", "def f(n):\n    return [7 ** 40_000 + i for i in range(n)]\n", 100);
      const got: Record<string, boolean> = {};
      for (const [k, a] of Object.entries({ same: "def f(n):\n    b = 7 ** 40_000\n    return [b + i for i in range(n)]\n", oneOff: "def f(n):\n    r = [7 ** 40_000 + i for i in range(n)]\n    r[57] -= 1\n    return r\n" })) {
        got[k] = (await g.grade(many, a)).pass;
      }
      assert.ok("h" in (await g.expected(many)).values[0]!, "a list of 100 such ints is kept as a digest");
      assert.deepEqual(got, { same: true, oneOff: false });
    } finally {
      if (g !== grader) await g.dispose();
    }
  });
}
