/**
 * Anytime-valid procedures (docs/stats-spec.md §7): valid at any data-dependent stopping time by Ville's
 * inequality. §7.1 beta-binomial mixture e-process on discordant pairs (default) and §7.3 hedged-capital betting
 * confidence sequence for θ. Work in logs throughout. The references (§7.2 Wald SPRT, §7.4 normal-mixture boundary,
 * the mixture CS) are in test/support/stats-reference: only the golden tests use them.
 */
import { binomCdf, binomSf, logBeta } from "./special.js";

// ---------------------------------------------------------------- §7.1 beta-binomial mixture

export interface MixtureEValues {
  logETwoSided: number;
  eTwoSided: number;
  eHelpful: number;
  eHarmful: number;
  /** I_{½}(S+1, F+1) = P(Bin(n+1, ½) ≥ S+1). */
  iHalf: number;
}

/** E-values after S rescues and F harms among the discordant pairs (uniform prior; directional halves). */
export function mixtureEValues(S: number, F: number): MixtureEValues {
  const n = S + F;
  const logB = logBeta(S + 1, F + 1);
  const logETwoSided = n * Math.LN2 + logB;
  const iHalf = binomSf(S, n + 1, 0.5);
  // 1 − I = P(Bin(n+1, ½) ≤ S), taken from its own tail so neither side loses precision.
  const oneMinusI = binomCdf(S, n + 1, 0.5);
  const logDir = (n + 1) * Math.LN2 + logB;
  return {
    logETwoSided,
    eTwoSided: Math.exp(logETwoSided),
    eHelpful: Math.exp(logDir) * oneMinusI,
    eHarmful: Math.exp(logDir) * iHalf,
    iHalf,
  };
}

// ---------------------------------------------------------------- §7.3 betting CS
// (§7.2 SPRT, §7.4 normal mixture and the batch betting helpers are references: test/support/stats-reference.)

/**
 * Incremental hedged-capital betting CS on the grid m = j/breaks. Feed X ∈ [0, 1] one at a time; `interval()` is
 * the running-intersection CS for μ, `thetaInterval()` maps it to θ = 2μ − 1.
 * With `populationSize` N the CS is for the mean of a finite benchmark sampled without replacement (Waudby-Smith &
 * Ramdas 2020): each bet is centred on the conditional mean m_t = (N·m − S_{t−1})/(N − t + 1); a candidate m whose
 * m_t leaves [0, 1] is impossible given the data seen and drops out for good.
 */
export class BettingCS {
  private readonly grid: number[];
  private readonly logKPlus: Float64Array;
  private readonly logKMinus: Float64Array;
  private t = 0;
  private sumX = 0;
  private sumSq = 0;
  private sigma2Prev = 0.25;
  private lo = 0;
  private hi = 1;

  constructor(
    readonly alpha = 0.05,
    readonly breaks = 1000,
    readonly populationSize?: number,
  ) {
    this.grid = Array.from({ length: breaks + 1 }, (_, j) => j / breaks);
    this.logKPlus = new Float64Array(breaks + 1);
    this.logKMinus = new Float64Array(breaks + 1);
  }

  get count(): number {
    return this.t;
  }

  push(x: number): void {
    const N = this.populationSize;
    if (N !== undefined && this.t >= N) throw new RangeError(`more observations than the population size ${N}`);
    this.t++;
    const t = this.t;
    const before = this.sumX;
    const lambda = Math.sqrt((2 * Math.log(2 / this.alpha)) / (t * Math.log(1 + t) * this.sigma2Prev));
    const threshold = Math.log(1 / this.alpha);
    let first = -1;
    let last = -1;
    for (let j = 0; j < this.grid.length; j++) {
      const m = N === undefined ? this.grid[j]! : (N * this.grid[j]! - before) / (N - t + 1);
      if (m < -1e-12 || m > 1 + 1e-12) {
        this.logKPlus[j] = Infinity;
        continue;
      }
      this.logKPlus[j]! += Math.log1p(Math.min(lambda, 0.5 / m) * (x - m));
      this.logKMinus[j]! += Math.log1p(-Math.min(lambda, 0.5 / (1 - m)) * (x - m));
      const lp = this.logKPlus[j]!;
      const lm = this.logKMinus[j]!;
      const hedged = Math.log(0.5) + Math.max(lp, lm);
      if (hedged <= threshold) {
        if (first < 0) first = j;
        last = j;
      }
    }
    this.sumX += x;
    const muHat = Math.min(1, (0.5 + this.sumX) / (t + 1));
    this.sumSq += (x - muHat) * (x - muHat);
    this.sigma2Prev = (0.25 + this.sumSq) / (t + 1);
    if (first >= 0) {
      const step = 1 / this.breaks;
      this.lo = Math.max(this.lo, Math.max(0, this.grid[first]! - step));
      this.hi = Math.min(this.hi, Math.min(1, this.grid[last]! + step));
    }
    // An empty grid set (capital above 1/α everywhere) cannot happen for data in [0, 1] at the grid's resolution;
    // if it ever did, keeping the previous interval stays valid (intersection with a superset).
    if (this.lo > this.hi) this.lo = this.hi;
  }

  interval(): [number, number] {
    return [this.lo, this.hi];
  }

  thetaInterval(): [number, number] {
    return [2 * this.lo - 1, 2 * this.hi - 1];
  }
}
