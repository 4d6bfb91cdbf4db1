import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { createPythonGrader, type PythonGrader } from "../../../../src/core/grading/python-grader.js";
import type { PythonFunctionTask } from "../../../../src/core/tasks/schema.js";
import { loadEvalPlus, repoRoot, sandboxDist } from "./support.js";

// Every canonical solution must pass every base+plus input through the sandbox, graded like a model answer
// (fresh interpreter, per-input limits). Expected outputs are cached under node_modules/.cache, so a re-run
// only pays for the checks. This is the heaviest unit test (minutes on 2 cores); see the report for timings.
let grader: PythonGrader;

before(async () => {
  grader = createPythonGrader({ distDir: await sandboxDist(), poolSize: 2, cacheDir: path.join(repoRoot, "node_modules/.cache/sf-expected") });
  await grader.ready();
});
after(() => grader.dispose());

async function failures(tasks: PythonFunctionTask[]): Promise<string[]> {
  const verdicts = await Promise.all(tasks.map(async (t) => ({ id: t.id, v: await grader.grade(t, t.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) })) })));
  return verdicts.filter((x) => !x.v.pass).map((x) => `${x.id}: ${x.v.reason}`);
}

test("all 164 HumanEval+ canonical solutions pass all 124,253 inputs", async () => {
  const tasks = loadEvalPlus("humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz");
  assert.equal(tasks.length, 164);
  assert.deepEqual(await failures(tasks), []);
});

test("all 378 MBPP+ canonical solutions pass all 41,015 inputs", async () => {
  const tasks = loadEvalPlus("mbppplus/MbppPlus-v0.2.0.jsonl.gz");
  assert.equal(tasks.length, 378);
  assert.deepEqual(await failures(tasks), []);
});

test("OriginFmt layouts grade the same way (Python-literal inputs; HumanEval/32 via the oracle, not its broken check)", async () => {
  // Every 8th task plus the special ones keeps this part short; the EvalPlus-layout tests above cover all tasks.
  const pick = (ts: PythonFunctionTask[], special: string[]) => ts.filter((t, i) => i % 8 === 0 || special.includes(t.id));
  const mbpp = pick(loadEvalPlus("mbppplus/MbppPlus-OriginFmt-v0.2.0.jsonl.gz"), ["Mbpp/2", "Mbpp/124", "Mbpp/252", "Mbpp/581", "Mbpp/737", "Mbpp/722"]);
  const he = pick(loadEvalPlus("humanevalplus/HumanEvalPlus-OriginFmt-v0.1.10.jsonl.gz"), ["HumanEval/32", "HumanEval/2"]);
  assert.deepEqual(await failures([...mbpp, ...he]), []);
  // And a wrong answer is still caught through this path.
  const v = await grader.grade(he.find((t) => t.id === "HumanEval/32")!, "def find_zero(xs):\n    return 0.123\n");
  assert.equal(v.pass, false);
});
