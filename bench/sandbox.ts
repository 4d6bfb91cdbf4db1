/**
 * Sandbox cost on MBPP+ against the real anchor, with one baseline binary. Every canonical solution is checked
 * against every base+plus input, by each sandbox runtime (Pyodide, and native CPython where its probe passes) and by
 * three plain-CPython baselines, all run by ONE interpreter binary (the CPython runtime's own when it runs here, so
 * that no ratio compares two builds; named in the output):
 *
 * - cold: a fresh `python -I` per task that computes the expected outputs from the canonical solution and checks (what
 *   this benchmark measured before);
 * - warm: expected outputs already known (computed once before the rounds, not timed, one pickle per task); a fresh
 *   process per answer loads them, runs the answer and compares;
 * - evalplus: EvalPlus's structure: one process computes the ground truth of every task once (timed), then forks a
 *   child per answer that runs it and compares (`os.fork`, as multiprocessing does on Linux).
 *
 * Each sandbox runtime runs twice per round: cold (empty caches: expected outputs from reference processes, then the
 * answers) and warm (the cold pass's expected outputs cached, no verdict cache: an answer process per answer, what a
 * real paired run pays once its expected outputs exist). Ratios: runtime cold / cold baseline, runtime warm / warm
 * baseline, runtime cold / evalplus (both compute the ground truth once and check each answer once), in CPU
 * (Linux: every process each side ran, from /proc) and wall time. Everything runs 2 at a time; the passes of a round
 * are interleaved (the order rotates each round) and the load average is printed around each round.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { createPythonGrader } from "../src/core/grading/python-grader.js";
import { chooseRuntime, SandboxPool } from "../src/core/sandbox/runner.js";
import { stringifyJsonLossless } from "../src/core/tasks/evalplus-json.js";
import { evalplusImporters } from "../src/core/tasks/evalplus.js";
import { PythonFunctionTaskSchema, type PythonFunctionTask } from "../src/core/tasks/schema.js";

const repoRoot = path.resolve(__dirname, "..");
export const MBPP = path.resolve(repoRoot, "../shared/data/mbppplus/MbppPlus-v0.2.0.jsonl.gz");
const CONCURRENCY = 2;

/** One line for a missing MBPP+ file (the shared data folder), or undefined when it is there. */
export function missingData(): string | undefined {
  return existsSync(MBPP) ? undefined : `the sandbox benchmark needs MBPP+ at ${MBPP} (the shared data folder, ../shared/data beside the repository); not found, so it did not run`;
}

function loadMbpp(): PythonFunctionTask[] {
  const lines = gunzipSync(readFileSync(MBPP)).toString("utf8").split("\n").filter((l) => l.trim());
  const importer = evalplusImporters.find((i) => i.detect(JSON.parse(lines[0]!) as Record<string, unknown>))!;
  return lines.map((l, i) => PythonFunctionTaskSchema.parse(importer.convert(importer.parseLine!(l), i)));
}

/**
 * The one baseline binary: the CPython runtime's interpreter when that runtime runs here, else the real binary behind
 * `python3` (a pyenv shim is a bash script that costs tens of ms per process), else /usr/bin/python3.
 */
