/**
 * Special functions for docs/stats-spec.md §9, to double precision. The golden vectors (scipy) are checked to
 * 1e-12 relative, so the 1e-7 textbook approximations are not good enough: normal CDF is Cody's rational
 * Chebyshev algorithm (as in R's pnorm), the quantile is Wichura's AS241, binomial pmfs use Loader's saddle-point
 * form (no catastrophic cancellation of large lgammas), and the incomplete beta is a Lentz continued fraction.
 */

const LN_SQRT_2PI = 0.9189385332046728; // ln √(2π)

// ---------------------------------------------------------------- gamma family

/** ln(n!) for small integers, exact to rounding: the product is exact up to 22! and nearly so beyond. */
const LOG_FACTORIAL: number[] = (() => {
  const out = [0];
  let f = 1;
  for (let i = 1; i <= 170; i++) {
    f *= i;
    out.push(Math.log(f));
  }
  return out;
})();

/** Stirling series remainder for x ≥ 10: lgamma(x) − [(x − ½)ln x − x + ln√(2π)]. */
function stirlingRemainder(x: number): number {
  const x2 = 1 / (x * x);
  // Bernoulli-number coefficients B_{2k}/(2k(2k−1)); eight terms give < 1e-17 relative at x = 10.
  const coef = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400];
  let sum = 0;
  for (let i = coef.length - 1; i >= 0; i--) sum = sum * x2 + coef[i]!;
  return sum / x;
}

/** ln Γ(x) for x > 0. */
export function lgamma(x: number): number {
  if (!(x > 0)) return x === 0 ? Infinity : NaN;
  if (Number.isInteger(x) && x <= 171) return LOG_FACTORIAL[x - 1]!;
  if (x >= 10) return (x - 0.5) * Math.log(x) - x + LN_SQRT_2PI + stirlingRemainder(x);
  // Shift up to the Stirling range: Γ(x) = Γ(x + k) / (x (x+1) … (x+k−1)).
  let prod = 1;
  let y = x;
  while (y < 10) {
    prod *= y;
    y += 1;
  }
  return lgamma(y) - Math.log(prod);
}

/** ln B(a, b) = lgamma(a) + lgamma(b) − lgamma(a + b). */
export function logBeta(a: number, b: number): number {
  return lgamma(a) + lgamma(b) - lgamma(a + b);
}

/** Regularized incomplete beta I_x(a, b), by the Lentz continued fraction (Numerical Recipes `betacf`). */
export function betaInc(a: number, b: number, x: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // The fraction converges fast only for x < (a + 1)/(a + b + 2); use the symmetry otherwise.
  if (x > (a + 1) / (a + b + 2)) return 1 - betaInc(b, a, 1 - x);
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b)) / a;
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return front * h;
}

// ---------------------------------------------------------------- binomial

/** Loader's stirlerr(n) = ln(n!) − [(n + ½)ln n − n + ln√(2π)], accurate for all n > 0. */
function stirlerr(n: number): number {
  if (n <= 15) return lgamma(n + 1) - (n + 0.5) * Math.log(n) + n - LN_SQRT_2PI;
  const nn = n * n;
  const s0 = 1 / 12,
    s1 = 1 / 360,
    s2 = 1 / 1260,
    s3 = 1 / 1680,
    s4 = 1 / 1188;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

/** Loader's deviance term bd0(x, np) = x ln(x/np) + np − x, without cancellation near x = np. */
function bd0(x: number, np: number): number {
  if (Math.abs(x - np) < 0.1 * (x + np)) {
    let v = (x - np) / (x + np);
    let s = (x - np) * v;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      ej *= v;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
    return s;
  }
  return x * Math.log(x / np) + np - x;
}

/** ln P(X = k), X ~ Bin(n, p). */
export function binomLogPmf(k: number, n: number, p: number): number {
  if (k < 0 || k > n || !Number.isInteger(k)) return -Infinity;
  if (p === 0) return k === 0 ? 0 : -Infinity;
  if (p === 1) return k === n ? 0 : -Infinity;
  if (k === 0) return n * Math.log1p(-p);
  if (k === n) return n * Math.log(p);
  const q = 1 - p;
  const lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q);
  return lc + 0.5 * Math.log(n / (2 * Math.PI * k * (n - k)));
}

/**
 * Fair-coin pmf for n ≤ 50 in exact integer arithmetic: C(n, k) stays below 2^53 at every step and 2^−n scales
 * exactly, so McNemar p-values of small tables come out as exact dyadic numbers (0.625, not 0.6250000000000002).
 */
function fairPmfExact(k: number, n: number): number {
  const r = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= r; i++) c = (c * (n - r + i)) / i;
  return c * Math.pow(2, -n);
}

const EXACT_FAIR_MAX_N = 50;

