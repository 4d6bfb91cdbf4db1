import { setMaxListeners } from "node:events";

/**
 * Raises an evaluation signal's listener limit to what its concurrency explains, instead of switching the warning off.
 * Each job in flight may hold a few listeners at once (its model call, its retry sleep, its check, its sandbox job);
 * a listener that outlives its job makes the count grow with the length of the run, and Node's
 * MaxListenersExceededWarning then says so.
 */
export function boundListeners(signal: AbortSignal, concurrency: number): void {
  setMaxListeners(listenerBound(concurrency), signal);
}

/** Listeners a signal shared by `concurrency` jobs may carry at once: four per job, plus the run's own two. */
export function listenerBound(concurrency: number): number {
  return Math.max(1, concurrency) * 4 + 2;
}
