import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import type { CheckJob, JobResult } from "../sandbox/protocol.js";
import { HARNESS_PY } from "../sandbox/harness-py.js";
import { SandboxPool, type Isolation } from "../sandbox/runner.js";
import { stringifyJsonLossless } from "../tasks/evalplus-json.js";
import type { PythonFunctionTask, Task } from "../tasks/schema.js";
import type { Grader, GradeOptions, Verdict } from "./types.js";

export interface PythonGraderOptions {
  logger?: Logger;
  /** Sandbox processes (default 2). */
  poolSize?: number;
  /** Where sandbox-worker.js and pyodide/ are (default: beside the bundle, else <repo>/dist). */
  distDir?: string;
  /** Folder for expected outputs computed from canonical solutions, keyed by task hash. */
  cacheDir?: string;
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
  forceFallback?: boolean;
}

export interface ExpectedOutputs {
  expectedPickle: string;
  timesMs: number[];
  count: number;
  /** Inputs whose (huge) expected output is recomputed from the canonical solution at check time. */
  recompute: number[];
}

/** EvalPlus: per-input limit max(4 s, 4 × canonical time). */
export const MIN_TIME_LIMIT_MS = 4000;
export const TIME_LIMIT_FACTOR = 4;
// Bump when the harness changes what "expected" holds, so stale disk caches are ignored.
const EXPECTED_FORMAT = 1;
// Bump when the rules that turn a sandbox result into a verdict change (the harness's own source is hashed too).
const VERDICT_FORMAT = 1;
const HARNESS_HASH = createHash("sha256").update(HARNESS_PY).digest("hex");

/**
 * Failures that can come from the machine rather than the answer: a missed wall-clock deadline on a loaded machine,
 * or a sandbox process that died. They are re-checked once before they count, and never cached.
 */
function isTransient(r: JobResult): boolean {
  return r.status !== "pass" && (r.status !== "fail" || r.kind === "timeout" || r.kind === "sandbox");
}

export type PythonGrader = Grader & {
  readonly isolation: Isolation;
  /** Whether the sandbox processes have any network ("namespace": none at all). */
  readonly network: "namespace" | "host";
  /** Resolves when the sandbox workers are loaded; returns the slowest cold start (ms). */
  ready(): Promise<number>;
  /** Expected outputs of a task (computed once, then cached in memory and in cacheDir). */
  expected(task: PythonFunctionTask): Promise<ExpectedOutputs>;
};

export function taskHash(task: PythonFunctionTask): string {
  const { expected: _ignored, ...tests } = task.tests;
  return createHash("sha256")
    .update(JSON.stringify({ f: EXPECTED_FORMAT, code: task.canonicalSolution, entry: task.entryPoint, tests }))
    .digest("hex");
}

function inputsOf(task: PythonFunctionTask): { inputsJson?: string; inputsPy?: string } {
  if (task.tests.inputsPy !== undefined) return { inputsPy: task.tests.inputsPy };
  return { inputsJson: stringifyJsonLossless([...task.tests.base, ...task.tests.plus]) };
}

function phasesOf(task: PythonFunctionTask, count: number): Array<{ name: string; count: number }> {
  if (task.tests.inputsPy !== undefined) return [{ name: "test", count }];
  return [
    { name: "base", count: task.tests.base.length },
    { name: "plus", count: task.tests.plus.length },
  ].filter((p) => p.count > 0);
}

