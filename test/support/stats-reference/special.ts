// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { binomCdf, binomPmf, binomSf } from "../../../src/core/stats/special.js";

const INV_SQRT_2PI = 0.3989422804014327;

/** P(X ≥ k). */
export function binomSfInclusive(k: number, n: number, p: number): number {
  return binomSf(k - 1, n, p);
}

/**
 * scipy.stats.binomtest p-values. Two-sided is the "minlike" rule: sum of P(X = j) over all j with
 * P(X = j) ≤ P(X = k)·(1 + 1e-7), the relative slack scipy uses against rounding.
 */
export function binomTest(k: number, n: number, p: number): { twoSided: number; greater: number; less: number } {
  const less = binomCdf(k, n, p);
  const greater = binomSfInclusive(k, n, p);
  const dk = binomPmf(k, n, p);
  const rerr = 1 + 1e-7;
  let twoSided: number;
  if (p === 0.5) {
    twoSided = Math.min(1, 2 * Math.min(less, greater));
  } else {
    let total = 0;
    for (let j = 0; j <= n; j++) {
      const dj = binomPmf(j, n, p);
      if (dj <= dk * rerr) total += dj;
    }
    twoSided = Math.min(1, total);
  }
  return { twoSided, greater, less };
}

const CODY_A = [2.2352520354606837, 161.02823106855587, 1067.6894854603709, 18154.98125334356, 0.06568233791820745];

const CODY_B = [47.202581904688245, 976.0985517377767, 10260.932208618979, 45507.78933502673];

const CODY_C = [
  0.39894151208813466, 8.883149794388377, 93.50665613217785, 597.2702763948002, 2494.5375852903726,
  6848.190450536283, 11602.65143764735, 9842.714838383978, 1.0765576773720192e-8,
];

const CODY_D = [
  22.266688044328117, 235.387901782625, 1519.3775994075547, 6485.558298266761, 18615.571640885097,
  34900.95272114598, 38912.00328609327, 19685.429676859992,
];

const CODY_P = [0.215898534057957, 0.12740116116024736, 0.022235277870649807, 0.0014216191932278934, 2.9112874951168793e-5, 0.023073441764940174];

const CODY_Q = [1.284260096144911, 0.4682382124808651, 0.06598813786892856, 0.0037823963320275824, 7.297515550839662e-5];

/** Both tails of the standard normal, [P(Z ≤ x), P(Z > x)], each with full relative precision (Cody 1969). */
export function normalTails(x: number): [number, number] {
  const y = Math.abs(x);
  if (y <= 0.67448975) {
    let xnum = 0;
    let xden = 0;
    if (y > 1.1e-16) {
      const xsq = x * x;
      xnum = CODY_A[4]! * xsq;
      xden = xsq;
      for (let i = 0; i < 3; i++) {
        xnum = (xnum + CODY_A[i]!) * xsq;
        xden = (xden + CODY_B[i]!) * xsq;
      }
    }
    const temp = (x * (xnum + CODY_A[3]!)) / (xden + CODY_B[3]!);
    return [0.5 + temp, 0.5 - temp];
  }
  let temp: number;
  if (y <= Math.sqrt(32)) {
    let xnum = CODY_C[8]! * y;
    let xden = y;
    for (let i = 0; i < 7; i++) {
      xnum = (xnum + CODY_C[i]!) * y;
      xden = (xden + CODY_D[i]!) * y;
    }
    temp = (xnum + CODY_C[7]!) / (xden + CODY_D[7]!);
  } else if (y < 37.5193) {
    const xsq = 1 / (x * x);
    let xnum = CODY_P[5]! * xsq;
    let xden = xsq;
    for (let i = 0; i < 4; i++) {
      xnum = (xnum + CODY_P[i]!) * xsq;
      xden = (xden + CODY_Q[i]!) * xsq;
    }
    temp = (xsq * (xnum + CODY_P[4]!)) / (xden + CODY_Q[4]!);
    temp = (INV_SQRT_2PI - temp) / y;
  } else {
    return x > 0 ? [1, 0] : [0, 1];
  }
  // exp(−y²/2) split as exp(−xsq²/2)·exp(−del/2) so the small tail keeps its relative accuracy.
  const xsq = Math.trunc(y * 16) / 16;
  const del = (y - xsq) * (y + xsq);
  const small = Math.exp(-xsq * xsq * 0.5) * Math.exp(-del * 0.5) * temp;
  return x > 0 ? [1 - small, small] : [small, 1 - small];
}

export function normalCdf(x: number): number {
  return normalTails(x)[0];
}

export function normalSf(x: number): number {
  return normalTails(x)[1];
}
