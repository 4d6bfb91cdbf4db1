import type { Oracle } from "./protocol.js";
import { canonicalKey, intValue, isOpaque, parseFloatRepr, pyEquals, pyType, type PyValue } from "./values.js";

/**
 * EvalPlus's comparison of one output with the expected one (evalplus/eval/__init__.py `unsafe_execute`,
 * `_poly`, and the MBPP special oracles), done by the host on plain tagged values. The answer's process only
 * ever sees inputs; this code never sees an object of the answer's, only data.
 *
 * `state.atol` persists across the inputs of a phase, as in EvalPlus: once a float output is expected, later
 * inputs of that phase are compared with at least 1e-6.
 */
export interface CompareState {
  oracle: Oracle;
  atol: number;
}

/** `error`: Python raised inside the comparison (EvalPlus counts that as a failure); `note`: why a value was refused. */
export type CompareOutcome = { ok: true } | { ok: false; error?: string; note?: string };

export interface ExpectedForInput {
  value: PyValue;
  /** The task's alternative reference output (oracle "alt-reference"). */
  alt?: PyValue;
  /** The deserialized arguments (oracle "find_zero" evaluates the polynomial at the output). */
  args?: PyValue;
}

class PyTypeError extends Error {}

const asList = (v: PyValue): PyValue[] | undefined => (Array.isArray(v) ? v : v !== null && typeof v === "object" && "t" in v ? v.t : undefined);

function isFloat(v: PyValue): boolean {
  return v !== null && typeof v === "object" && !Array.isArray(v) && "f" in v;
}

/** `_sf_is_floats`: a float, or a non-empty list/tuple of floats. */
export function isFloats(v: PyValue): boolean {
  if (isFloat(v)) return true;
  const xs = asList(v);
  return xs !== undefined && xs.length > 0 && xs.every(isFloat);
}

/** Python's float(x) for the types EvalPlus meets; TypeError/OverflowError become PyTypeError. */
function toFloat(v: PyValue): number {
  if (isFloat(v)) return parseFloatRepr((v as { f: string }).f);
  const i = intValue(v);
  if (i === undefined) throw new PyTypeError(`float() argument must be a number, not '${pyType(v)}'`);
  const n = Number(i);
  if (!Number.isFinite(n)) throw new PyTypeError("int too large to convert to float");
  return n;
}

/** Python's complex(x) for numbers; [re, im]. */
function toComplex(v: PyValue): [number, number] {
  if (v !== null && typeof v === "object" && !Array.isArray(v) && "c" in v) return [parseFloatRepr(v.c[0]), parseFloatRepr(v.c[1])];
  return [toFloat(v), 0];
}

const isComplex = (v: PyValue) => v !== null && typeof v === "object" && !Array.isArray(v) && "c" in v;
const isStr = (v: PyValue) => typeof v === "string";

/** `numpy.allclose(a, b, rtol=1e-7, atol)` for the shapes EvalPlus meets: scalars and (nested) sequences. */
export function allclose(a: PyValue, b: PyValue, atol: number): boolean {
  if (isStr(a) || isStr(b)) return false;
  const la = asList(a);
  const lb = asList(b);
  if (lb) {
    if (la) return la.length === lb.length && la.every((x, i) => allclose(x, lb[i]!, atol));
    return lb.every((y) => allclose(a, y, atol));
  }
  if (la) return la.every((x) => allclose(x, b, atol));
  if (isComplex(a) || isComplex(b)) {
    try {
      const [ar, ai] = toComplex(a);
      const [br, bi] = toComplex(b);
      return Math.hypot(ar - br, ai - bi) <= atol + 1e-7 * Math.hypot(br, bi);
    } catch {
      return false;
    }
  }
  let fa: number;
  let fb: number;
  try {
    fa = toFloat(a);
    fb = toFloat(b);
  } catch {
    return false;
  }
  if (!Number.isFinite(fa) && !Number.isNaN(fa)) return fa === fb;
  if (!Number.isFinite(fb) && !Number.isNaN(fb)) return fa === fb;
  return Math.abs(fa - fb) <= atol + 1e-7 * Math.abs(fb);
}

/** CPython 3.12+ `sum()` of floats (start 0): the first float is 0 + x, then Neumaier's compensated sum. */
export function pySumFloats(xs: number[]): number {
  if (xs.length === 0) return 0;
  let hi = 0 + xs[0]!;
  let lo = 0;
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    const t = hi + x;
    if (Math.abs(hi) >= Math.abs(x)) lo += hi - t + x;
    else lo += x - t + hi;
    hi = t;
  }
  if (lo !== 0 && Number.isFinite(lo)) hi += lo;
  return hi;
}

