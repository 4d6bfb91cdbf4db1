/**
 * Sandbox throughput on MBPP+: every canonical solution checked against every base+plus input through the
 * Pyodide sandbox (expected outputs computed in the sandbox too), against the EvalPlus way on the same
 * machine: one CPython subprocess per task (`python3 -I`) that computes the expected outputs and checks.
 * Both sides run 2 at a time. Also: cold start of a sandbox process and the per-task fresh-interpreter cost.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { createPythonGrader } from "../src/core/grading/python-grader.js";
import { SandboxPool } from "../src/core/sandbox/runner.js";
import { stringifyJsonLossless } from "../src/core/tasks/evalplus-json.js";
import { evalplusImporters } from "../src/core/tasks/evalplus.js";
import { PythonFunctionTaskSchema, type PythonFunctionTask } from "../src/core/tasks/schema.js";

const repoRoot = path.resolve(__dirname, "..");
const MBPP = path.resolve(repoRoot, "../shared/data/mbppplus/MbppPlus-v0.2.0.jsonl.gz");

function loadMbpp(): PythonFunctionTask[] {
  const lines = gunzipSync(readFileSync(MBPP)).toString("utf8").split("\n").filter((l) => l.trim());
  const importer = evalplusImporters.find((i) => i.detect(JSON.parse(lines[0]!) as Record<string, unknown>))!;
  return lines.map((l, i) => PythonFunctionTaskSchema.parse(importer.convert(importer.parseLine!(l), i)));
}

// The CPython side: expected outputs from the canonical solution, then a fresh namespace checks it (==).
const CPYTHON_CHECK = `
import sys, json, copy
job = json.loads(sys.stdin.read())
ns = {}
if job.get("deserialize"): exec(job["deserialize"], ns)
deser = ns.get("deserialize", lambda a: a)
inputs = json.loads(job["inputs"])
g = {}; exec(job["code"], g); fn = g[job["entry"]]
expected = [fn(*deser(copy.deepcopy(i))) for i in inputs]
c = {}; exec(job["code"], c); fn = c[job["entry"]]
bad = sum(1 for i, e in zip(inputs, expected) if fn(*deser(copy.deepcopy(i))) != e and job["oracle"] == "default")
print(bad)
`;

function runCpython(task: PythonFunctionTask): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("python3", ["-I", "-c", CPYTHON_CHECK], { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => resolve(code === 0 && out.trim() === "0"));
    child.stdin.end(
      JSON.stringify({
        code: task.canonicalSolution,
        entry: task.entryPoint,
        deserialize: task.tests.deserialize,
        oracle: task.tests.oracle,
        inputs: stringifyJsonLossless([...task.tests.base, ...task.tests.plus]),
      }),
    );
  });
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

export async function benchSandbox(options: { distDir?: string; limit?: number } = {}): Promise<Record<string, number | string>> {
  const tasks = loadMbpp().slice(0, options.limit ?? Infinity);
  const result: Record<string, number | string> = { tasks: tasks.length };

  // Cold start and per-task interpreter cost, on one idle process.
  let t = performance.now();
  const pool = SandboxPool.create({ poolSize: 1, distDir: options.distDir });
  result.isolation = pool.isolation;
  result["cold start, spawn to ready (ms)"] = Math.round(await pool.ready());
  result["cold start, host wall (ms)"] = Math.round(performance.now() - t);
  const interp: number[] = [];
  for (let i = 0; i < 10; i++) interp.push((await pool.run({ mode: "exec", code: "x = 1", capMs: 5000 })).interpreterMs);
  await pool.finish();
  interp.sort((a, b) => a - b);
  result["fresh interpreter per task, median (ms)"] = Math.round(interp[5]!);

  // All MBPP+ canonical solutions through the sandbox: expected outputs + check, 2 processes.
  const cache = mkdtempSync(path.join(os.tmpdir(), "sf-bench-verdicts-"));
  const caches = { cacheDir: path.join(cache, "expected"), verdictCacheDir: path.join(cache, "verdicts") };
  const grader = createPythonGrader({ poolSize: 2, distDir: options.distDir, ...caches });
  await grader.ready();
  t = performance.now();
  const verdicts = await Promise.all(tasks.map((task) => grader.grade(task, task.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) }))));
  const sandboxMs = performance.now() - t;
  await grader.dispose();
  result["sandbox: canonical pass"] = `${verdicts.filter((v) => v.pass).length}/${tasks.length}`;
  const failed = tasks.filter((_, i) => !verdicts[i]!.pass).map((t, i) => `${t.id} (${verdicts.filter((v) => !v.pass)[i]!.reason.slice(0, 120)})`);
  if (failed.length > 0) result["sandbox: failed tasks"] = failed.join("; ");
  result["sandbox: wall (s)"] = Number((sandboxMs / 1000).toFixed(1));

  // An unchanged re-run: a new grader (a new process would do the same) finds every verdict in the cache.
  const again = createPythonGrader({ poolSize: 2, distDir: options.distDir, ...caches });
  t = performance.now();
  const cached = await Promise.all(tasks.map((task) => again.grade(task, task.canonicalSolution).catch(() => ({ pass: false }))));
  const cachedMs = performance.now() - t;
  await again.dispose();
  rmSync(cache, { recursive: true, force: true });
  result["unchanged re-run, verdicts cached: same verdicts"] = cached.every((v, i) => v.pass === verdicts[i]!.pass) ? "yes" : "NO";
  result["unchanged re-run, verdicts cached: wall (ms)"] = Math.round(cachedMs);
  result["unchanged re-run / first check, wall ratio"] = Number((cachedMs / sandboxMs).toFixed(4));

  t = performance.now();
  const cpy = await mapLimit(tasks, 2, runCpython);
  const cpythonMs = performance.now() - t;
  result["cpython subprocess per task: pass"] = `${cpy.filter(Boolean).length}/${tasks.length}`;
  result["cpython subprocess per task: wall (s)"] = Number((cpythonMs / 1000).toFixed(1));
  result["sandbox / cpython wall ratio"] = Number((sandboxMs / cpythonMs).toFixed(2));
  return result;
}

if (require.main === module) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  const distDir = process.argv[3];
  void benchSandbox({ limit, distDir }).then((r) => process.stdout.write(JSON.stringify(r, null, 2) + "\n"));
}
