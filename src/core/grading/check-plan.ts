import { InputError } from "../errors.js";
import type { CheckJob, ExpectedJob } from "../sandbox/protocol.js";
import { stringifyJsonLossless } from "../tasks/evalplus-json.js";
import type { PythonFunctionTask } from "../tasks/schema.js";
import type { CheckPlan } from "./check-driver.js";
import type { ExpectedOutputs } from "./expected.js";

/** EvalPlus: per-input limit max(4 s, 4 × canonical time). */
export const MIN_TIME_LIMIT_MS = 4000;
export const TIME_LIMIT_FACTOR = 4;
/** Expected outputs whose encoding passes this are kept as a digest (exact comparison) instead of the value. */
const DIGEST_OVER_BYTES = 1024 * 1024;

export interface PlanLimits {
  taskCapMs: number;
  graceMs: number;
  memoryMb: number;
  minTimeLimitMs: number;
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

/** The reference process's job: the canonical solution (and reference function) on every input. */
export function expectedJobFor(task: PythonFunctionTask, capMs: number): ExpectedJob {
  return {
    mode: "expected",
    program: task.canonicalSolution,
    entryPoint: task.entryPoint,
    ...inputsOf(task),
    ...(task.tests.deserialize ? { deserialize: task.tests.deserialize } : {}),
    outputNotNone: task.tests.oracle === "not-none",
    ...(task.tests.reference ? { reference: task.tests.reference } : {}),
    wantArgs: task.tests.oracle === "find_zero",
    // Huge outputs are compared by digest, which is exact: only where EvalPlus compares exactly too.
    ...(task.tests.oracle === "default" ? { digestOverBytes: DIGEST_OVER_BYTES } : {}),
    capMs,
  };
}

/** Expected outputs that are objects of a non-builtin type cannot be compared without calling their own __eq__. */
export function assertComparable(task: PythonFunctionTask, exp: ExpectedOutputs): void {
  if (task.tests.oracle === "not-none" || task.tests.oracle === "always") return;
  const opaque = exp.values.findIndex((e) => "v" in e && e.v !== null && typeof e.v === "object" && !Array.isArray(e.v) && "o" in e.v);
  if (opaque < 0) return;
  const e = exp.values[opaque] as { v: { o: string } };
  throw new InputError(`${task.id}: the canonical solution returns a ${e.v.o} object on input #${opaque}, which cannot be compared safely`, {
    hint: "Make the canonical solution return builtin values (int, float, str, list, tuple, dict, set…), or use the not-none oracle.",
  });
}

/** The answer process's job (without the program) and the host's plan for checking it: limits, phases, caps. */
export function checkPlanFor(task: PythonFunctionTask, exp: ExpectedOutputs, limits: PlanLimits): { job: CheckJob; plan: CheckPlan } {
  const { taskCapMs, graceMs, memoryMb } = limits;
  const limitsMs = exp.timesMs.map((t) => Math.max(limits.minTimeLimitMs, TIME_LIMIT_FACTOR * t));
  // Turning an output into data (or a digest) is the sandbox's work, not the answer's: EvalPlus compares objects in
  // memory. An answer gets EvalPlus's factor on what encoding the expected output took the reference.
  const encodeMs = exp.serializeMs.map((t) => TIME_LIMIT_FACTOR * t);
  let start = 0;
  const phases = phasesOf(task, exp.count).map((p) => {
    const sum = limitsMs.slice(start, start + p.count).reduce((a, b) => a + b, 0);
    const reference = exp.timesMs.slice(start, start + p.count).reduce((a, b) => a + b, 0);
    const encoding = encodeMs.slice(start, start + p.count).reduce((a, b) => a + b, 0);
    start += p.count;
    // EvalPlus: min(per-task cap, sum of limits) + 1 s, for base and plus separately. The 60 s cap was set
    // for native CPython; Pyodide is 2-3x slower, so it never drops below twice the canonical's own time here
    // (Mbpp/599 needs ~45 s in the sandbox), or the reference solution itself would fail.
    return { ...p, capMs: Math.max(Math.min(taskCapMs, sum), 2 * reference) + 1000 + encoding };
  });
  // An output far larger than the expected one cannot equal it (a set may repeat elements, so it gets more room).
  const outputCaps = exp.bytes.map((b, i) => ("h" in exp.values[i]! ? 4096 : task.tests.oracle === "set" ? 64 * 1024 * 1024 : Math.max(1024 * 1024, 8 * b)));
  const digest = exp.values.flatMap((v, i) => ("h" in v ? [i] : []));
  const loadCapMs = phases[0]?.capMs ?? 4000;
  const job: CheckJob = {
    mode: "check",
    ...(task.tests.setup ? { setup: task.tests.setup } : {}),
    program: "",
    entryPoint: task.entryPoint,
    ...inputsOf(task),
    ...(task.tests.deserialize ? { deserialize: task.tests.deserialize } : {}),
    limitsMs,
    loadCapMs,
    digest,
    outputCaps,
  };
  return { job, plan: { oracle: task.tests.oracle, atol: task.tests.atol, expected: exp, limitsMs, encodeMs, phases, loadCapMs, graceMs, memoryMb, outputCaps } };
}