function baselineBinary(native?: string): { bin: string; version: string; onPath: string; why: string } {
  let bin = "/usr/bin/python3";
  let onPath = "python3";
  let why = "python3 on PATH, resolved to its binary";
  try {
    onPath = execFileSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).trim();
    bin = realpathSync(execFileSync("python3", ["-I", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim());
  } catch {
    why = "/usr/bin/python3 (no python3 on PATH)";
  }
  if (native) {
    bin = native;
    why = "the CPython runtime's own interpreter, so every ratio shares one build";
  }
  const version = execFileSync(bin, ["-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { encoding: "utf8" }).trim();
  return { bin, version, onPath, why };
}

/** Median CPU (ms) of starting `bin -I -c pass`, one at a time: the floor of any fresh-process-per-answer check. */
function bareStartCpuMs(bin: string, n = 15): number {
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = childrenCpuMs();
    spawnSync(bin, ["-I", "-c", "pass"], { stdio: "ignore" });
    cpu.push(childrenCpuMs() - c0);
  }
  return mean(cpu);
}

// Shared by the three baselines: a job's inputs, the canonical or answer code, and EvalPlus's default oracle (==).
// Other oracles (float tolerance, sets, …) are counted as passing here; the sandbox applies them on the host.
const COMMON = `
import sys, json, copy, time, os, pickle
sys.set_int_max_str_digits(0)
sys.setrecursionlimit(10000)
def _run(job):
    ns = {}
    if job.get("deserialize"): exec(job["deserialize"], ns)
    deser = ns.get("deserialize", lambda a: a)
    g = {}; exec(job["code"], g); fn = g[job["entry"]]
    return [fn(*deser(copy.deepcopy(i))) for i in job["_inputs"]]
def _check(job, expected):
    got = _run(job)
    return expected is not None and (job["oracle"] != "default" or all(a == b for a, b in zip(got, expected)))
`;

/** cold: the expected outputs from the canonical solution, then a fresh namespace checks it. Prints 0 or 1 (failed). */
const COLD_PY = `${COMMON}
job = json.loads(sys.stdin.read()); job["_inputs"] = json.loads(job["inputs"])
expected = _run(job)
print(0 if _check(job, expected) else 1)
`;

/** warm: the expected outputs are known (a pickle written before the rounds); one answer is checked. */
const WARM_PY = `${COMMON}
job = json.loads(sys.stdin.read()); job["_inputs"] = json.loads(job["inputs"])
with open(job["expectedFile"], "rb") as f: expected = pickle.load(f)
print(0 if _check(job, expected) else 1)
`;

/** Before the rounds, untimed: every task's expected outputs into <dir>/<i>.pkl (the warm baseline's input). */
const PREP_PY = `${COMMON}
jobs = json.loads(sys.stdin.read())
for i, job in enumerate(jobs):
    job["_inputs"] = json.loads(job["inputs"])
    try: expected = _run(job)
    except BaseException as e: expected = None; print("task %d: %s" % (i, e), file=sys.stderr)
    try: data = pickle.dumps(expected, protocol=5)
    except Exception: data = pickle.dumps("<unpicklable: %s>" % type(expected).__name__)  # re.Match (the not-none oracle)
    with open(os.path.join(sys.argv[1], "%d.pkl" % i), "wb") as f: f.write(data)
`;

/**
 * evalplus: the ground truth of every task once in this process, then a fork per answer, 2 at a time (EvalPlus's
 * untrusted_check: a multiprocessing.Process per sample, forked on Linux). Prints the number of failed checks.
 */
const EVALPLUS_PY = `${COMMON}
jobs = json.loads(sys.stdin.read())
for job in jobs: job["_inputs"] = json.loads(job["inputs"])
def _truth(job):
    try: return _run(job)
    except BaseException: return None
truth = [_truth(job) for job in jobs]
failed = 0; running = 0
def _reap():
    global failed, running
    _, status = os.wait(); running -= 1
    if os.waitstatus_to_exitcode(status) != 0: failed += 1
for job, expected in zip(jobs, truth):
    if running >= ${CONCURRENCY}: _reap()
    pid = os.fork()
    if pid == 0:
        try: ok = _check(job, expected)
        except BaseException: ok = False
        os._exit(0 if ok else 1)
    running += 1
while running: _reap()
print(failed)
`;

const jobOf = (task: PythonFunctionTask) => ({
  code: task.canonicalSolution,
  entry: task.entryPoint,
  deserialize: task.tests.deserialize,
  oracle: task.tests.oracle,
  inputs: stringifyJsonLossless([...task.tests.base, ...task.tests.plus]),
});

/** Runs `bin -I -c program` with `stdin`, in a session of its own as every sandbox process is (autogroup fairness). */
function python(bin: string, program: string, stdin: string, args: string[] = []): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, ["-I", "-c", program, ...args], { stdio: ["pipe", "pipe", process.env.SF_BENCH_STDERR ? "inherit" : "ignore"], detached: process.platform === "linux" });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code, out: out.trim() }));
    child.stdin.end(stdin);
  });
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

