// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { BettingCS, bisect, logBeta } from "../../../src/core/stats/index.js";
import { binomSfInclusive } from "./special.js";

/** Confidence sequence for π = P(rescue | discordant): {p : log B(S+1,F+1) − S ln p − F ln(1−p) < ln(1/α)}. */
export function mixtureConfidenceSequence(S: number, F: number, alpha = 0.05): [number, number] {
  const n = S + F;
  if (n === 0) return [0, 1];
  const logB = logBeta(S + 1, F + 1);
  const bound = Math.log(1 / alpha);
  const g = (p: number): number => logB - (S === 0 ? 0 : S * Math.log(p)) - (F === 0 ? 0 : F * Math.log1p(-p)) - bound;
  const pHat = S / n;
  const lower = S === 0 ? 0 : bisect(g, 0, pHat);
  const upper = F === 0 ? 1 : bisect(g, pHat, 1);
  return [lower, upper];
}

/** Wald's boundaries: A = ln((1 − β)/α) (upper), B = ln(β/(1 − α)) (lower). ln(1/α) is the strictly valid upper. */
export function sprtThresholds(alpha: number, beta: number): { upperA: number; lowerB: number; anytimeValidUpper: number } {
  return { upperA: Math.log((1 - beta) / alpha), lowerB: Math.log(beta / (1 - alpha)), anytimeValidUpper: Math.log(1 / alpha) };
}

/** LLR after each discordant pair (1 = rescue, 0 = harm) for H₁: π = π₁ against H₀: π = ½. */
export function sprtLlrPath(sequence: readonly number[], pi1: number): number[] {
  const up = Math.log(2 * pi1);
  const down = Math.log(2 * (1 - pi1));
  let S = 0;
  let F = 0;
  return sequence.map((x) => {
    if (x) S++;
    else F++;
    return S * up + F * down;
  });
}

/** First 1-based index at which the LLR leaves (B, A), and which side it left by. */
export function sprtFirstDecision(
  sequence: readonly number[],
  pi1: number,
  alpha: number,
  beta: number,
): { index: number; decision: "reject-h0" | "accept-h0" } | null {
  const { upperA, lowerB } = sprtThresholds(alpha, beta);
  const path = sprtLlrPath(sequence, pi1);
  for (let i = 0; i < path.length; i++) {
    if (path[i]! >= upperA) return { index: i + 1, decision: "reject-h0" };
    if (path[i]! <= lowerB) return { index: i + 1, decision: "accept-h0" };
  }
  return null;
}

/** Wald's approximate average number of discordant pairs to a decision, under H₀ and under H₁. */
export function sprtAsn(pi1: number, alpha: number, beta: number): { ezH0: number; ezH1: number; asnH0: number; asnH1: number } {
  const { upperA: A, lowerB: B } = sprtThresholds(alpha, beta);
  const ez = (pi: number): number => pi * Math.log(2 * pi1) + (1 - pi) * Math.log(2 * (1 - pi1));
  const ezH0 = ez(0.5);
  const ezH1 = ez(pi1);
  return { ezH0, ezH1, asnH0: ((1 - alpha) * B + alpha * A) / ezH0, asnH1: (beta * B + (1 - beta) * A) / ezH1 };
}

/** Smallest fixed number of discordant pairs for a one-sided exact test at α with power ≥ 1 − β at π₁. */
export function fixedSampleDiscordant(pi1: number, alpha: number, beta: number, maxM = 100000): { m: number; criticalK: number; size: number; power: number } | null {
  for (let m = 1; m <= maxM; m++) {
    let k = m + 1;
    // smallest k with P₀(X ≥ k) ≤ α
    for (let j = 0; j <= m; j++) {
      if (binomSfInclusive(j, m, 0.5) <= alpha) {
        k = j;
        break;
      }
    }
    if (k > m) continue;
    const power = binomSfInclusive(k, m, pi1);
    if (power >= 1 - beta) return { m, criticalK: k, size: binomSfInclusive(k, m, 0.5), power };
  }
  return null;
}

/** Normal-mixture boundary for Σ(Xᵢ − μ) of [0, 1] observations at time t: √((v+ρ)·ln((v+ρ)/(α²ρ))), v = t/4. */
export function normalMixtureBoundary(t: number, rho: number, alpha = 0.05): number {
  const v = t / 4;
  return Math.sqrt((v + rho) * Math.log((v + rho) / (alpha * alpha * rho)));
}

/** ρ that makes the boundary tightest at time t: root of ln((v+ρ)/(α²ρ)) − v/ρ, found by bisection on ln ρ. */
export function normalMixtureOptimalRho(t: number, alpha = 0.05): number {
  const v = t / 4;
  const g = (logRho: number): number => {
    const rho = Math.exp(logRho);
    return Math.log((v + rho) / (alpha * alpha * rho)) - v / rho;
  };
  return Math.exp(bisect(g, -40, 40));
}

/** Map a paired difference D ∈ {−1, 0, 1} to X = (D + 1)/2 ∈ [0, 1]. */
export const toUnit = (d: number): number => (d + 1) / 2;

/**
 * Predictable plug-in empirical-Bernstein bets λ₁…λₙ (confseq defaults): λₜ uses only X₁…X₍t−1₎.
 */
export function bettingLambdas(xs: readonly number[], alpha = 0.05): number[] {
  const out: number[] = [];
  let sumX = 0;
  let sumSq = 0;
  let sigma2Prev = 0.25;
  const logTerm = 2 * Math.log(1 / (alpha / 2));
  for (let t = 1; t <= xs.length; t++) {
    out.push(Math.sqrt(logTerm / (t * Math.log(1 + t) * sigma2Prev)));
    const x = xs[t - 1]!;
    sumX += x;
    const muHat = Math.min(1, (0.5 + sumX) / (t + 1));
    sumSq += (x - muHat) * (x - muHat);
    sigma2Prev = (0.25 + sumSq) / (t + 1);
  }
  return out;
}

/** Log capital after t observations for candidate mean m: log K⁺, log K⁻ and the hedged log max(½K⁺, ½K⁻) (spec §7.3: max, not the sum). */
export function bettingLogCapital(xs: readonly number[], t: number, m: number, alpha = 0.05): { logKPlus: number; logKMinus: number; logKHedged: number } {
  const lambdas = bettingLambdas(xs.slice(0, t), alpha);
  let lp = 0;
  let lm = 0;
  for (let i = 0; i < t; i++) {
    const x = xs[i]!;
    const l = lambdas[i]!;
    lp += Math.log1p(Math.min(l, 0.5 / m) * (x - m));
    lm += Math.log1p(-Math.min(l, 0.5 / (1 - m)) * (x - m));
  }
  return { logKPlus: lp, logKMinus: lm, logKHedged: Math.log(0.5) + Math.max(lp, lm) };
}

/** The betting CS for θ after every prefix of a paired-difference sequence D ∈ {−1, 0, 1}. */
export function bettingCsPath(d: readonly number[], alpha = 0.05, breaks = 1000): Array<{ t: number; mean: [number, number]; theta: [number, number] }> {
  const cs = new BettingCS(alpha, breaks);
  return d.map((x, i) => {
    cs.push(toUnit(x));
    return { t: i + 1, mean: cs.interval(), theta: cs.thetaInterval() };
  });
}
