import { createHash } from "node:crypto";
import { VerdictSchema } from "../../shared/vocabulary/index.js";
import { InputError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { HARNESS_PY } from "../sandbox/harness-py.js";
import type { CheckJob } from "../sandbox/protocol.js";
import { SandboxPool, type Isolation, type SandboxOptions } from "../sandbox/runner.js";
import type { PythonFunctionTask, Task } from "../tasks/schema.js";
import { CheckDriver, type CheckPlan, type CheckResult } from "./check-driver.js";
import { assertComparable, checkPlanFor, expectedJobFor, MIN_TIME_LIMIT_MS } from "./check-plan.js";
import { JsonFileCache } from "../json-file-cache.js";
import { ExpectedDriver, ExpectedJobError, ExpectedOutputsSchema, type ExpectedOutputs } from "./expected.js";
import type { Grader, GradeOptions, Verdict } from "./types.js";

export type { CheckResult } from "./check-driver.js";
export type { ExpectedOutputs } from "./expected.js";

export interface PythonGraderOptions {
  logger?: Logger;
  /** Answers checked at once (default 2). */
  poolSize?: number;
  /**
   * Reference processes computing expected outputs at once (default: 2, at most poolSize), so one slow canonical
   * solution does not hold every other task's expected outputs.
   */
  referencePoolSize?: number;
  /** Where sandbox-worker.js and pyodide/ are (default: beside the bundle, else <repo>/dist). */
  distDir?: string;
  /** Folder for expected outputs computed from canonical solutions, keyed by task, harness and runtime (and the interpreter snapshot). */
  cacheDir?: string;
  /** Folder for the interpreter snapshot (default: cacheDir). */
  snapshotCacheDir?: string;
  /**
   * Folder for verdicts, keyed by task, answer and grading rules, so an unchanged re-run does not re-check
   * anything. Only verdicts that cannot depend on the machine's load are kept (not timeouts or sandbox failures).
   */
  verdictCacheDir?: string;
  /** Wasm memory cap per interpreter, MB (default 2048: Mbpp/255's canonical output alone is ~550 MB in wasm32). */
  memoryMb?: number;
  /** EvalPlus's per-task cap, applied to base and plus inputs separately (default 60 s). */
  taskCapMs?: number;
  /** Cap for computing expected outputs from a canonical solution (default 900 s; Mbpp/599 alone needs minutes: bigint sums are ~5x slower in wasm32). */
  expectedCapMs?: number;
  /** EvalPlus's floor of the per-input limit (default 4 s); lower it only in tests. */
  minTimeLimitMs?: number;
  /** Test hooks passed to the sandbox. */
  graceMs?: number;
  rssLimitBytes?: number;
  forceFallback?: boolean;
  /** Red-team tests only: see SandboxOptions.unsafeAllowCodeGeneration. */
  unsafeAllowCodeGeneration?: boolean;
  /** Test hook: see SandboxOptions.onDispatch. */
  onDispatch?: SandboxOptions["onDispatch"];
  /** Bench hook: see SandboxOptions.tierFlags. */
  tierFlags?: SandboxOptions["tierFlags"];
  /** The Python runtime answers run in (default `pyodide`): see SandboxOptions.python. */
  python?: SandboxOptions["python"];
  /** Bench hook: see SandboxOptions.template (the CPython runtime's warm template; default on). */
  template?: boolean;
}

// Bump when what "expected" holds changes, so stale disk caches are ignored.
const EXPECTED_FORMAT = 3;
// Bump when the rules that turn a sandbox result into a verdict change (the harness's own source is hashed too).
// 4: the CPython driver closes inherited descriptors and caps tasks (RLIMIT_NPROC), memfd and SysV/POSIX IPC.
const VERDICT_FORMAT = 4;
const HARNESS_HASH = createHash("sha256").update(HARNESS_PY).digest("hex");

/**
 * Failures that can come from the machine rather than the answer: a missed wall-clock deadline on a loaded machine,
 * or a sandbox process that died. They are re-checked once before they count, and never cached.
 */
function isTransient(r: CheckResult): boolean {
  return r.status === "fail" && (r.kind === "timeout" || r.kind === "sandbox");
}

export type PythonGrader = Grader & {
  readonly isolation: Isolation;
  /** Whether the sandbox processes have any network ("namespace": none at all). */
  readonly network: "namespace" | "host";
  /** The OS confinement in one line, for the run header. */
  readonly detail: string;
  /** Resolves when the sandbox is warm; returns the time that took (ms). */
  ready(): Promise<number>;
  /** Expected outputs of a task (computed once by a reference process, then cached in memory and in cacheDir). */
  expected(task: PythonFunctionTask): Promise<ExpectedOutputs>;
  /** Of these tasks, how many have their expected outputs ready, and how many are being computed now (for progress). */
  expectedStatus(tasks: readonly PythonFunctionTask[]): { done: number; total: number; computing: number };
  /** The sandbox itself (benchmarks and tests). */
  readonly pool: SandboxPool;
};

/** The key of a task's expected outputs: the task's code and inputs, the harness and the Python runtime that ran them. */
export function taskHash(task: PythonFunctionTask, runtime: string): string {
  const { expected: _ignored, ...tests } = task.tests;
  return createHash("sha256")
    .update(JSON.stringify({ f: EXPECTED_FORMAT, harness: HARNESS_HASH, runtime, code: task.canonicalSolution, entry: task.entryPoint, tests }))
    .digest("hex");
}



/** Expected outputs by task: computed once (in memory while in flight, then on disk), with counts for the progress line. */
class ExpectedStore {
  private readonly memo = new Map<string, Promise<ExpectedOutputs>>();
  // Hashing a task reads all its inputs (MBPP+ has megabytes of them): once per task object, not per progress tick.
  private readonly hashes = new WeakMap<PythonFunctionTask, string>();
  /** Hashes whose expected outputs are known (computed or read from the cache). */
  private readonly resolved = new Set<string>();
  private computing = 0;

  constructor(
    private readonly cache: JsonFileCache<ExpectedOutputs> | undefined,
    private readonly runtime: string,
  ) {}

  private hashOf(t: PythonFunctionTask): string {
    let h = this.hashes.get(t);
    if (h === undefined) this.hashes.set(t, (h = taskHash(t, this.runtime)));
    return h;
  }

  get(task: PythonFunctionTask, compute: () => Promise<ExpectedOutputs>): Promise<ExpectedOutputs> {
    const hash = this.hashOf(task);
    let p = this.memo.get(hash);
    if (p) return p;
    const cached = this.cache?.getSync(hash);
    if (cached) {
      this.resolved.add(hash);
      p = Promise.resolve(cached);
    } else {
      this.computing++;
      p = compute().then(
        (v) => {
          this.computing--;
          this.resolved.add(hash);
          this.cache?.setSync(hash, v);
          return v;
        },
        (err: unknown) => {
          this.computing--;
          throw err;
        },
      );
    }
    this.memo.set(hash, p);
    p.catch(() => this.memo.delete(hash));
    return p;
  }

  status(tasks: readonly PythonFunctionTask[]): { done: number; total: number; computing: number } {
    return { done: tasks.filter((t) => this.resolved.has(this.hashOf(t))).length, total: tasks.length, computing: this.computing };
  }
}

/** The sandbox a grader checks in: its pool sizes, memory cap, grace and caches, from the grader's options. */
function sandboxFor(options: PythonGraderOptions, logger: Logger, memoryMb: number, graceMs: number): SandboxPool {
  const snapshotCacheDir = options.snapshotCacheDir ?? options.cacheDir;
  return SandboxPool.create({
    logger,
    poolSize: options.poolSize,
    referencePoolSize: options.referencePoolSize ?? Math.min(2, options.poolSize ?? 2),
    distDir: options.distDir,
    memoryMb,
    graceMs,
    ...(options.rssLimitBytes ? { rssLimitBytes: options.rssLimitBytes } : {}),
    ...(snapshotCacheDir ? { snapshotCacheDir } : {}),
    forceFallback: options.forceFallback,
    unsafeAllowCodeGeneration: options.unsafeAllowCodeGeneration,
    ...(options.onDispatch ? { onDispatch: options.onDispatch } : {}),
    ...(options.tierFlags ? { tierFlags: options.tierFlags } : {}),
    ...(options.python ? { python: options.python } : {}),
    ...(options.template === false ? { template: false } : {}),
  });
}

export function createPythonGrader(options: PythonGraderOptions = {}): PythonGrader {
  const logger = options.logger ?? silentLogger;
  const taskCapMs = options.taskCapMs ?? 60_000;
  const memoryMb = options.memoryMb ?? 2048;
  const graceMs = options.graceMs ?? 250;
  const pool = sandboxFor(options, logger, memoryMb, graceMs);
  const expectedStore = new ExpectedStore(options.cacheDir ? new JsonFileCache(options.cacheDir, ExpectedOutputsSchema, { logger, name: "expected-output cache" }) : undefined, pool.runtime);
  const verdictCache = options.verdictCacheDir ? new JsonFileCache(options.verdictCacheDir, VerdictSchema, { logger, name: "verdict cache", onMiss: "checking again" }) : undefined;

  const testsHashes = new WeakMap<PythonFunctionTask, string>();
  /** Everything a verdict depends on: the task's code and tests, the answer, the limits, the harness and the runtime. */
  function verdictKey(task: PythonFunctionTask, answer: string): string {
    let tests = testsHashes.get(task);
    if (tests === undefined) {
      tests = createHash("sha256").update(JSON.stringify({ code: task.canonicalSolution, entry: task.entryPoint, tests: task.tests })).digest("hex");
      testsHashes.set(task, tests);
    }
    const rules = { f: VERDICT_FORMAT, harness: HARNESS_HASH, runtime: pool.runtime, memoryMb, taskCapMs, min: options.minTimeLimitMs ?? MIN_TIME_LIMIT_MS };
    return createHash("sha256").update(JSON.stringify({ rules, tests, answer })).digest("hex");
  }

  async function computeExpected(task: PythonFunctionTask, signal?: AbortSignal): Promise<ExpectedOutputs> {
    const capMs = options.expectedCapMs ?? 900_000;
    const job = expectedJobFor(task, capMs);
    let r = await pool.runReference(job, new ExpectedDriver(capMs + graceMs), { signal });
    if (r instanceof ExpectedJobError && r.transient) {
      logger.info(`${task.id}: computing expected outputs again after "${r.message}"`);
      r = await pool.runReference(job, new ExpectedDriver(capMs + graceMs), { signal });
    }
    if (r instanceof ExpectedJobError) {
      // The task itself is broken (its canonical solution fails): a configuration error, not a verdict.
      throw new InputError(`${task.id}: the canonical solution failed while computing expected outputs (${r.message})`, {
        hint: "Fix the task's canonicalSolution or its inputs.",
      });
    }
    assertComparable(task, r);
    return r;
  }

  const expected = (task: PythonFunctionTask, signal?: AbortSignal): Promise<ExpectedOutputs> => expectedStore.get(task, () => computeExpected(task, signal));

  async function check(job: CheckJob, checkPlan: CheckPlan, priority: number, signal?: AbortSignal): Promise<CheckResult> {
    return pool.runAnswer(job, new CheckDriver(checkPlan), { signal, priority });
  }
  // Answers are checked in the order grade() was called, not in the order their expected outputs arrived: a task
  // whose canonical solution is slow does not then wait behind every answer queued meanwhile.
  let graded = 0;

  async function grade(task: Task, answer: string | null, gradeOptions: GradeOptions = {}): Promise<Verdict> {
    if (task.kind !== "python-function") throw new InputError(`${task.id}: the python grader cannot grade a "${task.kind}" task`);
    if (answer === null || answer.trim() === "") {
      return { pass: false, reason: "no python code block in the answer", failure: { kind: "no-answer" } };
    }
    const order = graded++;
    const key = verdictKey(task, answer);
    const cached = verdictCache?.getSync(key);
    if (cached) return cached;
    const exp = await expected(task, gradeOptions.signal);
    const { job: base, plan: checkPlan } = checkPlanFor(task, exp, { taskCapMs, graceMs, memoryMb, minTimeLimitMs: options.minTimeLimitMs ?? MIN_TIME_LIMIT_MS });
    const job = { ...base, program: answer };
    const first = await check(job, checkPlan, order, gradeOptions.signal);
    let verdict = toVerdict(first, exp.count, memoryMb);
    if (isTransient(first)) {
      // EvalPlus's limits are wall-clock: a starved machine can fail a correct answer. Check once more (on a fresh
      // process, as always) and let the second attempt decide; a real infinite loop fails twice.
      logger.info(`${task.id}: re-checking once after "${verdict.reason}"`);
      const second = await check(job, checkPlan, order, gradeOptions.signal);
      const again = toVerdict(second, exp.count, memoryMb);
      verdict = again.pass
        ? { ...again, reason: `${again.reason} (re-checked once after a first attempt failed: ${verdict.reason})` }
        : { ...again, reason: `${again.reason} (on a second attempt too)` };
      if (!isTransient(second)) verdictCache?.setSync(key, verdict);
    } else {
      verdictCache?.setSync(key, verdict);
    }
    return verdict;
  }

  return {
    get isolation() {
      return pool.isolation;
    },
    get network() {
      return pool.network;
    },
    get detail() {
      return pool.detail;
    },
    pool,
    ready: () => pool.ready(),
    expected: (task) => expected(task),
    expectedStatus: (tasks) => expectedStore.status(tasks),
    grade,
    dispose: () => pool.finish(),
  };
}

/** Turns a check result into a one-line reason naming the input, expected and actual values. */
export function toVerdict(r: CheckResult, count: number, memoryMb: number): Verdict {
  if (r.status === "pass") return { pass: true, reason: `passed all ${count} inputs` };
  const where = r.phase !== undefined && r.index !== undefined ? `${r.phase} input #${r.index}${r.input !== undefined ? ` ${r.input}` : ""}` : undefined;
  const on = where ? ` on ${where}` : "";
  let reason: string;
  switch (r.kind) {
    case "wrong-answer":
      reason = `${where ?? "an input"}: expected ${r.expected ?? "?"}, got ${r.actual ?? "?"}${r.note ? ` (${r.note})` : ""}`;
      break;
    case "timeout":
      reason = `timeout${on}: ${r.error ?? "deadline passed"}`;
      break;
    case "memory":
      reason = `out of memory (cap ${memoryMb} MB)${on}: ${r.error ?? "MemoryError"}`;
      break;
    case "output-limit":
      reason = `output limit exceeded${on}`;
      break;
    case "sandbox":
      reason = `sandbox failure${on}: ${r.error ?? "unknown"}`;
      break;
    default:
      reason = where ? `${where}: raised ${r.error ?? "an error"}` : (r.error ?? "error");
  }
  // The check stops at the first failing input (its process is killed); say so, so nobody reads it as "only one".
  if (r.notRun) reason += ` (stopped there: ${r.notRun} more input${r.notRun === 1 ? "" : "s"} not run)`;
  return {
    pass: false,
    reason,
    failure: {
      kind: r.kind,
      ...(r.input !== undefined ? { input: r.input } : {}),
      ...(r.expected !== undefined ? { expected: r.expected } : {}),
      ...(r.actual !== undefined ? { actual: r.actual } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
    },
  };
}
