/**
 * Tests on one paired 2×2 table (docs/stats-spec.md §3). Everything conditions on the m = b + c discordant
 * pairs, X ~ Bin(m, ½). Orientation: b = rescued (enabled passes only), c = harmed; positive means skills help.
 */
import { binomCdf, binomPmf, binomSf } from "./special.js";

/** Cells of one table: a both pass, b rescued, c harmed, d both fail. */
export interface PairedCounts {
  a: number;
  b: number;
  c: number;
  d: number;
}

/** Exact conditional McNemar: min(1, 2·P(X ≤ min(b, c))); 1 when there are no discordant pairs. */
export function mcnemarExactP(b: number, c: number): number {
  const m = b + c;
  if (m === 0) return 1;
  return Math.min(1, 2 * binomCdf(Math.min(b, c), m, 0.5));
}

/** The literal mid-p formula (0.5 at m = 0); kept for the golden file's `mid_p_formula`. */
export function mcnemarMidPFormula(b: number, c: number): number {
  const m = b + c;
  if (b === c) return 1 - 0.5 * binomPmf(b, m, 0.5);
  const lo = Math.min(b, c);
  // 2·P(X < min) + P(X = min): computed from the small tail, never as a difference near 1.
  return 2 * binomCdf(lo - 1, m, 0.5) + binomPmf(lo, m, 0.5);
}

/** Reported two-sided mid-p McNemar; 1 when m = 0 (no information, not "p = 0.5"). */
export function mcnemarMidP(b: number, c: number): number {
  return b + c === 0 ? 1 : mcnemarMidPFormula(b, c);
}

export interface OneSidedP {
  helpfulExact: number;
  harmfulExact: number;
  helpfulMid: number;
  harmfulMid: number;
}

/** One-sided p-values: helpful P(X ≥ b), harmful P(X ≤ b); mid-p subtracts ½·P(X = b). All 1 when m = 0. */
export function mcnemarOneSided(b: number, c: number): OneSidedP {
  const m = b + c;
  if (m === 0) return { helpfulExact: 1, harmfulExact: 1, helpfulMid: 1, harmfulMid: 1 };
  const atB = binomPmf(b, m, 0.5);
  const geB = binomSf(b - 1, m, 0.5);
  const leB = binomCdf(b, m, 0.5);
  return { helpfulExact: geB, harmfulExact: leB, helpfulMid: geB - 0.5 * atB, harmfulMid: leB - 0.5 * atB };
}

/** Smallest two-sided p reachable with m discordant pairs: 2^(−m) for mid-p, 2^(1−m) for exact (spec §2). */
export function minAchievableP(m: number, exact: boolean): number {
  if (m === 0) return 1;
  return Math.min(1, Math.pow(2, exact ? 1 - m : -m));
}

/** True when no table with this many discordant pairs could reach p < alpha ("too few discordant pairs"). */
export function tooFewDiscordant(m: number, alpha: number, exact = false): boolean {
  return minAchievableP(m, exact) >= alpha;
}