const load = () => os.loadavg()[0]!.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const hostCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU time of this process's reaped children (and theirs), ms (Linux /proc; NaN elsewhere). */
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
  /** Tasks whose canonical solution did not pass. */
  failed: number;
}

/** `cpython`: the CPython runtime as it runs by default (answers forked from its warm template); `cpython-spawn`: each answer process spawned, as before the template. */
type Runtime = "pyodide" | "cpython" | "cpython-spawn";
const RUNTIMES: readonly Runtime[] = ["pyodide", "cpython", "cpython-spawn"];
const grading = (runtime: Runtime) => (runtime === "cpython-spawn" ? { python: "cpython" as const, template: false } : { python: runtime });
type PassName = `${Runtime}-${"cold" | "warm"}` | "base-cold" | "base-warm" | "base-evalplus";

/** A sandbox pass: a new grader; `expectedDir` given, its expected outputs are reused (warm), else empty (cold). */
async function sandboxPass(tasks: PythonFunctionTask[], runtime: Runtime, snapshotDir: string, expectedDir?: string): Promise<Pass & { cacheDir: string }> {
  const cacheDir = expectedDir ?? mkdtempSync(path.join(os.tmpdir(), "sf-bench-cache-"));
  const verdicts = mkdtempSync(path.join(os.tmpdir(), "sf-bench-verdicts-"));
  // The Pyodide snapshot is made once per installation and shared between passes, untimed; every expected output
  // (cold) and every answer process is timed.
  const grader = createPythonGrader({ poolSize: CONCURRENCY, cacheDir, snapshotCacheDir: snapshotDir, verdictCacheDir: verdicts, ...grading(runtime) });
  await grader.ready();
  const c0 = hostCpuMs();
  const t = performance.now();
  const results = await Promise.all(tasks.map((task) => grader.grade(task, task.canonicalSolution).catch(() => ({ pass: false }))));
  const ms = performance.now() - t;
  const host = hostCpuMs() - c0;
  await grader.dispose();
  rmSync(verdicts, { recursive: true, force: true });
  const u = grader.pool.usage;
  return { ms, cpuMs: u.answerCpuMs + u.referenceCpuMs + u.templateCpuMs + host, failed: results.filter((v) => !v.pass).length, cacheDir };
}

async function baselinePass(kind: "cold" | "warm" | "evalplus", tasks: PythonFunctionTask[], bin: string, pickles: string): Promise<Pass> {
  const c0 = childrenCpuMs();
  const t = performance.now();
  let failed: number;
  if (kind === "evalplus") {
    const r = await python(bin, EVALPLUS_PY, JSON.stringify(tasks.map(jobOf)));
    failed = r.code === 0 ? Number(r.out) : tasks.length;
  } else {
    const rs = await mapLimit(tasks, CONCURRENCY, (task, i) => python(bin, kind === "cold" ? COLD_PY : WARM_PY, JSON.stringify({ ...jobOf(task), expectedFile: path.join(pickles, `${i}.pkl`) })));
    failed = rs.filter((r) => r.code !== 0 || r.out !== "0").length;
  }
  return { ms: performance.now() - t, cpuMs: childrenCpuMs() - c0, failed };
}

/**
 * Per-answer CPU of a runtime: fresh answer processes one at a time, each running a trivial job (start → ready → job
 * → kill), 20 of them; the template's own CPU (its forks) is spread over them, its start-up is not.
 */
async function perAnswerCpu(runtime: Runtime, snapshotDir: string, result: Record<string, number | string>): Promise<void> {
  const pool = SandboxPool.create({ poolSize: 1, snapshotCacheDir: snapshotDir, ...grading(runtime) });
  const cold = await pool.ready();
  result[`${runtime}: cold start (pool created → first answer process ready; Pyodide: the snapshot too), ms`] = Math.round(cold);
  const n = 20;
  const template0 = pool.templateCpuMs();
  for (let i = 0; i < n; i++) await pool.exec("x = 1", 5000);
  const forks = pool.templateCpuMs() - template0;
  result[`${runtime}: fresh answer process, start → ready, median ms`] = Math.round(median(pool.spareStartMs));
  result[`${runtime}: fresh answer process, CPU per answer (trivial job), mean ms`] = Number(((pool.usage.answerCpuMs + forks) / Math.max(1, pool.usage.answers)).toFixed(1));
  await pool.finish();
}