export function binomPmf(k: number, n: number, p: number): number {
  if (p === 0.5 && n <= EXACT_FAIR_MAX_N && Number.isInteger(k) && k >= 0 && k <= n) return fairPmfExact(k, n);
  return Math.exp(binomLogPmf(k, n, p));
}

/** Σ_{j=from..to} P(X = j) for the fair coin with n ≤ 50: a sum of multiples of 2^−n, exact in a double. */
function fairTailExact(from: number, to: number, n: number): number {
  let s = 0;
  for (let j = from; j <= to; j++) s += fairPmfExact(j, n);
  return s;
}

/** ln Σ_{j=from..to} P(X = j), summed with log-sum-exp so that tails far below 1e-308 stay representable. */
function logTailSum(from: number, to: number, n: number, p: number): number {
  if (from > to) return -Infinity;
  // Terms fall away geometrically from the end nearer the mode; start there and stop when they no longer count.
  const nearMode = Math.abs(from - n * p) < Math.abs(to - n * p) ? from : to;
  const step = nearMode === from ? 1 : -1;
  const lead = binomLogPmf(nearMode, n, p);
  if (lead === -Infinity) return -Infinity;
  let sum = 0;
  for (let j = nearMode; j >= from && j <= to; j += step) {
    const term = Math.exp(binomLogPmf(j, n, p) - lead);
    sum += term;
    if (term < 1e-18 * sum) break;
  }
  return lead + Math.log(sum);
}

/** P(X ≤ k). Sums the tail that does not contain the mean (it is the small one) and complements otherwise. */
export function binomCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  k = Math.floor(k);
  if (p === 0.5 && n <= EXACT_FAIR_MAX_N) return fairTailExact(0, k, n);
  if (k < n * p) return Math.exp(logTailSum(0, k, n, p));
  return 1 - Math.exp(logTailSum(k + 1, n, n, p));
}

/** P(X > k). */
export function binomSf(k: number, n: number, p: number): number {
  if (k < 0) return 1;
  if (k >= n) return 0;
  k = Math.floor(k);
  if (p === 0.5 && n <= EXACT_FAIR_MAX_N) return fairTailExact(k + 1, n, n);
  if (k + 1 > n * p) return Math.exp(logTailSum(k + 1, n, n, p));
  return 1 - Math.exp(logTailSum(0, k, n, p));
}

// ---------------------------------------------------------------- normal

function horner(coef: readonly number[], x: number): number {
  let v = 0;
  for (let i = coef.length - 1; i >= 0; i--) v = v * x + coef[i]!;
  return v;
}

const AS241_A = [3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987, 67265.7709270087, 33430.57558358813, 2509.0809287301227];
const AS241_B = [1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271, 28729.085735721943, 5226.495278852854];
const AS241_C = [1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684, 0.2417807251774506, 0.022723844989269184, 0.0007745450142783414];
const AS241_D = [1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9];
const AS241_E = [6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124, 0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7];
const AS241_F = [1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133, 1.8463183175100548e-5, 1.421511758316446e-7, 2.0442631033899397e-15];

/** Φ⁻¹(p), Wichura's AS241 (PPND16), about 1e-16 relative. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * horner(AS241_A, r)) / horner(AS241_B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value = horner(AS241_C, r) / horner(AS241_D, r);
  } else {
    r -= 5;
    value = horner(AS241_E, r) / horner(AS241_F, r);
  }
  return q < 0 ? -value : value;
}

// ---------------------------------------------------------------- Student t

/** P(T ≤ t) for Student's t with df degrees of freedom, via I_{df/(df+t²)}(df/2, ½). */
export function tCdf(t: number, df: number): number {
  if (t === 0) return 0.5;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const x = df / (df + t * t);
  const tail = 0.5 * betaInc(df / 2, 0.5, x);
  return t > 0 ? 1 - tail : tail;
}

/** Student t quantile by bisection on tCdf (spec §9); bisection runs to the last representable midpoint. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0;
  let hi = Math.max(1, normalQuantile(p));
  while (tCdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
  }
  for (let i = 0; i < 200; i++) {
    const mid = 0.5 * (lo + hi);
    if (mid === lo || mid === hi) break;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** Plain bisection for a root of f on [lo, hi] where f changes sign; stops when the midpoint repeats. */
export function bisect(f: (x: number) => number, lo: number, hi: number, maxSteps = 200): number {
  let flo = f(lo);
  for (let i = 0; i < maxSteps; i++) {
    const mid = 0.5 * (lo + hi);
    if (mid === lo || mid === hi) break;
    const fm = f(mid);
    if (fm === 0) return mid;
    if (Math.sign(fm) === Math.sign(flo)) {
      lo = mid;
      flo = fm;
    } else hi = mid;
  }
  return 0.5 * (lo + hi);
}