export function createPythonGrader(options: PythonGraderOptions = {}): PythonGrader {
  const logger = options.logger ?? silentLogger;
  const taskCapMs = options.taskCapMs ?? 60_000;
  const memoryMb = options.memoryMb ?? 2048;
  const pool = SandboxPool.create({
    logger,
    poolSize: options.poolSize,
    distDir: options.distDir,
    memoryMb,
    graceMs: options.graceMs,
    forceFallback: options.forceFallback,
  });
  const memo = new Map<string, Promise<ExpectedOutputs>>();
  const cacheDir = options.cacheDir;

  function readCache(hash: string): ExpectedOutputs | undefined {
    if (!cacheDir) return undefined;
    try {
      const data = JSON.parse(readFileSync(path.join(cacheDir, `${hash}.json`), "utf8")) as ExpectedOutputs & { hash?: string };
      if (data.hash === hash && typeof data.expectedPickle === "string" && Array.isArray(data.timesMs) && Array.isArray(data.recompute)) return data;
    } catch {
      // absent or unreadable: recompute
    }
    return undefined;
  }

  function writeCache(hash: string, value: ExpectedOutputs): void {
    if (!cacheDir) return;
    try {
      mkdirSync(cacheDir, { recursive: true });
      const file = path.join(cacheDir, `${hash}.json`);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ hash, ...value }));
      renameSync(tmp, file);
    } catch (e) {
      logger.warn(`could not cache expected outputs in ${cacheDir}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

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

  function verdictFile(key: string): string | undefined {
    return options.verdictCacheDir ? path.join(options.verdictCacheDir, key.slice(0, 2), `${key}.json`) : undefined;
  }

  function readVerdict(key: string): Verdict | undefined {
    const file = verdictFile(key);
    if (!file) return undefined;
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as { key?: string; verdict?: Verdict };
      const v = data.verdict;
      if (data.key === key && v && typeof v.pass === "boolean" && typeof v.reason === "string") return v;
    } catch {
      // absent or unreadable: grade
    }
    return undefined;
  }

  function writeVerdict(key: string, verdict: Verdict): void {
    const file = verdictFile(key);
    if (!file) return;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, verdict }));
      renameSync(tmp, file);
    } catch (e) {
      logger.warn(`could not cache a verdict in ${options.verdictCacheDir}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async function computeExpected(task: PythonFunctionTask, signal?: AbortSignal): Promise<ExpectedOutputs> {
    const outcome = await pool.run(
      {
        mode: "expected",
        program: task.canonicalSolution,
        entryPoint: task.entryPoint,
        ...inputsOf(task),
        ...(task.tests.deserialize ? { deserialize: task.tests.deserialize } : {}),
        outputNotNone: task.tests.oracle === "not-none",
        capMs: options.expectedCapMs ?? 900_000,
      },
      { signal },
    );
    const r = outcome.result;
    if (r.status !== "expected") {
      // The task itself is broken (its canonical solution fails): a configuration error, not a verdict.
      const why = r.status === "fail" ? `${r.kind}: ${r.error ?? ""}` : r.status;
      throw new InputError(`${task.id}: the canonical solution failed while computing expected outputs (${why})`, {
        hint: "Fix the task's canonicalSolution or its inputs.",
      });
    }
    return { expectedPickle: r.expectedPickle, timesMs: r.timesMs, count: r.count, recompute: r.recompute };
  }

  function expected(task: PythonFunctionTask, signal?: AbortSignal): Promise<ExpectedOutputs> {
    const hash = taskHash(task);
    let p = memo.get(hash);
    if (!p) {
      const cached = readCache(hash);
      p = cached
        ? Promise.resolve(cached)
        : computeExpected(task, signal).then((v) => {
            writeCache(hash, v);
            return v;
          });
      memo.set(hash, p);
      p.catch(() => memo.delete(hash));
    }
    return p;
  }

  async function grade(task: Task, answer: string | null, gradeOptions: GradeOptions = {}): Promise<Verdict> {
    if (task.kind !== "python-function") throw new InputError(`${task.id}: the python grader cannot grade a "${task.kind}" task`);
    if (answer === null || answer.trim() === "") {
      return { pass: false, reason: "no python code block in the answer", failure: { kind: "no-answer" } };
    }
    const key = verdictKey(task, answer);
    const cached = readVerdict(key);
    if (cached) return cached;
    const exp = await expected(task, gradeOptions.signal);
    const limitsMs = exp.timesMs.map((t) => Math.max(options.minTimeLimitMs ?? MIN_TIME_LIMIT_MS, TIME_LIMIT_FACTOR * t));
    let start = 0;
    const phases = phasesOf(task, exp.count).map((p) => {
      const sum = limitsMs.slice(start, start + p.count).reduce((a, b) => a + b, 0);
      const reference = exp.timesMs.slice(start, start + p.count).reduce((a, b) => a + b, 0);
      start += p.count;
      // EvalPlus: min(per-task cap, sum of limits) + 1 s, for base and plus separately. The 60 s cap was set
      // for native CPython; Pyodide is 2-3x slower, so it never drops below twice the canonical's own time here
      // (Mbpp/599 needs ~45 s in the sandbox), or the reference solution itself would fail.
      return { ...p, capMs: Math.max(Math.min(taskCapMs, sum), 2 * reference) + 1000 };
    });
    const job: CheckJob = {
      mode: "check",
      ...(task.tests.setup ? { setup: task.tests.setup } : {}),
      program: answer,
      entryPoint: task.entryPoint,
      ...inputsOf(task),
      ...(task.tests.deserialize ? { deserialize: task.tests.deserialize } : {}),
      ...(task.tests.reference ? { reference: task.tests.reference } : {}),
      oracle: task.tests.oracle,
      atol: task.tests.atol,
      expectedPickle: exp.expectedPickle,
      ...(exp.recompute.length > 0 ? { recompute: exp.recompute, canonical: task.canonicalSolution, outputNotNone: task.tests.oracle === "not-none" } : {}),
      limitsMs,
      phases,
    };
    const first = (await pool.run(job, { signal: gradeOptions.signal })).result;
    let verdict = toVerdict(first, exp.count, memoryMb);
    if (isTransient(first)) {
      // EvalPlus's limits are wall-clock: a starved machine can fail a correct answer. Check once more (the pool
      // replaced a killed worker) and let the second attempt decide; a real infinite loop fails twice.
      logger.info(`${task.id}: re-checking once after "${verdict.reason}"`);
      const second = (await pool.run(job, { signal: gradeOptions.signal })).result;
      const again = toVerdict(second, exp.count, memoryMb);
      verdict = again.pass
        ? { ...again, reason: `${again.reason} (re-checked once after a first attempt failed: ${verdict.reason})` }
        : { ...again, reason: `${again.reason} (on a second attempt too)` };
      if (!isTransient(second)) writeVerdict(key, verdict);
    } else {
      writeVerdict(key, verdict);
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
    ready: () => pool.ready(),
    expected: (task) => expected(task),
    grade,
    dispose: () => pool.finish(),
  };
}

/** Turns a sandbox result into a one-line reason naming the input, expected and actual values. */
export function toVerdict(r: JobResult, count: number, memoryMb: number): Verdict {
  if (r.status === "pass") return { pass: true, reason: `passed all ${count} inputs` };
  if (r.status !== "fail") return { pass: false, reason: `sandbox returned an unexpected result (${r.status})`, failure: { kind: "sandbox" } };
  const where = r.phase !== undefined && r.index !== undefined ? `${r.phase} input #${r.index}${r.input !== undefined ? ` ${r.input}` : ""}` : undefined;
  const on = where ? ` on ${where}` : "";
  let reason: string;
  switch (r.kind) {
    case "wrong-answer":
      reason = `${where ?? "an input"}: expected ${r.expected ?? "?"}, got ${r.actual ?? "?"}`;
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
