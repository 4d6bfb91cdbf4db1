import { clock, signed, tokens } from "./format.js";

/**
 * What an evaluation reports while it runs, and the one line both hosts show for it (the CLI's progress lines, the
 * editor's notification and status bar), so a first run never sits at "0/86 runs" without saying what it is doing.
 */
export type ProgressPhase =
  /** The Python sandbox's interpreter snapshot and first process are being made (python tasks only). */
  | "starting-sandbox"
  /** Reference processes run the canonical solutions; answers wait for them. */
  | "expected-outputs"
  /** Model calls are what the run waits for. */
  | "model-calls"
  /** Every model call is done; answers are being checked. */
  | "checking"
  | "done";

/** Batch mode: one batch job as the provider last reported it. */
export interface BatchProgress {
  id: string;
  status: string;
  total: number;
  completed: number;
  failed: number;
}

export interface EvaluationProgress {
  /** Runs finished (including those read back on resume). */
  done: number;
  /** Runs the design needs as far as known now. */
  total: number;
  /** Enabled runs that retrieved at least one skill. */
  retrievals: number;
  /** RAE over the retrieved tasks whose pair is complete (sample 0), or null before any. */
  runningRae: number | null;
  /** How many pairs that running RAE is over. */
  runningRaeN: number;
  phase: ProgressPhase;
  /** Model calls answered so far in this session (cache hits included) and in flight now. */
  modelCalls: { done: number; inFlight: number };
  /** Answers being checked now. */
  checking: number;
  /** Python tasks of this run with their expected outputs ready (null: no python tasks). */
  expected: { done: number; total: number } | null;
  /** Prompt + completion tokens of the finished runs. */
  tokens: number;
  /** Since the evaluation started (injected clock). */
  elapsedMs: number;
  /** Time left at this session's rate; null until enough runs finished to estimate it. */
  etaMs: number | null;
  /** Batch mode: the batch jobs in flight, as the provider last reported them. */
  batches?: readonly BatchProgress[];
}

const PHASE_TEXT: Record<ProgressPhase, (p: EvaluationProgress) => string> = {
  "starting-sandbox": () => "starting the sandbox",
  "expected-outputs": (p) => `computing expected outputs ${p.expected?.done ?? 0}/${p.expected?.total ?? 0}`,
  "model-calls": (p) => `model calls (${p.modelCalls.inFlight} in flight)`,
  checking: (p) => `checking ${p.checking} answer${p.checking === 1 ? "" : "s"}`,
  done: () => "finishing",
};

/** `12/86 runs · model calls (4 in flight) · 3 retrievals · running RAE −0.25 (n 4) · 1.2k tokens · 0:42 elapsed, about 2:10 left` */
export function progressLine(p: EvaluationProgress): string {
  const parts = [`${p.done}/${p.total} runs`, PHASE_TEXT[p.phase](p)];
  parts.push(`${p.retrievals} retrieval${p.retrievals === 1 ? "" : "s"}`);
  parts.push(p.runningRae === null ? "running RAE n/a" : `running RAE ${signed(p.runningRae)} (n ${p.runningRaeN})`);
  for (const b of p.batches ?? []) parts.push(`batch ${b.id} ${b.status} ${b.completed}/${b.total}${b.failed ? ` (${b.failed} failed)` : ""}`);
  if (p.tokens > 0) parts.push(tokens(p.tokens));
  parts.push(`${clock(p.elapsedMs)} elapsed${p.etaMs === null ? "" : `, about ${clock(p.etaMs)} left`}`);
  return parts.join(" \u00b7 ");
}

/** The short form for a status bar: `Skill Following 12/86 · 0:42` (+ `· about 2:10 left`). */
export function progressShort(p: EvaluationProgress): string {
  return `${p.done}/${p.total} \u00b7 ${clock(p.elapsedMs)}${p.etaMs === null ? "" : ` \u00b7 about ${clock(p.etaMs)} left`}`;
}

/** Share of the runs done, 0–100, for progress bars. */
export function progressPercent(p: EvaluationProgress): number {
  return p.total > 0 ? Math.min(100, (p.done / p.total) * 100) : 0;
}

/**
 * Time left from this session's own pace: after at least `minRuns` new runs and `minMs` of running, the remaining runs
 * at the average rate so far; null before (an estimate from 1 run is noise).
 */
export function estimateEta(newRuns: number, remaining: number, elapsedMs: number, minRuns = 5, minMs = 3000): number | null {
  if (remaining <= 0) return 0;
  if (newRuns < minRuns || elapsedMs < minMs) return null;
  return (remaining * elapsedMs) / newRuns;
}

/** `model 2 of 3` for Compare Models, with the model's name. */
export function modelOrdinal(index: number, count: number, model: string): string {
  return `model ${index + 1} of ${count} (${model})`;
}