export interface SandboxBenchOptions {
  /** The first `limit` MBPP+ tasks (default all 378). */
  limit?: number;
  /** Interleaved rounds (default 3). */
  rounds?: number;
  /** Runtimes to measure (default pyodide and cpython; the CPython ones only where its probe passes). */
  runtimes?: Runtime[];
}

export async function benchSandbox(options: SandboxBenchOptions = {}): Promise<Record<string, number | string>> {
  const missing = missingData();
  if (missing) return { "sandbox benchmark": `not run: ${missing}` };
  const tasks = loadMbpp().slice(0, options.limit ?? Infinity);
  const rounds = options.rounds ?? 3;
  const choice = process.platform === "linux" ? chooseRuntime("auto") : undefined;
  const runtimes = (options.runtimes ?? ["pyodide", "cpython"]).filter((r) => r === "pyodide" || choice?.native);
  // The per-answer floor of the CPython runtime is measured both ways (forked from the template, and spawned) whichever passes run.
  const floors = choice?.native ? [...new Set([...runtimes, "cpython" as const, "cpython-spawn" as const])] : runtimes;
  const base = baselineBinary(choice?.native?.bin);
  const result: Record<string, number | string> = {
    tasks: `${tasks.length} (MBPP+ v0.2.0, first ${tasks.length}), ${rounds} interleaved rounds, ${CONCURRENCY} at a time`,
    "baseline binary (every ratio)": `${base.bin} (CPython ${base.version}): ${base.why}`,
    "default runtime here (auto)": choice?.why ?? `pyodide (${process.platform})`,
    "runtimes measured": runtimes.join(", ") + ((options.runtimes ?? ["pyodide", "cpython"]).includes("cpython") && !runtimes.includes("cpython") ? ` (cpython skipped: ${choice?.why ?? "not Linux"})` : ""),
  };
  if (existsSync(base.onPath) && realpathSync(base.onPath) !== base.bin) result["python3 on PATH (not used)"] = `${base.onPath} → ${realpathSync(base.onPath)}`;
  result["baseline: bare interpreter start (-I -c pass), CPU mean ms"] = Number(bareStartCpuMs(base.bin).toFixed(1));

  const snapshotDir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-snapshot-"));
  for (const r of floors) await perAnswerCpu(r, snapshotDir, result);
  // The warm baseline's expected outputs, computed once by the baseline binary (untimed).
  const pickles = mkdtempSync(path.join(os.tmpdir(), "sf-bench-expected-"));
  const prep = await python(base.bin, PREP_PY, JSON.stringify(tasks.map(jobOf)), [pickles]);
  if (prep.code !== 0) throw new Error(`computing the warm baseline's expected outputs failed (exit ${prep.code})`);

  const passes: PassName[] = ["base-cold", ...runtimes.map((r) => `${r}-cold` as const), "base-warm", ...runtimes.map((r) => `${r}-warm` as const), "base-evalplus"];
  const ratios = new Map<string, { cpu: number[]; wall: number[] }>();
  const add = (key: string, s: Pass, b: Pass) => {
    const e = ratios.get(key) ?? { cpu: [], wall: [] };
    e.cpu.push(s.cpuMs / b.cpuMs);
    e.wall.push(s.ms / b.ms);
    ratios.set(key, e);
  };
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round; a runtime's warm pass needs its cold pass's expected outputs, so it moves with it.
    const order = [...passes.slice(round % passes.length), ...passes.slice(0, round % passes.length)];
    for (const rt of runtimes) {
      if (order.indexOf(`${rt}-warm`) > order.indexOf(`${rt}-cold`)) continue;
      order.splice(order.indexOf(`${rt}-warm`), 1);
      order.splice(order.indexOf(`${rt}-cold`) + 1, 0, `${rt}-warm`);
    }
    const before = load();
    const got = new Map<PassName, Pass>();
    const caches = new Map<Runtime, string>();
    for (const p of order) {
      if (p.startsWith("base-")) got.set(p, await baselinePass(p.slice(5) as "cold" | "warm" | "evalplus", tasks, base.bin, pickles));
      else {
        const rt = p.slice(0, p.lastIndexOf("-")) as Runtime;
        const s = await sandboxPass(tasks, rt, snapshotDir, p.endsWith("-warm") ? caches.get(rt) : undefined);
        if (p.endsWith("-cold")) caches.set(rt, s.cacheDir);
        got.set(p, s);
      }
    }
    for (const dir of caches.values()) rmSync(dir, { recursive: true, force: true });
    const tag = `round ${round + 1}`;
    result[`${tag}: order; load before → after`] = `${order.join(" → ")}; ${before} → ${load()}`;
    result[`${tag}: CPU s / wall s (failed) per pass`] = order.map((p) => `${p} ${(got.get(p)!.cpuMs / 1000).toFixed(1)}/${(got.get(p)!.ms / 1000).toFixed(1)}${got.get(p)!.failed ? ` (${got.get(p)!.failed} failed)` : ""}`).join("; ");
    for (const rt of runtimes) {
      add(`${rt} cold / cold baseline`, got.get(`${rt}-cold`)!, got.get("base-cold")!);
      add(`${rt} warm / warm baseline`, got.get(`${rt}-warm`)!, got.get("base-warm")!);
      add(`${rt} cold / evalplus (ground truth once, fork per answer)`, got.get(`${rt}-cold`)!, got.get("base-evalplus")!);
    }
  }
  for (const [key, e] of ratios) {
    const fmt = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
    result[`${key}: CPU ratio, median (range)`] = fmt(e.cpu);
    result[`${key}: wall ratio, median (range)`] = fmt(e.wall);
  }
  rmSync(pickles, { recursive: true, force: true });
  rmSync(snapshotDir, { recursive: true, force: true });
  return result;
}

