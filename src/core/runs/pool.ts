import { setMaxListeners } from "node:events";
import PQueue from "p-queue";

/**
 * Raises the listener limit of a run's signal to what its jobs in flight can hold at once: a few each (the model
 * call, a backoff, the grading) and the pool's own. Unlike setMaxListeners(0), a leak of one listener per job soon
 * passes the limit, and node says so (MaxListenersExceededWarning) instead of keeping every job alive in silence.
 */
export function boundListeners(signal: AbortSignal, concurrency: number): void {
  setMaxListeners(concurrency * 4 + 2, signal);
}

export interface PoolOptions<J> {
  concurrency: number;
  /** Cancels: no job starts after it fires (jobs in flight see the same signal and end themselves). */
  signal: AbortSignal;
  /** Polled before each job starts and after each finishes: true stops the pool the same way (early stopping). */
  stopped: () => boolean;
  /** Runs one job and returns the jobs it unlocks (RAE-only: disabled runs after an enabled run retrieved). Must not throw. */
  run: (job: J) => Promise<readonly J[]>;
}

/**
 * Runs jobs `concurrency` at a time in the order they are added, including jobs added by finished ones, until none
 * is left or the pool is stopped. p-queue's idle promise already waits for jobs in flight that may still add more,
 * which is what a hand-written pool had to do with a wait/notify of its own.
 */
export async function runPool<J>(initial: readonly J[], options: PoolOptions<J>): Promise<void> {
  const queue = new PQueue({ concurrency: options.concurrency });
  const halted = () => options.signal.aborted || options.stopped();
  let failure: { error: unknown } | undefined;
  const halt = () => queue.clear();
  const add = (job: J): void => {
    queue
      .add(async () => {
        if (halted()) return;
        const more = await options.run(job);
        if (halted()) halt();
        else for (const next of more) add(next);
      })
      .catch((error: unknown) => {
        failure ??= { error };
        halt();
      });
  };
  options.signal.addEventListener("abort", halt, { once: true });
  try {
    if (!halted()) for (const job of initial) add(job);
    await queue.onIdle();
  } finally {
    options.signal.removeEventListener("abort", halt);
  }
  if (failure) throw failure.error;
}
