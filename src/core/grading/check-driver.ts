import { compareOutput, type CompareState } from "../sandbox/compare.js";
import type { Driver, Step } from "../sandbox/runner.js";
import type { FailureKind } from "../../shared/vocabulary/index.js";
import type { Oracle, ProcessMessage } from "../sandbox/protocol.js";
import { pyRepr, type PyValue } from "../sandbox/values.js";
import type { ExpectedOutputs } from "./expected.js";

/** The outcome of checking one answer: what toVerdict() turns into a one-line reason. */
export type CheckResult =
  | { status: "pass"; count: number }
  | {
      status: "fail";
      kind: FailureKind;
      phase?: string;
      index?: number;
      input?: string;
      expected?: string;
      actual?: string;
      error?: string;
      note?: string;
      /** Inputs after the failing one, which were not run: the check stops at the first failure. */
      notRun?: number;
    };

export interface CheckPlan {
  oracle: Oracle;
  atol: number;
  expected: ExpectedOutputs;
  /** Per-input limits (EvalPlus: max(4 s, 4 × canonical time)). */
  limitsMs: number[];
  /** Per-input time to turn the output into data, on top of the limit (4 × what the reference took). */
  encodeMs: number[];
  /** Consecutive input ranges with their own cap (base, then plus). */
  phases: Array<{ name: string; count: number; capMs: number }>;
  loadCapMs: number;
  graceMs: number;
  memoryMb: number;
  outputCaps: number[];
}

const SMALL_LINE = 64 * 1024;

/**
 * The host side of checking one answer. The answer's process streams one output per input; each is compared here,
 * on plain data, as it arrives, and the first failure ends the job (the process is then killed: the rest of the
 * inputs are not run). Every deadline is computed here from the task's limits: the load cap, then per input its
 * limit (never past its phase's cap), plus a fixed grace — nothing the process sends can extend them.
 */
export class CheckDriver implements Driver<CheckResult> {
  readonly firstDeadlineMs: number;
  readonly totalMs: number;
  private next = 0;
  private loaded = false;
  private phase = 0;
  private phaseStart = 0;
  private phaseEnd: number;
  private state: CompareState;

  constructor(
    private readonly plan: CheckPlan,
    private now: () => number = () => performance.now(),
  ) {
    this.firstDeadlineMs = plan.loadCapMs + plan.graceMs;
    this.totalMs = plan.loadCapMs + plan.phases.reduce((a, p) => a + p.capMs, 0) + 2 * plan.graceMs;
    // A phase's cap already includes its inputs' encoding allowances (python-grader.ts plan()).
    this.state = { oracle: plan.oracle, atol: plan.atol };
    this.phaseEnd = plan.phases[0]?.count ?? 0;
  }

  useClock(now: () => number): void {
    this.now = now;
  }

  maxLineBytes(): number {
    return this.loaded && this.next < this.plan.outputCaps.length ? Math.max(SMALL_LINE, this.plan.outputCaps[this.next]! + 4096) : SMALL_LINE;
  }

  private where(i: number): { phase: string; index: number; input: string } | Record<string, never> {
    let start = 0;
    for (const p of this.plan.phases) {
      if (i < start + p.count) return { phase: p.name, index: i - start, input: this.plan.expected.inputs[i] ?? "?" };
      start += p.count;
    }
    return {};
  }

  private expectedRepr(i: number): string {
    const e = this.plan.expected.values[i]!;
    return "v" in e ? pyRepr(e.v) : (e.p ?? `a value of ${e.n} bytes`);
  }

  /** The host deadline for input `next`: its own limit, within what is left of its phase's cap. */
  private deadlineForNext(): Step<CheckResult> {
    const p = this.plan.phases[this.phase]!;
    const left = p.capMs - (this.now() - this.phaseStart);
    if (left <= 0) return { settle: this.fail("timeout", this.next, `the ${p.name} inputs used up their ${(p.capMs / 1000).toFixed(1)} s cap`) };
    return { next: Math.min(this.plan.limitsMs[this.next]! + this.plan.encodeMs[this.next]!, left) + this.plan.graceMs };
  }

  private startPhase(): Step<CheckResult> | undefined {
    // Skip empty phases; past the last one there is nothing left to wait for but "done".
    while (this.phase < this.plan.phases.length && this.next >= this.phaseEnd) {
      this.phase++;
      this.phaseEnd += this.plan.phases[this.phase]?.count ?? 0;
    }
    if (this.phase >= this.plan.phases.length) return undefined;
    this.phaseStart = this.now();
    this.state = { oracle: this.plan.oracle, atol: this.plan.atol };
    return this.deadlineForNext();
  }

