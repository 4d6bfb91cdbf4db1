/** Call counts and savings of the RAE-only design (docs/stats-spec.md §8). */

export interface DesignCalls {
  callsPerTaskFull: number;
  callsPerTaskRaeOnly: number;
  savingFraction: number;
}

/** Expected calls per task and saving for retrieval rate r with kPlus/kMinus runs per task and arm. */
export function raeOnlySavings(retrievalRate: number, kPlus = 1, kMinus = 1): DesignCalls {
  const full = kPlus + kMinus;
  const raeOnly = kPlus + retrievalRate * kMinus;
  // 1 − raeOnly/full equals (1 − r)·k₋/(k₊ + k₋); computed this way it matches the golden rounding exactly.
  return { callsPerTaskFull: full, callsPerTaskRaeOnly: raeOnly, savingFraction: 1 - raeOnly / full };
}
