import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createPythonGrader, taskHash, type PythonGrader } from "../../../../src/core/grading/python-grader.js";
import { parseJsonLossless } from "../../../../src/core/tasks/evalplus-json.js";
import type { PythonFunctionTask, PythonTests } from "../../../../src/core/tasks/schema.js";
import { sandboxDist } from "./support.js";

let grader: PythonGrader;
let cacheDir: string;

before(async () => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), "sf-expected-"));
  grader = createPythonGrader({ distDir: await sandboxDist(), poolSize: 2, cacheDir, minTimeLimitMs: 1000 });
});
after(async () => {
  await grader.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

function mk(id: string, canonical: string, entryPoint: string, tests: Partial<PythonTests> & { base: unknown[][] }): PythonFunctionTask {
  return { id, kind: "python-function", prompt: id, entryPoint, canonicalSolution: canonical, tests: { plus: [], atol: 0, oracle: "default", ...tests } };
}

test("answer null or blank: failing verdict without running anything", async () => {
  const t = mk("t/none", "def f(x):\n    return x\n", "f", { base: [[1]] });
  assert.deepEqual(await grader.grade(t, null), { pass: false, reason: "no python code block in the answer", failure: { kind: "no-answer" } });
  assert.equal((await grader.grade(t, "  \n")).pass, false);
});

test("exact comparison names the failing input, expected and actual values", async () => {
  const t = mk("t/exact", "def f(x, y):\n    return x + y\n", "f", { base: [[1, 2]], plus: [[3, 4], [10, 5]] });
  assert.equal((await grader.grade(t, "def f(x, y):\n    return x + y\n")).pass, true);
  const v = await grader.grade(t, "def f(x, y):\n    return x + y if x < 10 else 0\n");
  assert.equal(v.pass, false);
  assert.equal(v.reason, "plus input #1 [10, 5]: expected 15, got 0");
  assert.deepEqual(v.failure, { kind: "wrong-answer", input: "[10, 5]", expected: "15", actual: "0" });
});

test("types matter: tuple vs list and int vs float are different, as in Python ==", async () => {
  const t = mk("t/tuple", "def f(a):\n    return tuple(a)\n", "f", { base: [[[1, 2]]] });
  assert.equal((await grader.grade(t, "def f(a):\n    return list(a)\n")).pass, false);
  assert.equal((await grader.grade(t, "def f(a):\n    return (a[0], a[1])\n")).pass, true);
});

test("float rule: atol 1e-6 is forced for float outputs; explicit atol; type must match", async () => {
  const t = mk("t/float", "def f(x):\n    return x / 3\n", "f", { base: [[1]] });
  assert.equal((await grader.grade(t, "def f(x):\n    return x / 3 + 5e-7\n")).pass, true);
  assert.equal((await grader.grade(t, "def f(x):\n    return x / 3 + 5e-6\n")).pass, false);
  const loose = mk("t/atol", "def f(x):\n    return [x / 3, 1.0]\n", "f", { base: [[1]], atol: 1e-4 });
  assert.equal((await grader.grade(loose, "def f(x):\n    return [x / 3 + 5e-5, 1.0]\n")).pass, true);
  assert.equal((await grader.grade(loose, "def f(x):\n    return (x / 3 + 5e-5, 1.0)\n")).pass, false, "tuple vs list fails the type check");
});

test("Python numbers survive the trip: big ints, integral floats, Infinity", async () => {
  const base = parseJsonLossless("[[12345678901234567890], [5.0], [-Infinity]]") as unknown[][];
  const t = mk("t/nums", "def f(x):\n    return repr(x)\n", "f", { base });
  assert.equal((await grader.grade(t, "def f(x):\n    return repr(x)\n")).pass, true);
  const v = await grader.grade(t, "def f(x):\n    return 'x'\n");
  assert.match(v.reason, /base input #0 \[12345678901234567890\]: expected '12345678901234567890', got 'x'/);
  const v2 = await grader.grade(t, "def f(x):\n    return repr(x) if x != 5 else '5'\n");
  assert.match(v2.reason, /expected '5\.0', got '5'/);
});

test("deserialize, set and not-none oracles", async () => {
  const deser = mk("t/deser", "def f(a, b):\n    return type(a).__name__ + type(b).__name__\n", "f", {
    base: [[[1], [2]]],
    deserialize: "def deserialize(args):\n    return [tuple(a) for a in args]\n",
  });
  assert.equal((await grader.grade(deser, "def f(a, b):\n    return 'tupletuple'\n")).pass, true);
  const sets = mk("t/set", "def f(a):\n    return sorted(set(a))\n", "f", { base: [[[3, 1, 3, 2]]], oracle: "set" });
  assert.equal((await grader.grade(sets, "def f(a):\n    return tuple(set(a))\n")).pass, true);
  assert.equal((await grader.grade(sets, "def f(a):\n    return [1, 2]\n")).pass, false);
  const nn = mk("t/nn", "import re\ndef f(s):\n    return re.search('ab', s)\n", "f", { base: [["xab"], ["zz"]], oracle: "not-none" });
  assert.equal((await grader.grade(nn, "def f(s):\n    return 'ab' in s\n")).pass, true);
  assert.equal((await grader.grade(nn, "def f(s):\n    return 'yes'\n")).pass, false);
});

test("find_zero and alt-reference oracles", async () => {
  const setup = "import math\ndef poly(xs, x):\n    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n";
  const canonical = setup + "def find_zero(xs):\n    lo, hi = -100.0, 100.0\n    while hi - lo > 1e-12:\n        mid = (lo + hi) / 2\n        if poly(xs, lo) * poly(xs, mid) <= 0:\n            hi = mid\n        else:\n            lo = mid\n    return lo\n";
  const fz = mk("t/fz", canonical, "find_zero", { base: [[[-6, 11, -6, 1]], [[1, 1]]], oracle: "find_zero", atol: 1e-4, setup });
  // A different root of the same cubic passes; the helper comes from the prompt (setup).
  assert.equal((await grader.grade(fz, "def find_zero(xs):\n    for r in (1.0, 2.0, 3.0, -1.0):\n        if abs(poly(xs, r)) < 1e-9:\n            return r\n")).pass, true);
  assert.equal((await grader.grade(fz, "def find_zero(xs):\n    return 0.5\n")).pass, false);
  const alt = mk("t/alt", "def f(x):\n    return x * 2\n", "f", { base: [[3]], oracle: "alt-reference", reference: "def reference(x):\n    return x * 2 + 1\n" });
  assert.equal((await grader.grade(alt, "def f(x):\n    return 7\n")).pass, true);
  assert.equal((await grader.grade(alt, "def f(x):\n    return 8\n")).pass, false);
});

test("HumanEval prompts: a body-only answer continues the prompt; a full answer may use its imports", async () => {
  const prompt = 'from typing import List\n\ndef total(xs: List[int]) -> int:\n    """Sum."""\n';
  const t = mk("t/he", prompt + "    return sum(xs)\n", "total", { base: [[[1, 2, 3]]], setup: prompt });
  assert.equal((await grader.grade(t, "    return sum(xs)\n")).pass, true);
  assert.equal((await grader.grade(t, "def total(xs: List[int]) -> int:\n    return sum(xs)\n")).pass, true);
  // An answer that does not define the entry point continues the prompt, whose stub returns None.
  const missing = await grader.grade(t, "def other():\n    return 1\n");
  assert.equal(missing.reason, "base input #0 [[1, 2, 3]]: expected 6, got None");
});

test("errors: syntax error, exception on an input, missing entry point", async () => {
  const t = mk("t/err", "def f(x):\n    return x\n", "f", { base: [[1], [0]] });
  assert.match((await grader.grade(t, "def f(x)\n    return x\n")).reason, /failed to load: SyntaxError/);
  const v = await grader.grade(t, "def f(x):\n    return 1 // x and x\n");
  assert.equal(v.reason, "base input #1 [0]: raised ZeroDivisionError: division by zero");
  assert.equal(v.failure?.kind, "error");
  assert.match((await grader.grade(t, "x = 1\n")).reason, /does not define f\(\)/);
});

test("state does not leak between answers (fresh interpreter per answer)", async () => {
  const t = mk("t/leak", "import math\ndef f():\n    return math.pi\n", "f", { base: [[]] });
  await grader.grade(t, "import math\nmath.pi = 3\ndef f():\n    return math.pi\n");
  const v = await grader.grade(t, "import math\ndef f():\n    return math.pi\n");
  assert.equal(v.pass, true, v.reason);
});

test("expected outputs are computed once, cached on disk by task hash, and concurrent grades queue", async () => {
  const t = mk("t/cache", "def f(x):\n    return x * x\n", "f", { base: Array.from({ length: 20 }, (_, i) => [i]) });
  const verdicts = await Promise.all(Array.from({ length: 6 }, (_, i) => grader.grade(t, i % 2 ? "def f(x):\n    return x * x\n" : "def f(x):\n    return x + x\n")));
  assert.deepEqual(verdicts.map((v) => v.pass), [false, true, false, true, false, true]);
  assert.ok(filesIn(cacheDir).some((f) => f.endsWith(`${taskHash(t, grader.pool.runtime)}.json`)));
  // A second grader reads the disk cache instead of recomputing.
  const other = createPythonGrader({ distDir: await sandboxDist(), poolSize: 1, cacheDir });
  try {
    const e = await other.expected(t);
    assert.equal(e.count, 20);
  } finally {
    await other.dispose();
  }
});

test("a broken canonical solution is a configuration error, not a verdict", async () => {
  const t = mk("t/broken", "def f(x):\n    return 1 / 0\n", "f", { base: [[1]] });
  await assert.rejects(grader.grade(t, "def f(x):\n    return x\n"), /t\/broken: the canonical solution failed/);
});

test("a per-input timeout names the input and the limit", async () => {
  const t = mk("t/slow", "def f(x):\n    return x\n", "f", { base: [[1], [2]] });
  const v = await grader.grade(t, "def f(x):\n    while x == 2:\n        pass\n    return x\n");
  assert.equal(v.failure?.kind, "timeout");
  assert.match(v.reason, /^timeout on base input #1 \[2\]: timed out after 1\.0 s/);
  // A real infinite loop stays a failure: the re-check a timeout gets (load can starve a correct answer) fails too.
  assert.match(v.reason, /\(on a second attempt too\)$/);
});

/** Edits a checksummed cache entry as the host would write it: new data, new sha256. */
function rewriteEntry<T>(file: string, edit: (data: T) => T): void {
  const entry = JSON.parse(readFileSync(file, "utf8")) as { format: string; key: string; value: T };
  const body = JSON.stringify(edit(entry.value));
  writeFileSync(file, `{"format":${JSON.stringify(entry.format)},"key":${JSON.stringify(entry.key)},"sha256":"${createHash("sha256").update(body).digest("hex")}","value":${body}}`);
}

/** Files under a folder, recursively. */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

test("a sandbox process that dies mid-check is re-checked once on a fresh process; the answer's own verdict counts", async () => {
  let dispatched = 0;
  // The first answer process is killed as soon as it has its job, as when the OOM killer picks it.
  const one = createPythonGrader({ distDir: await sandboxDist(), poolSize: 1, cacheDir, onDispatch: (p) => void (dispatched++ === 0 && p.kill()) });
  try {
    const t = mk("t/crash", "def f(x):\n    return x\n", "f", { base: [[1]] });
    const v = await one.grade(t, "def f(x):\n    return x\n");
    assert.equal(v.pass, true, v.reason);
    assert.match(v.reason, /^passed all 1 inputs \(re-checked once after a first attempt failed: sandbox failure: the sandbox process ended \(exit code -, signal SIGKILL\)/);
    assert.equal(dispatched, 2);
  } finally {
    await one.dispose();
  }
});


test("verdicts are cached by task, answer and rules: an unchanged answer is not re-checked; timeouts are never cached", async () => {
  const verdictDir = mkdtempSync(path.join(os.tmpdir(), "sf-verdicts-"));
  const make = async () => createPythonGrader({ distDir: await sandboxDist(), poolSize: 1, cacheDir, verdictCacheDir: verdictDir, minTimeLimitMs: 1000 });
  const t = mk("t/vcache", "def f(x):\n    return x + 1\n", "f", { base: [[1], [2]] });
  const right = "def f(x):\n    return x + 1\n";
  const wrong = "def f(x):\n    return x + 2\n";
  const loops = "def f(x):\n    while True:\n        pass\n";
  let g = await make();
  try {
    assert.equal((await g.grade(t, right)).pass, true);
    assert.equal((await g.grade(t, wrong)).reason, "base input #0 [1]: expected 2, got 3");
    assert.equal((await g.grade(t, loops)).failure?.kind, "timeout");
    assert.equal(filesIn(verdictDir).length, 2, "the pass and the wrong answer are cached; the timeout is not");
  } finally {
    await g.dispose();
  }
  // Mark each cached verdict the way a trusted writer would (new content, new checksum), then grade again in a new
  // grader (a new run): the marks come back, so nothing ran.
  for (const f of filesIn(verdictDir)) rewriteEntry(f, (v: { reason: string }) => ({ ...v, reason: `${v.reason} [from cache]` }));
  g = await make();
  try {
    assert.equal((await g.grade(t, right)).reason, "passed all 2 inputs [from cache]");
    assert.equal((await g.grade(t, wrong)).reason, "base input #0 [1]: expected 2, got 3 [from cache]");
    // Any change to the answer or to the tests is a different key and is checked afresh.
    assert.equal((await g.grade(t, `${right}\n`)).reason, "passed all 2 inputs");
    const more = mk("t/vcache", t.canonicalSolution, "f", { base: [[1], [2]], plus: [[3]] });
    assert.equal((await g.grade(more, right)).reason, "passed all 3 inputs");
    // An entry edited without its checksum (a forged pass) is discarded and the answer is checked afresh.
    for (const f of filesIn(verdictDir)) {
      const entry = JSON.parse(readFileSync(f, "utf8")) as { value: { pass: boolean; reason: string } };
      entry.value = { pass: true, reason: "forged" };
      writeFileSync(f, JSON.stringify(entry));
    }
    assert.equal((await g.grade(t, wrong)).reason, "base input #0 [1]: expected 2, got 3");
    // A corrupt cache file is ignored, not trusted.
    for (const f of filesIn(verdictDir)) writeFileSync(f, "{not json");
    assert.equal((await g.grade(t, wrong)).reason, "base input #0 [1]: expected 2, got 3");
  } finally {
    await g.dispose();
    rmSync(verdictDir, { recursive: true, force: true });
  }
});
