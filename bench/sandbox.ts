/**
 * Sandbox throughput on MBPP+: every canonical solution checked against every base+plus input through the
 * sandbox — a fresh confined process per answer, expected outputs from reference processes, comparison on the host —
 * against the EvalPlus way on the same machine: one CPython subprocess per task (`python3 -I`) that computes the
 * expected outputs and checks. Both sides run 2 tasks at a time.
 *
 * The ratio is only worth something if both sides see the same machine, so the rounds interleave (sandbox then
 * CPython, then CPython then sandbox, ...), each side starts cold (no expected outputs, no verdicts), and the report
 * gives every round's ratio with the load average around it, plus the median and the range. Beside the wall ratio it
 * gives the CPU ratio (Linux: CPU time of every process each side ran, read from /proc), which a busy machine moves
 * far less. The CPython baseline is the interpreter binary itself, resolved once: a `python3` that is a pyenv shim
 * (a bash script) costs tens of ms more per process, which alone moved the old baseline.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { createPythonGrader } from "../src/core/grading/python-grader.js";
import { probeConfinement } from "../src/core/sandbox/isolation.js";
import { probeNativePython } from "../src/core/sandbox/native.js";
import { SandboxPool, type PythonRuntime } from "../src/core/sandbox/runner.js";
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

/**
 * The real CPython binary (not a shim), its version, and what `python3` on PATH resolved to. `same`: the binary the
 * sandbox's CPython runtime runs, so that both sides run the same build (a pyenv build without PGO is slower than
 * Debian's, which would flatter the runtime).
 */
function cpython(same?: string): { bin: string; version: string; onPath: string } {
  let bin = "python3";
  let onPath = "python3";
  try {
    onPath = execFileSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).trim();
    bin = realpathSync(execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim());
  } catch {
    if (existsSync("/usr/bin/python3")) bin = "/usr/bin/python3";
  }
  if (same) bin = same;
  const version = execFileSync(bin, ["-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { encoding: "utf8" }).trim();
  return { bin, version, onPath };
}

/** Median wall time of starting `bin -I -c pass`, ms: what a shim costs per process. */
function startMs(bin: string, n = 9): number {
  const walls: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    spawnSync(bin, ["-I", "-c", "pass"], { stdio: "ignore" });
    walls.push(performance.now() - t);
  }
  return median(walls);
}

// The CPython side: expected outputs from the canonical solution, then a fresh namespace checks it (==). It prints
// the failures and its own compute time (both passes), so the report can split process cost from compute.
const CPYTHON_CHECK = `
import sys, json, copy, time
job = json.loads(sys.stdin.read())
ns = {}
if job.get("deserialize"): exec(job["deserialize"], ns)
deser = ns.get("deserialize", lambda a: a)
inputs = json.loads(job["inputs"])
t0 = time.perf_counter()
g = {}; exec(job["code"], g); fn = g[job["entry"]]
expected = [fn(*deser(copy.deepcopy(i))) for i in inputs]
t1 = time.perf_counter()
c = {}; exec(job["code"], c); fn = c[job["entry"]]
bad = sum(1 for i, e in zip(inputs, expected) if fn(*deser(copy.deepcopy(i))) != e and job["oracle"] == "default")
print(bad, (t1 - t0) * 1000)
`;

