/**
 * Exact rational arithmetic for answer comparison: `0.5`, `1/2`, `\frac{1}{2}`, `\frac{3}{6}` and `2^{-1}` are
 * all the same number, and floating point would make `0.1 + 0.2` differ from `0.3`. Only + - * / ^ (integer
 * exponents), parentheses/braces, `\frac{a}{b}` and decimals are understood; anything else (π, √, letters)
 * means "not a plain number" and the caller compares strings instead.
 */

export interface Rational {
  n: bigint;
  d: bigint;
}

const MAX_DIGITS = 400;
const MAX_EXPONENT = 512n;
/** Results beyond this many bits are refused: `((9^512)^512)^512` must not hang the grader. */
const MAX_BITS = 65536;

const bits = (x: bigint) => (x < 0n ? -x : x).toString(16).length * 4;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rational(n: bigint, d: bigint = 1n): Rational {
  if (d === 0n) throw new RangeError("division by zero");
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

const add = (a: Rational, b: Rational) => rational(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Rational, b: Rational) => rational(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Rational, b: Rational) => {
  if (bits(a.n) + bits(b.n) + bits(a.d) + bits(b.d) > 2 * MAX_BITS) throw new RangeError("result too large");
  return rational(a.n * b.n, a.d * b.d);
};
const div = (a: Rational, b: Rational) => rational(a.n * b.d, a.d * b.n);

function pow(a: Rational, e: Rational): Rational {
  if (e.d !== 1n) throw new RangeError("non-integer exponent");
  if (e.n > MAX_EXPONENT || e.n < -MAX_EXPONENT) throw new RangeError("exponent too large");
  const k = e.n < 0n ? -e.n : e.n;
  if ((bits(a.n) + bits(a.d)) * Number(k) > MAX_BITS) throw new RangeError("result too large");
  const r = rational(a.n ** k, a.d ** k);
  return e.n < 0n ? div(rational(1n), r) : r;
}

/** `12.50` -> 25/2; `.5` -> 1/2. */
export function parseDecimal(s: string): Rational | null {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || s === "" || s === "." || s.length > MAX_DIGITS) return null;
  const whole = m[1] ?? "";
  const frac = m[2] ?? "";
  return rational(BigInt((whole || "0") + frac), 10n ** BigInt(frac.length));
}

export function rationalsEqual(a: Rational, b: Rational): boolean {
  return a.n === b.n && a.d === b.d;
}

/**
 * Evaluates a normalised (whitespace-free) answer as an exact rational, or null when it is not a plain
 * number expression. A mixed number like `1\frac{4}{5}` (MATH writes these) is 9/5, not 4/5.
 */
export function evaluateRational(src: string): Rational | null {
  const mixed = /^([+-]?)(\d+)\\frac\{(\d+)\}\{(\d+)\}$/.exec(src);
  if (mixed) {
    const [, sign, whole, num, den] = mixed;
    if (den === "0") return null;
    const v = add(rational(BigInt(whole as string)), rational(BigInt(num as string), BigInt(den as string)));
    return sign === "-" ? rational(-v.n, v.d) : v;
  }
  let i = 0;
  const peek = () => src[i];
  const expect = (c: string) => {
    if (src[i] !== c) throw new SyntaxError(`expected ${c}`);
    i++;
  };
  const primary = (): Rational => {
    const c = peek();
    if (c === "(" || c === "{") {
      i++;
      const v = expr();
      expect(c === "(" ? ")" : "}");
      return v;
    }
    if (src.startsWith("\\frac{", i)) {
      i += 5;
      expect("{");
      const a = expr();
      expect("}");
      expect("{");
      const b = expr();
      expect("}");
      return div(a, b);
    }
    const m = /^(\d+(?:\.\d*)?|\.\d+)/.exec(src.slice(i, i + MAX_DIGITS + 2));
    if (!m) throw new SyntaxError("not a number");
    i += (m[1] as string).length;
    const v = parseDecimal(m[1] as string);
    if (!v) throw new SyntaxError("bad number");
    return v;
  };
  const power = (): Rational => {
    const base = primary();
    if (peek() !== "^") return base;
    i++;
    return pow(base, unary());
  };
  const unary = (): Rational => {
    if (peek() === "-") {
      i++;
      const v = unary();
      return rational(-v.n, v.d);
    }
    if (peek() === "+") {
      i++;
      return unary();
    }
    return power();
  };
  const term = (): Rational => {
    let v = unary();
    while (peek() === "*" || peek() === "/") {
      const op = src[i++];
      const r = unary();
      v = op === "*" ? mul(v, r) : div(v, r);
    }
    return v;
  };
  const expr = (): Rational => {
    let v = term();
    while (peek() === "+" || peek() === "-") {
      const op = src[i++];
      const r = term();
      v = op === "+" ? add(v, r) : sub(v, r);
    }
    return v;
  };
  try {
    if (src === "") return null;
    const v = expr();
    return i === src.length ? v : null;
  } catch {
    return null;
  }
}