export const SANDBOX_USAGE = `bench/sandbox.ts: both sandbox runtimes against three CPython baselines on MBPP+ (one baseline binary).
  npm run bench -- --only sandbox [--limit <n>] [--rounds <k>] [--runtimes pyodide,cpython,cpython-spawn]
  node --import tsx bench/sandbox.ts [--limit <n>] [--rounds <k>] [--runtimes pyodide,cpython,cpython-spawn]
  --limit     the first n MBPP+ tasks (default all 378)
  --rounds    interleaved rounds (default 3); the report gives the median and range of each ratio
  --runtimes  which sandbox runtimes (default pyodide,cpython; cpython-spawn: the CPython runtime with each answer
              process spawned instead of forked from its warm template; the CPython ones only where its probe passes)
Needs ../shared/data/mbppplus/MbppPlus-v0.2.0.jsonl.gz and a built dist/ (npm run build).`;

/** `--limit`, `--rounds`, `--runtimes` as bench/run.ts and this file's own entry point take them. */
export function sandboxOptions(values: { limit?: string; rounds?: string; runtimes?: string }): SandboxBenchOptions {
  const positive = (name: string, v?: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes a whole number ≥ 1, got '${v}'`);
    return n;
  };
  const runtimes = values.runtimes?.split(",").map((r) => r.trim());
  for (const r of runtimes ?? []) if (!(RUNTIMES as readonly string[]).includes(r)) throw new Error(`--runtimes takes ${RUNTIMES.join(", ")}, got '${r}'`);
  const limit = positive("limit", values.limit);
  const rounds = positive("rounds", values.rounds);
  return { ...(limit ? { limit } : {}), ...(rounds ? { rounds } : {}), ...(runtimes ? { runtimes: runtimes as Runtime[] } : {}) };
}

if (require.main === module) {
  void (async () => {
    const { parseArgs } = await import("node:util");
    const { values } = parseArgs({ options: { limit: { type: "string" }, rounds: { type: "string" }, runtimes: { type: "string" }, help: { type: "boolean" } } });
    if (values.help) return void process.stdout.write(`${SANDBOX_USAGE}\n`);
    const missing = missingData();
    if (missing) return void process.stderr.write(`${missing}\n`);
    process.stdout.write(JSON.stringify(await benchSandbox(sandboxOptions(values)), null, 2) + "\n");
  })();
}
