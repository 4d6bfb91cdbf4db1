import { estimateEta, type BatchProgress, type EvaluationProgress, type ProgressPhase } from "../../shared/progress.js";
import type { GraderStatus } from "../grading/index.js";
import type { ModelClient } from "../models/types.js";

export type { EvaluationProgress, ProgressPhase } from "../../shared/progress.js";

/** The counts only the run's bookkeeping knows (RunState): runs done and planned, retrievals, the running RAE. */
export interface RunCounts {
  done: number;
  total: number;
  retrievals: number;
  runningRae: number | null;
  runningRaeN: number;
  /** Batch mode: the batch jobs in flight, as the provider last reported them. */
  batches?: readonly BatchProgress[];
}

/**
 * Everything else the progress line says: which phase the run waits on, model calls in flight, answers being checked,
 * tokens, elapsed time and the ETA. Time comes from an injected clock, so tests drive it without waiting.
 */
export class ProgressTracker {
  private readonly startedAt: number;
  private readonly resumedRuns: number;
  private modelDone = 0;
  private inFlight = 0;
  private checking = 0;
  private tokenCount = 0;

  constructor(
    private readonly now: () => number,
    private readonly grader: { status?: () => GraderStatus },
    resumedRuns: number,
    resumedTokens: number,
  ) {
    this.startedAt = now();
    this.resumedRuns = resumedRuns;
    this.tokenCount = resumedTokens;
  }

  /** The model client, counting calls answered and in flight (requests are passed through untouched). */
  wrapClient(client: ModelClient, changed: () => void): ModelClient {
    return {
      id: client.id,
      // Batch mode's gate goes with the client: the engine tells it when runs start and end.
      ...(client.batch ? { batch: client.batch } : {}),
      complete: async (request, options) => {
        this.inFlight++;
        changed();
        try {
          return await client.complete(request, options);
        } finally {
          this.inFlight--;
          this.modelDone++;
          changed();
        }
      },
    };
  }

  /** Brackets one answer's check. */
  async checked<T>(check: () => Promise<T>, changed: () => void): Promise<T> {
    this.checking++;
    changed();
    try {
      return await check();
    } finally {
      this.checking--;
      changed();
    }
  }

  addTokens(n: number): void {
    this.tokenCount += n;
  }

  phase(counts: RunCounts, status: GraderStatus | undefined): ProgressPhase {
    if (counts.total > 0 && counts.done >= counts.total) return "done";
    if (status?.sandbox === "starting") return "starting-sandbox";
    // Answers wait for the expected outputs of their task: computing them is what the run waits on.
    if ((status?.expected?.computing ?? 0) > 0) return "expected-outputs";
    if (this.inFlight > 0) return "model-calls";
    if (this.checking > 0) return "checking";
    return "model-calls";
  }

  snapshot(counts: RunCounts): EvaluationProgress {
    const status = this.grader.status?.();
    const elapsedMs = this.now() - this.startedAt;
    const expected = status?.expected ? { done: status.expected.done, total: status.expected.total } : null;
    return {
      ...counts,
      phase: this.phase(counts, status),
      modelCalls: { done: this.modelDone, inFlight: this.inFlight },
      checking: this.checking,
      expected,
      tokens: this.tokenCount,
      elapsedMs,
      etaMs: estimateEta(counts.done - this.resumedRuns, counts.total - counts.done, elapsedMs),
    };
  }
}