/** EvalPlus `_poly(xs, x)`: sum(coeff * math.pow(x, i)). */
function poly(xs: PyValue, x: PyValue): number {
  const coeffs = asList(xs);
  if (!coeffs) throw new PyTypeError("find_zero: the input is not a list of coefficients");
  const at = toFloat(x);
  return pySumFloats(coeffs.map((c, i) => toFloat(c) * Math.pow(at, i)));
}

/** Python's `abs(a - b)` for numbers. */
function absDiff(a: PyValue, b: PyValue): number {
  if (isComplex(a) || isComplex(b)) {
    const [ar, ai] = toComplex(a);
    const [br, bi] = toComplex(b);
    return Math.hypot(ar - br, ai - bi);
  }
  const ia = isFloat(a) ? undefined : intValue(a);
  const ib = isFloat(b) ? undefined : intValue(b);
  if (ia !== undefined && ib !== undefined) {
    const d = ia - ib;
    return Number(d < 0n ? -d : d);
  }
  return Math.abs(toFloat(a) - toFloat(b));
}

/** The elements of `set(x)` as canonical keys; TypeError where Python's set() would raise. */
function setKeys(v: PyValue): Set<string> | undefined {
  let items: PyValue[];
  if (typeof v === "string") items = [...v];
  else if (Array.isArray(v)) items = v;
  else if (v !== null && typeof v === "object" && "t" in v) items = v.t;
  else if (v !== null && typeof v === "object" && "s" in v) items = v.s;
  else if (v !== null && typeof v === "object" && "z" in v) items = v.z;
  else if (v !== null && typeof v === "object" && "d" in v) items = v.d.map(([k]) => k);
  else if (v !== null && typeof v === "object" && "b" in v) items = [...Buffer.from(v.b, "base64")];
  else throw new PyTypeError(`'${pyType(v)}' object is not iterable`);
  const keys = new Set<string>();
  for (const item of items) {
    if (Array.isArray(item) || (item !== null && typeof item === "object" && ("s" in item || "d" in item))) throw new PyTypeError(`unhashable type: '${pyType(item)}'`);
    const k = canonicalKey(item);
    if (k.nan) return undefined; // NaN is never equal: the sets cannot be equal
    keys.add(k.key);
  }
  return keys;
}

function setsEqual(a: PyValue, b: PyValue): boolean {
  const ka = setKeys(a);
  const kb = setKeys(b);
  if (!ka || !kb || ka.size !== kb.size) return false;
  for (const k of ka) if (!kb.has(k)) return false;
  return true;
}

/** One input under EvalPlus's rules. Errors Python would raise inside the comparison come back as `error`. */
export function compareOutput(state: CompareState, out: PyValue, exp: ExpectedForInput): CompareOutcome {
  // Only the not-none oracle can judge an object that is not a builtin value (it asks only "is it None?"): comparing
  // anything else would mean calling the answer's own __eq__, which can say yes to everything.
  if (isOpaque(out) && state.oracle !== "not-none" && state.oracle !== "always") {
    return { ok: false, note: "only Python's builtin types are compared: an object of the answer's own type could claim to equal anything" };
  }
  try {
    return compareUnsafe(state, out, exp) ? { ok: true } : { ok: false };
  } catch (e) {
    if (e instanceof PyTypeError) return { ok: false, error: `TypeError: ${e.message}` };
    throw e;
  }
}

function compareUnsafe(state: CompareState, out: PyValue, exp: ExpectedForInput): boolean {
  const expected = exp.value;
  if (state.oracle === "find_zero") {
    if (pyEquals(out, expected)) return true;
    const args = exp.args !== undefined ? asList(exp.args) : undefined;
    if (!args || args.length === 0) throw new PyTypeError("find_zero: no coefficients");
    return Math.abs(poly(args[0]!, out)) <= state.atol;
  }
  let exact = pyEquals(out, expected);
  switch (state.oracle) {
    case "always":
      exact = true;
      break;
    case "or-zero":
      exact = exact || canonicalKey(out).key === "0";
      break;
    case "alt-reference":
      if (!exact && exp.alt !== undefined) exact = pyEquals(out, exp.alt) || absDiff(out, exp.alt) <= state.atol;
      break;
    case "set":
      exact = setsEqual(out, expected);
      break;
    case "not-none":
      exact = typeof out === "boolean" ? pyEquals(out, expected) : pyEquals(expected, out !== null);
      break;
    case "approx":
      exact = exact || allclose(out, expected, state.atol || 1e-6);
      break;
    default:
      break;
  }
  if (state.atol === 0 && isFloats(expected)) state.atol = 1e-6;
  if (!exact && state.atol !== 0) {
    if (pyType(out) !== pyType(expected)) return false;
    const le = asList(expected);
    const lo = asList(out);
    if (le && lo && le.length !== lo.length) return false;
    return allclose(out, expected, state.atol);
  }
  return exact;
}