/** One task in a CPython subprocess: passed, and the canonical solution's own time for the expected outputs (ms). */
function runCpython(bin: string, task: PythonFunctionTask): Promise<{ pass: boolean; canonicalMs: number }> {
  return new Promise((resolve) => {
    // A session of its own, as every sandbox process has (runner.ts spawns them detached; bubblewrap adds --new-session):
    // with the kernel's autogroup scheduling each session is one group with a fair share, so on a busy machine a
    // baseline left in the benchmark's session would get a smaller share of the CPUs than the sandbox it is compared to.
    const child = spawn(bin, ["-I", "-c", CPYTHON_CHECK], { stdio: ["pipe", "pipe", "ignore"], detached: process.platform === "linux" });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => {
      const [bad, ms] = out.trim().split(" ");
      resolve({ pass: code === 0 && bad === "0", canonicalMs: Number(ms) || 0 });
    });
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
const hostCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU time of this process's reaped children, ms (Linux /proc; NaN elsewhere). */
function childrenCpuMs(): number {
  try {
    const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}

interface Pass {
  ms: number;
  cpuMs: number;
  failed: string[];
  /** Σ over tasks of the canonical solution's own time for the expected outputs (ms). */
  canonicalMs: number;
}

/** One cold sandbox pass: a new grader with empty caches (expected outputs included), every canonical answer. */
async function sandboxPass(tasks: PythonFunctionTask[], distDir: string | undefined, snapshotDir: string, python: PythonRuntime): Promise<Pass & { cacheDir: string }> {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-cache-"));
  // The interpreter snapshot is made once per installation (kept beside the expected outputs in real use): it is
  // shared between rounds and not timed; every expected output and every answer process is.
  const grader = createPythonGrader({ poolSize: CONCURRENCY, distDir, cacheDir, snapshotCacheDir: snapshotDir, verdictCacheDir: path.join(cacheDir, "verdicts"), python });
  await grader.ready();
  const c0 = hostCpuMs();
  const t = performance.now();
  const verdicts = await Promise.all(tasks.map((task) => grader.grade(task, task.canonicalSolution).catch((e: unknown) => ({ pass: false, reason: String(e) }))));
  const ms = performance.now() - t;
  const host = hostCpuMs() - c0;
  const expected = await Promise.all(tasks.map((task) => grader.expected(task).catch(() => undefined)));
  await grader.dispose();
  const u = grader.pool.usage;
  return {
    ms,
    cpuMs: u.answerCpuMs + u.referenceCpuMs + host,
    canonicalMs: expected.reduce((a, e) => a + (e ? e.timesMs.reduce((x, y) => x + y, 0) : 0), 0),
    failed: tasks.flatMap((t, i) => (verdicts[i]!.pass ? [] : [`${t.id} (${verdicts[i]!.reason.slice(0, 120)})`])),
    cacheDir,
  };
}

async function cpythonPass(tasks: PythonFunctionTask[], bin: string): Promise<Pass> {
  const c0 = childrenCpuMs();
  const t = performance.now();
  const results = await mapLimit(tasks, CONCURRENCY, (task) => runCpython(bin, task));
  return {
    ms: performance.now() - t,
    cpuMs: childrenCpuMs() - c0,
    canonicalMs: results.reduce((a, r) => a + r.canonicalMs, 0),
    failed: tasks.flatMap((t, i) => (results[i]!.pass ? [] : [t.id])),
  };
}

/** Per-answer cost: cold start, then fresh answer processes one at a time (spawn → ready, CPU of each process). */
async function perAnswer(distDir: string | undefined, snapshotDir: string, result: Record<string, number | string>, python: PythonRuntime): Promise<number> {
  const pool = SandboxPool.create({ poolSize: 1, distDir, snapshotCacheDir: snapshotDir, memoryMb: 2048, python });
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
  const cpu = pool.usage.answerCpuMs / Math.max(1, pool.usage.answers);
  result["fresh process per answer: CPU, mean (ms)"] = Math.round(cpu);
  await pool.finish();
  return cpu;
}

/**
 * `python`: the sandbox's runtime (runner.ts SandboxOptions.python): `pyodide`, the default everywhere, or `cpython`,
 * the opt-in native interpreter under bubblewrap and seccomp (Linux).
 */
export async function benchSandbox(options: { distDir?: string; limit?: number; rounds?: number; python?: PythonRuntime } = {}): Promise<Record<string, number | string>> {
  const tasks = loadMbpp().slice(0, options.limit ?? Infinity);
  const rounds = options.rounds ?? 3;
  const python = options.python ?? "pyodide";
  const py = cpython(python === "cpython" ? probeNativePython(probeConfinement()).bin : undefined);
  const result: Record<string, number | string> = { tasks: tasks.length, "sandbox runtime": python, "cpython baseline": `${py.bin} (${py.version}), ${CONCURRENCY} at a time` };
  if (realpathSync(py.onPath) !== py.bin) {
    result["python3 on PATH"] = `${py.onPath} (a wrapper): start ${Math.round(startMs(py.onPath))} ms vs ${Math.round(startMs(py.bin))} ms for the binary, median; the baseline uses the binary`;
  }
  const snapshotDir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-snapshot-"));
  const perAnswerCpu = await perAnswer(options.distDir, snapshotDir, result, python);

  const wallRatios: number[] = [];
  const cpuRatios: number[] = [];
  const computeRatios: number[] = [];
  let floor = NaN;
  let firstCache = "";
  for (let r = 0; r < rounds; r++) {
    const before = load();
    const sandboxFirst = r % 2 === 0;
    let s: Awaited<ReturnType<typeof sandboxPass>>;
    let c: Pass;
    if (sandboxFirst) {
      s = await sandboxPass(tasks, options.distDir, snapshotDir, python);
      c = await cpythonPass(tasks, py.bin);
    } else {
      c = await cpythonPass(tasks, py.bin);
      s = await sandboxPass(tasks, options.distDir, snapshotDir, python);
    }
    const ratio = s.ms / c.ms;
    wallRatios.push(ratio);
    const tag = `round ${r + 1} (${sandboxFirst ? "sandbox first" : "cpython first"})`;
    result[`${tag}: wall, sandbox s / cpython s = ratio; load before → after`] = `${(s.ms / 1000).toFixed(1)} / ${(c.ms / 1000).toFixed(1)} = ${ratio.toFixed(2)}; ${before} → ${load()}`;
    if (Number.isFinite(c.cpuMs) && c.cpuMs > 0) {
      cpuRatios.push(s.cpuMs / c.cpuMs);
      result[`${tag}: CPU, sandbox s / cpython s = ratio`] = `${(s.cpuMs / 1000).toFixed(1)} / ${(c.cpuMs / 1000).toFixed(1)} = ${(s.cpuMs / c.cpuMs).toFixed(2)}`;
      floor = (tasks.length * perAnswerCpu) / c.cpuMs;
    }
    computeRatios.push(s.canonicalMs / c.canonicalMs);
    result[`${tag}: canonical solutions' own time for the expected outputs, ${python} in the sandbox s / cpython s`] =
      `${(s.canonicalMs / 1000).toFixed(1)} / ${(c.canonicalMs / 1000).toFixed(1)} = ${(s.canonicalMs / c.canonicalMs).toFixed(2)}`;
    result[`${tag}: canonical pass, sandbox / cpython`] = `${tasks.length - s.failed.length}/${tasks.length} / ${tasks.length - c.failed.length}/${tasks.length}`;
    if (s.failed.length > 0) result[`${tag}: sandbox failures`] = s.failed.join("; ");
    if (r === 0) firstCache = s.cacheDir;
    else rmSync(s.cacheDir, { recursive: true, force: true });
  }
  result["sandbox / cpython wall ratio: median"] = Number(median(wallRatios).toFixed(2));
  result["sandbox / cpython wall ratio: range"] = `${Math.min(...wallRatios).toFixed(2)}–${Math.max(...wallRatios).toFixed(2)}`;
  if (cpuRatios.length > 0) {
    result["sandbox / cpython CPU ratio: median"] = Number(median(cpuRatios).toFixed(2));
    result["sandbox / cpython CPU ratio: range"] = `${Math.min(...cpuRatios).toFixed(2)}–${Math.max(...cpuRatios).toFixed(2)}`;
    result["floor: fresh answer processes alone (tasks × CPU per process) / cpython CPU"] = Number(floor.toFixed(2));
  }
  result[`${python} in the sandbox / cpython, canonical solutions' own compute: median`] = Number(median(computeRatios).toFixed(2));

  // An unchanged re-run: a new grader with round 1's caches finds every verdict there.
  const again = createPythonGrader({ poolSize: CONCURRENCY, distDir: options.distDir, cacheDir: firstCache, snapshotCacheDir: snapshotDir, verdictCacheDir: path.join(firstCache, "verdicts"), python });
  const t = performance.now();
  const cached = await Promise.all(tasks.map((task) => again.grade(task, task.canonicalSolution).catch(() => ({ pass: false }))));
  result["unchanged re-run, every verdict from the cache: wall (ms)"] = Math.round(performance.now() - t);
  result["unchanged re-run: all pass"] = cached.every((v) => v.pass) ? "yes" : "NO";
  await again.dispose();
  rmSync(firstCache, { recursive: true, force: true });
  rmSync(snapshotDir, { recursive: true, force: true });
  return result;
}

if (require.main === module) {
  // node --import tsx bench/sandbox.ts [limit] [rounds] [pyodide|cpython]
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  const rounds = process.argv[3] ? Number(process.argv[3]) : undefined;
  const python = process.argv[4] === "cpython" ? "cpython" : "pyodide";
  void benchSandbox({ limit, rounds, python }).then((r) => process.stdout.write(JSON.stringify(r, null, 2) + "\n"));
}
