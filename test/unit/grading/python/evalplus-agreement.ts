/**
 * Compares our python grader with the verdicts EvalPlus itself recorded for 820 real model solutions
 * (MapCoder's HumanEval+ files, see ../shared/data/README.md §5). Used by a sampled unit test and by the
 * opt-in full run: `npm run check:evalplus` (long: every wrong solution may use its 4 s limits).
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { createPythonGrader, type PythonGrader } from "../../../../src/core/grading/python-grader.js";
import type { PythonFunctionTask } from "../../../../src/core/tasks/schema.js";
import type { PythonRuntime } from "../../../../src/shared/vocabulary/index.js";
import { dataDir, loadEvalPlus, readGzipLines, repoRoot, sandboxDist } from "./support.js";

export interface Sample {
  file: string;
  taskId: string;
  solution: string;
  /** EvalPlus's recorded verdict: base and plus both "success". */
  recordedPass: boolean;
}

export function loadSamples(): Sample[] {
  const dir = path.join(dataDir, "model_solutions/humanevalplus");
  const out: Sample[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl.gz")).sort()) {
    const name = f.replace(/\.jsonl\.gz$/, "");
    const results = JSON.parse(readGzipLines(`model_solutions/humanevalplus/${name}_eval_results.json.gz`).join("\n")) as {
      eval: Record<string, { base: Array<[string, unknown]>; plus: Array<[string, unknown]> }>;
    };
    for (const line of readGzipLines(`model_solutions/humanevalplus/${f}`)) {
      const s = JSON.parse(line) as { task_id: string; solution: string };
      const r = results.eval[s.task_id];
      if (!r) continue;
      out.push({ file: name, taskId: s.task_id, solution: s.solution, recordedPass: r.base[0]?.[0] === "success" && r.plus[0]?.[0] === "success" });
    }
  }
  return out;
}

export interface Agreement {
  total: number;
  agree: number;
  disagreements: Array<{ sample: Sample; ours: boolean; reason: string }>;
  wallMs: number;
}

/** `python`: the sandbox runtime of the grader made here when none is given (default pyodide). */
export async function checkAgreement(samples: Sample[], grader?: PythonGrader, onProgress?: (done: number) => void, python: PythonRuntime = "pyodide"): Promise<Agreement> {
  const tasks = new Map<string, PythonFunctionTask>(loadEvalPlus("humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz").map((t) => [t.id, t]));
  const own = grader ?? createPythonGrader({ distDir: await sandboxDist(), cacheDir: path.join(repoRoot, "node_modules/.cache/sf-expected"), python });
  const t0 = performance.now();
  const disagreements: Agreement["disagreements"] = [];
  let done = 0;
  try {
    await Promise.all(
      samples.map(async (s) => {
        const v = await own.grade(tasks.get(s.taskId)!, s.solution);
        if (v.pass !== s.recordedPass) disagreements.push({ sample: s, ours: v.pass, reason: v.reason });
        onProgress?.(++done);
      }),
    );
  } finally {
    if (!grader) await own.dispose();
  }
  return { total: samples.length, agree: samples.length - disagreements.length, disagreements, wallMs: performance.now() - t0 };
}

// npm run check:evalplus [-- cpython]
if (require.main === module) {
  void (async () => {
    const samples = loadSamples();
    const python = process.argv[2] === "cpython" ? "cpython" : "pyodide";
    const result = await checkAgreement(
      samples,
      undefined,
      (n) => {
        if (n % 50 === 0) process.stderr.write(`${n}/${samples.length}\n`);
      },
      python,
    );
    process.stdout.write(`agreement with EvalPlus's recorded verdicts (${python}): ${result.agree}/${result.total} (target >= 808) in ${(result.wallMs / 1000).toFixed(0)} s\n`);
    for (const d of result.disagreements.sort((a, b) => a.sample.taskId.localeCompare(b.sample.taskId))) {
      process.stdout.write(`  ${d.sample.file} ${d.sample.taskId}: EvalPlus ${d.sample.recordedPass ? "pass" : "fail"}, ours ${d.ours ? "pass" : "fail"} (${d.reason.slice(0, 300)})\n`);
    }
    process.exitCode = result.agree >= 808 ? 0 : 1;
  })();
}
