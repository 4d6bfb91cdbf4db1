/**
 * Every canonical solution of MBPP+ and HumanEval+ through the sandbox, graded like a model answer, from a cold
 * cache (expected outputs included): `node --import tsx bench/sweep.ts [mbpp|humaneval|all] [cacheDir]`. Prints the
 * failures and the wall time; run it under `/usr/bin/time -v` to see the CPU it costs (a fair measure on a busy box).
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPythonGrader } from "../src/core/grading/python-grader.js";
import { loadEvalPlus } from "../test/unit/grading/python/support.js";

async function main(): Promise<void> {
  const which = process.argv[2] ?? "all";
  const cacheDir = process.argv[3] ?? mkdtempSync(path.join(os.tmpdir(), "sf-sweep-"));
  const sets = [
    ...(which !== "mbpp" ? [loadEvalPlus("humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz")] : []),
    ...(which !== "humaneval" ? [loadEvalPlus("mbppplus/MbppPlus-v0.2.0.jsonl.gz")] : []),
  ];
  const grader = createPythonGrader({ poolSize: 2, cacheDir });
  await grader.ready();
  for (const tasks of sets) {
    const t0 = performance.now();
    const verdicts = await Promise.all(tasks.map(async (t) => ({ id: t.id, v: await grader.grade(t, t.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) })) })));
    const failed = verdicts.filter((x) => !x.v.pass);
    process.stdout.write(`${tasks[0]?.id.split("/")[0]}: ${tasks.length - failed.length}/${tasks.length} pass in ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(1)})\n`);
    for (const f of failed) process.stdout.write(`  ${f.id}: ${f.v.reason}\n`);
  }
  await grader.dispose();
}

void main();
