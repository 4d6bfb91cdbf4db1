/**
 * Sandbox throughput on MBPP+: every canonical solution checked against every base+plus input through the
 * sandbox — a fresh confined process per answer, expected outputs from a reference process, comparison on the
 * host — against the EvalPlus way on the same machine: one CPython subprocess per task (`python3 -I`) that computes
 * the expected outputs and checks. Both sides run 2 at a time.
 *
 * The ratio is only worth something if both sides see the same machine, so the rounds interleave (sandbox then
 * CPython, then CPython then sandbox, ...), each side starts cold (no caches), and the report gives every round's
 * ratio with the load average around it, plus the median and the range. The CPython baseline is the interpreter
 * binary itself, resolved once: a `python3` that is a pyenv shim (a bash script) costs ~60 ms more per process, which
 * alone moved the old baseline by a large factor between machines.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
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
const CONCURRENCY = 2;

function loadMbpp(): PythonFunctionTask[] {
  const lines = gunzipSync(readFileSync(MBPP)).toString("utf8").split("\n").filter((l) => l.trim());
  const importer = evalplusImporters.find((i) => i.detect(JSON.parse(lines[0]!) as Record<string, unknown>))!;
  return lines.map((l, i) => PythonFunctionTaskSchema.parse(importer.convert(importer.parseLine!(l), i)));
}

/** The real CPython binary (not a shim), and its version. */
function cpython(): { bin: string; version: string } {
  let bin = "python3";
  try {
    bin = execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
    bin = realpathSync(bin);
  } catch {
    if (existsSync("/usr/bin/python3")) bin = "/usr/bin/python3";
  }
  const version = execFileSync(bin, ["-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { encoding: "utf8" }).trim();
  return { bin, version };
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

function runCpython(bin: string, task: PythonFunctionTask): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(bin, ["-I", "-c", CPYTHON_CHECK], { stdio: ["pipe", "pipe", "ignore"] });
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

const load = () => os.loadavg()[0]!.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One cold sandbox pass: a new grader with empty caches (expected outputs included), every canonical answer. */
async function sandboxPass(tasks: PythonFunctionTask[], distDir: string | undefined): Promise<{ ms: number; failed: string[]; cacheDir: string }> {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-cache-"));
  const grader = createPythonGrader({ poolSize: CONCURRENCY, distDir, cacheDir, verdictCacheDir: path.join(cacheDir, "verdicts") });
  // Warm-up (the interpreter snapshot and the first processes) is not timed; every expected output is.
  await grader.ready();
  const t = performance.now();
  const verdicts = await Promise.all(tasks.map((task) => grader.grade(task, task.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) }))));
  const ms = performance.now() - t;
  await grader.dispose();
  return { ms, failed: tasks.flatMap((t, i) => (verdicts[i]!.pass ? [] : [`${t.id} (${verdicts[i]!.reason.slice(0, 120)})`])), cacheDir };
}

export async function benchSandbox(options: { distDir?: string; limit?: number; rounds?: number } = {}): Promise<Record<string, number | string>> {
  const tasks = loadMbpp().slice(0, options.limit ?? Infinity);
  const rounds = options.rounds ?? 3;
  const py = cpython();
  const result: Record<string, number | string> = { tasks: tasks.length, "cpython baseline": `${py.bin} (${py.version}), ${CONCURRENCY} at a time` };

  // Per-answer cost: spawn → ready of fresh answer processes, and a trivial answer end to end.
  const pool = SandboxPool.create({ poolSize: 1, distDir: options.distDir });
  result.isolation = `${pool.isolation}; ${pool.confinement.kind}`;
  result["cold start: snapshot + first answer process (ms)"] = Math.round(await pool.ready());
  const trivial: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await pool.exec("x = 1", 5000);
    trivial.push(performance.now() - t);
  }
  result["fresh process per answer: spawn → ready, median (ms)"] = Math.round(median(pool.spareStartMs));
  result["trivial answer end to end, sequential, median (ms)"] = Math.round(median(trivial));
  await pool.finish();

  const ratios: number[] = [];
  let firstCache = "";
  for (let r = 0; r < rounds; r++) {
    const before = load();
    const sandboxFirst = r % 2 === 0;
    let s: Awaited<ReturnType<typeof sandboxPass>> | undefined;
    let cMs = 0;
    let cPass = 0;
    const runC = async () => {
      const t = performance.now();
      cPass = (await mapLimit(tasks, CONCURRENCY, (task) => runCpython(py.bin, task))).filter(Boolean).length;
      cMs = performance.now() - t;
    };
    if (sandboxFirst) {
      s = await sandboxPass(tasks, options.distDir);
      await runC();
    } else {
      await runC();
      s = await sandboxPass(tasks, options.distDir);
    }
    const ratio = s.ms / cMs;
    ratios.push(ratio);
    result[`round ${r + 1} (${sandboxFirst ? "sandbox first" : "cpython first"}): sandbox s / cpython s = ratio; load before → after`] =
      `${(s.ms / 1000).toFixed(1)} / ${(cMs / 1000).toFixed(1)} = ${ratio.toFixed(2)}; ${before} → ${load()}`;
    result[`round ${r + 1}: canonical pass, sandbox / cpython`] = `${tasks.length - s.failed.length}/${tasks.length} / ${cPass}/${tasks.length}`;
    if (s.failed.length > 0) result[`round ${r + 1}: sandbox failures`] = s.failed.join("; ");
    if (r === 0) firstCache = s.cacheDir;
    else rmSync(s.cacheDir, { recursive: true, force: true });
  }
  result["sandbox / cpython wall ratio: median"] = Number(median(ratios).toFixed(2));
  result["sandbox / cpython wall ratio: range"] = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;

  // An unchanged re-run: a new grader with round 1's caches finds every verdict there.
  const again = createPythonGrader({ poolSize: CONCURRENCY, distDir: options.distDir, cacheDir: firstCache, verdictCacheDir: path.join(firstCache, "verdicts") });
  const t = performance.now();
  const cached = await Promise.all(tasks.map((task) => again.grade(task, task.canonicalSolution).catch(() => ({ pass: false }))));
  result["unchanged re-run, every verdict from the cache: wall (ms)"] = Math.round(performance.now() - t);
  result["unchanged re-run: all pass"] = cached.every((v) => v.pass) ? "yes" : "NO";
  await again.dispose();
  rmSync(firstCache, { recursive: true, force: true });
  return result;
}

if (require.main === module) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  const rounds = process.argv[3] ? Number(process.argv[3]) : undefined;
  void benchSandbox({ limit, rounds }).then((r) => process.stdout.write(JSON.stringify(r, null, 2) + "\n"));
}