  private fail(kind: FailureKind, i: number | undefined, error?: string, extra: { expected?: string; actual?: string; note?: string } = {}): CheckResult {
    const notRun = i !== undefined ? this.plan.expected.count - i - 1 : 0;
    return { status: "fail", kind, ...(i !== undefined ? this.where(i) : {}), ...extra, ...(error !== undefined ? { error } : {}), ...(notRun > 0 ? { notRun } : {}) };
  }

  onMessage(msg: ProcessMessage): Step<CheckResult> {
    const count = this.plan.expected.count;
    switch (msg.type) {
      case "loaded": {
        if (this.loaded) return { settle: this.fail("error", undefined, "the answer's process broke the sandbox protocol (loaded twice)") };
        this.loaded = true;
        this.phase = 0;
        this.phaseEnd = this.plan.phases[0]?.count ?? 0;
        return this.startPhase() ?? { next: this.plan.graceMs + 1000 };
      }
      case "raise": {
        if (msg.i === undefined) return { settle: this.fail(msg.kind, undefined, msg.error) };
        if (!this.loaded || msg.i !== this.next) return { settle: this.fail("error", undefined, `the answer's process broke the sandbox protocol (a failure for input ${msg.i} while input ${this.next} was due)`) };
        return { settle: this.fail(msg.kind, msg.i, msg.error, { expected: this.expectedRepr(msg.i) }) };
      }
      case "out":
        return this.onOutput(msg);
      case "done":
        if (this.loaded && this.next === count && msg.count === count) return { settle: { status: "pass", count } };
        return { settle: this.fail("error", undefined, `the answer's process broke the sandbox protocol (finished after ${this.next} of ${count} inputs)`) };
      default:
        return { settle: this.fail("error", undefined, `the answer's process broke the sandbox protocol (unexpected "${msg.type}")`) };
    }
  }

  private onOutput(msg: Extract<ProcessMessage, { type: "out" }>): Step<CheckResult> {
    const i = this.next;
    if (!this.loaded || msg.i !== i || i >= this.plan.expected.count) {
      return { settle: this.fail("error", undefined, `the answer's process broke the sandbox protocol (output ${msg.i} while ${i} was due)`) };
    }
    const exp = this.plan.expected.values[i]!;
    if ("h" in exp) {
      if (msg.h === undefined || msg.v !== undefined) return { settle: this.fail("error", i, "the answer's process broke the sandbox protocol (a value where a digest was due)") };
      if (msg.h !== exp.h) return { settle: this.fail("wrong-answer", i, undefined, { expected: this.expectedRepr(i), actual: `a different value (${msg.n ?? "?"} bytes in canonical form; sha256 ${msg.h.slice(0, 12)}…)` }) };
    } else {
      if (msg.v === undefined || msg.h !== undefined) return { settle: this.fail("error", i, "the answer's process broke the sandbox protocol (a digest where a value was due)") };
      const out: PyValue = msg.v;
      const outcome = compareOutput(this.state, out, { value: exp.v, ...(this.plan.expected.alt ? { alt: this.plan.expected.alt[i] } : {}), ...(this.plan.expected.args ? { args: this.plan.expected.args[i] } : {}) });
      if (!outcome.ok) {
        const extra = { expected: this.expectedRepr(i), actual: pyRepr(out), ...(outcome.note ? { note: outcome.note } : {}) };
        return { settle: outcome.error ? this.fail("error", i, outcome.error, extra) : this.fail("wrong-answer", i, undefined, extra) };
      }
    }
    this.next++;
    if (this.next < this.phaseEnd) return this.deadlineForNext();
    return this.startPhase() ?? { next: this.plan.graceMs + 1000 };
  }

  onTimeout(): CheckResult {
    if (!this.loaded) return this.fail("timeout", undefined, `the answer did not load within ${(this.plan.loadCapMs / 1000).toFixed(1)} s (the sandbox was killed after the deadline)`);
    const limit = this.plan.limitsMs[this.next];
    const error = limit !== undefined ? `timed out after ${(limit / 1000).toFixed(1)} s (the sandbox was killed after the deadline)` : "timed out (the sandbox was killed after the deadline)";
    return this.fail("timeout", this.next < this.plan.expected.count ? this.next : undefined, error);
  }

  onMemory(rssBytes: number): CheckResult {
    return this.fail("memory", this.loaded ? this.next : undefined, `the sandbox process was killed at ${Math.round(rssBytes / 1048576)} MB resident memory`);
  }

  onProtocol(why: string): CheckResult {
    return this.fail("error", this.loaded ? this.next : undefined, `the answer's process broke the sandbox protocol: ${why}`);
  }

  onEnd(why: string): CheckResult {
    return this.fail("sandbox", this.loaded ? this.next : undefined, why);
  }
}
