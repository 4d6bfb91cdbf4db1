/**
 * Every canonical solution of HumanEval+, MBPP+ and the OriginFmt subset through the sandbox, graded like a model
 * answer, from a cold cache (expected outputs included), in one queue with the measured slowest first — exactly what
 * test/unit/grading/python/canonical.test.ts does:
 *   node --import tsx bench/sweep.ts [all|mbpp|humaneval|origin] [--python pyodide|cpython] [--sample] [cacheDir]
 * `--python` picks the runtime (default pyodide); `--sample` checks only the tasks canonical.test.ts gives Pyodide on
 * Linux (pyodideSample: every 4th task plus the Pyodide hazards). Exits 1 when a canonical solution fails.
 * Prints per set the passes and when its last verdict came, the CPU time every sandbox process used (Linux), the load
 * average, and the tasks that finished last with the canonical solution's own time (what the tail is made of).
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createPythonGrader } from "../src/core/grading/python-grader.js";
import type { PythonFunctionTask } from "../src/core/tasks/schema.js";
import { loadEvalPlus, pyodideSample, slowestFirst } from "../test/unit/grading/python/support.js";

const pick = (ts: PythonFunctionTask[], special: string[]) => ts.filter((t, i) => i % 8 === 0 || special.includes(t.id));

function sets(which: string): Record<string, PythonFunctionTask[]> {
  const out: Record<string, PythonFunctionTask[]> = {};
  if (which === "all" || which === "humaneval") out.humaneval = loadEvalPlus("humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz");
  if (which === "all" || which === "mbpp") out.mbpp = loadEvalPlus("mbppplus/MbppPlus-v0.2.0.jsonl.gz");
  if (which === "all" || which === "origin") {
    out.origin = [
      ...pick(loadEvalPlus("mbppplus/MbppPlus-OriginFmt-v0.2.0.jsonl.gz"), ["Mbpp/2", "Mbpp/124", "Mbpp/252", "Mbpp/581", "Mbpp/737", "Mbpp/722"]),
      ...pick(loadEvalPlus("humanevalplus/HumanEvalPlus-OriginFmt-v0.1.10.jsonl.gz"), ["HumanEval/32", "HumanEval/2"]),
    ];
  }
  return out;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { python: { type: "string", default: "pyodide" }, sample: { type: "boolean", default: false } } });
  if (values.python !== "pyodide" && values.python !== "cpython") throw new Error(`--python ${values.python}: pyodide or cpython`);
  const which = positionals[0] ?? "all";
  const cacheDir = positionals[1] ?? mkdtempSync(path.join(os.tmpdir(), "sf-sweep-"));
  const bySet = sets(which);
  if (values.sample) for (const name of ["humaneval", "mbpp"]) if (bySet[name]) bySet[name] = pyodideSample(bySet[name]);
  const grader = createPythonGrader({ poolSize: 2, cacheDir, python: values.python });
  await grader.ready();
  const load0 = os.loadavg()[0]!.toFixed(1);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const setOf = new Map<PythonFunctionTask, string>();
  for (const [name, tasks] of Object.entries(bySet)) for (const t of tasks) setOf.set(t, name);
  const done = await Promise.all(
    slowestFirst([...setOf.keys()]).map(async (t) => {
      const v = await grader.grade(t, t.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) }));
      const at = performance.now() - t0;
      const exp = await grader.expected(t).catch(() => undefined);
      return { t, v, at, canonicalMs: exp ? exp.timesMs.reduce((a, b) => a + b, 0) : NaN };
    }),
  );
  const wall = performance.now() - t0;
  const host = process.cpuUsage(cpu0);
  await grader.dispose();
  const u = grader.pool.usage;
  for (const name of Object.keys(bySet)) {
    const mine = done.filter((d) => setOf.get(d.t) === name);
    const failed = mine.filter((d) => !d.v.pass);
    const last = Math.max(...mine.map((d) => d.at));
    process.stdout.write(`${name}: ${mine.length - failed.length}/${mine.length} pass, last verdict at ${(last / 1000).toFixed(1)} s\n`);
    for (const f of failed) process.stdout.write(`  ${f.t.id}: ${f.v.reason}\n`);
    if (failed.length > 0) process.exitCode = 1;
  }
  const cpu = (u.answerCpuMs + u.referenceCpuMs + (host.user + host.system) / 1000) / 1000;
  process.stdout.write(
    `all: ${(wall / 1000).toFixed(1)} s wall; CPU ${cpu.toFixed(0)} s (answers ${(u.answerCpuMs / 1000).toFixed(0)} s over ${u.answers} processes, ` +
      `references ${(u.referenceCpuMs / 1000).toFixed(0)} s, host ${((host.user + host.system) / 1e6).toFixed(0)} s); load ${load0} → ${os.loadavg()[0]!.toFixed(1)}\n`,
  );
  process.stdout.write("finished last (verdict at, canonical solution's own time in the reference):\n");
  for (const d of [...done].sort((a, b) => b.at - a.at).slice(0, 10)) {
    process.stdout.write(`  ${d.t.id} (${setOf.get(d.t)}): ${(d.at / 1000).toFixed(1)} s, canonical ${(d.canonicalMs / 1000).toFixed(1)} s\n`);
  }
}

void main();
