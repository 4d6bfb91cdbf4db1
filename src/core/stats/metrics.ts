/**
 * Point metrics (docs/stats-spec.md §2) and the full analysis of one paired table. `null` means undefined
 * (empty subset), never 0. Ratios are formed from integer counts so they are correctly rounded.
 */
import { mcnemarExactP, mcnemarMidP, mcnemarOneSided, tooFewDiscordant, type OneSidedP, type PairedCounts } from "./paired.js";
import { newcombeInterval, tangoInterval, wilson, type Interval } from "./intervals.js";

export type Outcome = 0 | 1;

/** One task's paired outcome: y₋ (disabled) and y₊ (enabled). */
export interface PairedOutcome {
  yMinus: Outcome | boolean;
  yPlus: Outcome | boolean;
}

export function emptyCounts(): PairedCounts {
  return { a: 0, b: 0, c: 0, d: 0 };
}

export function addOutcome(t: PairedCounts, o: PairedOutcome): void {
  const m = Number(o.yMinus), p = Number(o.yPlus);
  if (m && p) t.a++;
  else if (!m && p) t.b++;
  else if (m && !p) t.c++;
  else t.d++;
}

export const nOf = (t: PairedCounts): number => t.a + t.b + t.c + t.d;

export interface TableAnalysis extends PairedCounts {
  n: number;
  effect: number | null;
  accEnabled: number | null;
  accDisabled: number | null;
  pMid: number | null;
  pExact: number | null;
  oneSided: OneSidedP | null;
  tango: Interval | null;
  newcombe10: Interval | null;
  /** π̂ = b/(b + c) with its Wilson interval; null when m = 0. */
  rescueShare: { estimate: number; wilson: Interval } | null;
  /** No table with this m could reach p < alpha: say "too few discordant pairs", not "no effect". */
  tooFewDiscordant: boolean;
}

/** Every test and interval the report shows for one table. */
export function analyzeTable(t: PairedCounts, alpha = 0.05, exact = false): TableAnalysis {
  const n = nOf(t);
  const m = t.b + t.c;
  if (n === 0) {
    return {
      ...t, n, effect: null, accEnabled: null, accDisabled: null, pMid: null, pExact: null, oneSided: null,
      tango: null, newcombe10: null, rescueShare: null, tooFewDiscordant: true,
    };
  }
  return {
    ...t,
    n,
    effect: (t.b - t.c) / n,
    accEnabled: (t.a + t.b) / n,
    accDisabled: (t.a + t.c) / n,
    pMid: mcnemarMidP(t.b, t.c),
    pExact: mcnemarExactP(t.b, t.c),
    oneSided: mcnemarOneSided(t.b, t.c),
    tango: tangoInterval(t.b, t.c, n, alpha),
    newcombe10: newcombeInterval(t, alpha),
    rescueShare: m === 0 ? null : { estimate: t.b / m, wilson: wilson(t.b, m, alpha)! },
    tooFewDiscordant: tooFewDiscordant(m, alpha, exact),
  };
}

export interface RetrievalMetrics {
  nPairs: number;
  nCond: number;
  allB: number;
  allC: number;
  condB: number;
  condC: number;
  OAE: number | null;
  RAE: number | null;
  NRAE: number | null;
  retrievalRate: number | null;
  accEnabledRetrieved: number | null;
  accEnabledNotRetrieved: number | null;
  accDisabledRetrieved: number | null;
  accDisabledNotRetrieved: number | null;
  /** acc₊(R=1) − acc₊(R=0): not causal; shown to expose the paradox. */
  lift: number | null;
  /** acc₋(R=1) − acc₋(R=0): the difficulty gap between retrieving and non-retrieving tasks. */
  selectionTerm: number | null;
  /** lift and RAE have opposite signs. */
  paradox: boolean;
}

/** (x/n − y/m) from integers in one rounding. */
const diffOfRatios = (x: number, n: number, y: number, m: number): number => (x * m - y * n) / (n * m);

/** OAE, RAE, NRAE, lift and its decomposition from the retrieved and not-retrieved tables. */
export function retrievalMetrics(retrieved: PairedCounts, notRetrieved: PairedCounts): RetrievalMetrics {
  const nR = nOf(retrieved);
  const nN = nOf(notRetrieved);
  const nPairs = nR + nN;
  const allB = retrieved.b + notRetrieved.b;
  const allC = retrieved.c + notRetrieved.c;
  const RAE = nR === 0 ? null : (retrieved.b - retrieved.c) / nR;
  const both = nR > 0 && nN > 0;
  const lift = both ? diffOfRatios(retrieved.a + retrieved.b, nR, notRetrieved.a + notRetrieved.b, nN) : null;
  return {
    nPairs,
    nCond: nR,
    allB,
    allC,
    condB: retrieved.b,
    condC: retrieved.c,
    OAE: nPairs === 0 ? null : (allB - allC) / nPairs,
    RAE,
    NRAE: nN === 0 ? null : (notRetrieved.b - notRetrieved.c) / nN,
    retrievalRate: nPairs === 0 ? null : nR / nPairs,
    accEnabledRetrieved: nR === 0 ? null : (retrieved.a + retrieved.b) / nR,
    accEnabledNotRetrieved: nN === 0 ? null : (notRetrieved.a + notRetrieved.b) / nN,
    accDisabledRetrieved: nR === 0 ? null : (retrieved.a + retrieved.c) / nR,
    accDisabledNotRetrieved: nN === 0 ? null : (notRetrieved.a + notRetrieved.c) / nN,
    lift,
    selectionTerm: both ? diffOfRatios(retrieved.a + retrieved.c, nR, notRetrieved.a + notRetrieved.c, nN) : null,
    paradox: lift !== null && RAE !== null && lift * RAE < 0,
  };
}

/** One sentence that explains a paradox flag to a reader, or null when there is none. */
export function paradoxExplanation(m: RetrievalMetrics): string | null {
  if (!m.paradox || m.lift === null || m.RAE === null) return null;
  const dir = m.RAE < 0 ? "hurt" : "helped";
  const liftDir = m.lift > 0 ? "higher" : "lower";
  return (
    `Tasks that triggered retrieval score ${liftDir} than the rest (lift ${m.lift.toFixed(3)}), yet on those same ` +
    `tasks skills ${dir} (RAE ${m.RAE.toFixed(3)}): the lift reflects which tasks retrieve ` +
    `(selection term ${m.selectionTerm === null ? "n/a" : m.selectionTerm.toFixed(3)}), not what the skills do.`
  );
}
