import { z } from "zod";

/**
 * Python values as plain, type-tagged JSON: the only form in which an answer's outputs (and the reference
 * outputs) reach the host. Everything here is data — no object from the answer ever has a method called while
 * trusted code is on the stack. Exact Python types are kept (a subclass or a custom object is an opaque `o`
 * value, never compared as if it were builtin), so the host can apply EvalPlus's rules (`==`, `type(a) == type(b)`,
 * tolerances, special oracles) itself.
 *
 * Encoding (written by `_sf_tag` in harness-py.ts):
 *   null → None · true/false → bool · JSON integer (|n| ≤ 2^53) → int · string → str · array → list
 *   {i: "digits"} → int beyond 2^53 · {f: "repr"} → float · {c: [re, im]} → complex (reprs)
 *   {t: [...]} → tuple · {s: [...]} → set · {z: [...]} → frozenset · {b: base64, k?} → bytes / bytearray
 *   {d: [[k, v], ...], k?} → dict (k: Counter, OrderedDict, defaultdict) · {o: "type name"} → any other object
 *   {h: sha256, n: bytes} → a digest of a huge value's canonical form (see `_sf_digest`), top level only
 */
export type PyValue =
  | null
  | boolean
  | number
  | string
  | PyValue[]
  | { i: string }
  | { f: string }
  | { c: [string, string] }
  | { t: PyValue[] }
  | { s: PyValue[] }
  | { z: PyValue[] }
  | { b: string; k?: "bytearray" }
  | { d: Array<[PyValue, PyValue]>; k?: DictKind }
  | { o: string };

export const DICT_KINDS = ["Counter", "OrderedDict", "defaultdict"] as const;
export type DictKind = (typeof DICT_KINDS)[number];

/** How deep a value may nest before it is refused (Python's own repr gives up near 1,000). */
export const MAX_DEPTH = 1000;

const FLOAT_REPR = /^-?(?:inf|nan|\d+(?:\.\d+)?(?:e[+-]\d+)?|\d+\.\d*|\.\d+)$/;
/**
 * Python's str(int): no leading zeros, no "-0"; or, for an int of more than HEX_INT_BITS bits, Python's hex(int)
 * (harness-py.ts `_sf_int_text`: str(int) is quadratic in CPython before 3.12, hex is linear). Which form an int takes
 * depends on its value alone, so equal ints always have the same text.
 */
const INT_TEXT = /^(?:0|-?[1-9]\d*|-?0x[1-9a-f][0-9a-f]*)$/;

export class ValueFormatError extends Error {}

/**
 * Checks that untrusted JSON is a well-formed tagged value, iteratively (no recursion on attacker-chosen depth),
 * and returns it typed. Anything else — unknown keys, wrong shapes, floats hiding as plain numbers, a depth past
 * MAX_DEPTH — is a ValueFormatError.
 *
 * It runs on every output line of every answer and reference, so it makes no closure and no object per item: the
 * walk keeps values and depths in two arrays, and scalar items are checked where they are found, not pushed.
 */
export function validateValue(raw: unknown): PyValue {
  const values: unknown[] = [raw];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (depth > MAX_DEPTH) throw new ValueFormatError(`nested deeper than ${MAX_DEPTH} levels`);
    if (isScalar(v)) continue;
    if (Array.isArray(v)) {
      pushItems(values, depths, v, depth + 1);
      continue;
    }
    if (typeof v !== "object") throw new ValueFormatError(`unexpected ${typeof v}`);
    const o = v as Record<string, unknown>;
    if ("i" in o) {
      onlyKeys(o, "i");
      if (typeof o.i !== "string" || !INT_TEXT.test(o.i)) throw new ValueFormatError("bad int");
    } else if ("f" in o) {
      onlyKeys(o, "f");
      if (!isFloatRepr(o.f)) throw new ValueFormatError("bad float");
    } else if ("c" in o) {
      onlyKeys(o, "c");
      const c = o.c;
      if (!Array.isArray(c) || c.length !== 2 || !isFloatRepr(c[0]) || !isFloatRepr(c[1])) throw new ValueFormatError("bad complex");
    } else if ("t" in o) {
      onlyKeys(o, "t");
      pushItems(values, depths, o.t, depth + 1);
    } else if ("s" in o) {
      onlyKeys(o, "s");
      pushItems(values, depths, o.s, depth + 1);
    } else if ("z" in o) {
      onlyKeys(o, "z");
      pushItems(values, depths, o.z, depth + 1);
    } else if ("b" in o) {
      onlyKeys(o, "b", "k");
      if (typeof o.b !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(o.b)) throw new ValueFormatError("bad bytes");
      if (o.k !== undefined && o.k !== "bytearray") throw new ValueFormatError("bad bytes kind");
    } else if ("d" in o) {
      onlyKeys(o, "d", "k");
      if (o.k !== undefined && !(DICT_KINDS as readonly unknown[]).includes(o.k)) throw new ValueFormatError("bad dict kind");
      if (!Array.isArray(o.d)) throw new ValueFormatError("bad dict");
      for (const pair of o.d) {
        if (!Array.isArray(pair) || pair.length !== 2) throw new ValueFormatError("a dict item must be a [key, value] pair");
        values.push(pair[0], pair[1]);
        depths.push(depth + 1, depth + 1);
      }
    } else if ("o" in o) {
      onlyKeys(o, "o");
      if (typeof o.o !== "string" || o.o.length > 200) throw new ValueFormatError("bad object type name");
    } else {
      throw new ValueFormatError(`unknown value tag {${Object.keys(o).slice(0, 3).join(", ")}}`);
    }
  }
  return raw as PyValue;
}

/** None, a bool, a str or an int within ±2^53: nothing inside to walk. A bare number past that range is refused. */
function isScalar(v: unknown): boolean {
  if (v === null || typeof v === "boolean" || typeof v === "string") return true;
  if (typeof v !== "number") return false;
  if (!Number.isSafeInteger(v) && !(Number.isInteger(v) && Math.abs(v) === 2 ** 53)) throw new ValueFormatError(`a bare number must be an int within ±2^53, got ${String(v)}`);
  return true;
}

/** A container's items at `depth`: scalars are checked here, the rest go on the walk's stack. */
function pushItems(values: unknown[], depths: number[], items: unknown, depth: number): void {
  if (!Array.isArray(items)) throw new ValueFormatError("a container's items must be an array");
  if (depth > MAX_DEPTH && items.length > 0) throw new ValueFormatError(`nested deeper than ${MAX_DEPTH} levels`);
  for (const item of items) {
    if (isScalar(item)) continue;
    values.push(item);
    depths.push(depth);
  }
}

/** A tagged object has its tag's keys and no others. */
function onlyKeys(o: Record<string, unknown>, a: string, b?: string): void {
  for (const k of Object.keys(o)) if (k !== a && k !== b) throw new ValueFormatError(`unexpected key "${k.slice(0, 20)}"`);
}

function isFloatRepr(x: unknown): boolean {
  return typeof x === "string" && FLOAT_REPR.test(x);
}

/** The Python type name of a tagged value, as `type(x).__name__` would give it. */
export function pyType(v: PyValue): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "int";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  if ("i" in v) return "int";
  if ("f" in v) return "float";
  if ("c" in v) return "complex";
  if ("t" in v) return "tuple";
  if ("s" in v) return "set";
  if ("z" in v) return "frozenset";
  if ("b" in v) return v.k ?? "bytes";
  if ("d" in v) return v.k ?? "dict";
  return v.o;
}

export function isOpaque(v: PyValue): v is { o: string } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "o" in v;
}

/** Python's float(repr) → double. */
export function parseFloatRepr(text: string): number {
  if (text === "inf") return Infinity;
  if (text === "-inf") return -Infinity;
  if (text === "nan" || text === "-nan") return NaN;
  return Number(text);
}

/** The exact integer value of a bool/int, or undefined for other values. */
export function intValue(v: PyValue): bigint | undefined {
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "number") return BigInt(v);
  if (v !== null && typeof v === "object" && !Array.isArray(v) && "i" in v) return v.i.startsWith("-") ? -BigInt(v.i.slice(1)) : BigInt(v.i);
  return undefined;
}

/**
 * The canonical key of a value: two values are equal under Python's `==` exactly when their keys are equal and
 * neither holds a NaN (NaN is never equal to anything; values from two processes are never the same object).
 * Numbers of every type share one key space (True == 1 == 1.0 == 1+0j); containers keep their kind (a list is
 * never equal to a tuple), dicts and sets are order-free, set == frozenset, the dict subclasses compare as dicts
 * and bytearray as bytes. Opaque objects equal nothing.
 */
export function canonicalKey(root: PyValue): { key: string; nan: boolean } {
  const state: KeyState = { nan: false, opaque: 0 };
  const key = keyOf(root, 0, state);
  return { key, nan: state.nan };
}

/** What one canonicalKey walk learns on its way: whether it met a NaN, and how many opaque objects it numbered. */
interface KeyState {
  nan: boolean;
  opaque: number;
}

function numKey(n: number, state: KeyState): string {
  if (Number.isNaN(n)) {
    state.nan = true;
    return "nan";
  }
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (Number.isInteger(n)) return BigInt(n).toString();
  return String(n);
}

function itemKeys(xs: PyValue[], depth: number, state: KeyState): string[] {
  const out = new Array<string>(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = keyOf(xs[i]!, depth, state);
  return out;
}

function keyOf(v: PyValue, depth: number, state: KeyState): string {
  if (depth > MAX_DEPTH) throw new ValueFormatError(`nested deeper than ${MAX_DEPTH} levels`);
  if (v === null) return "N";
  if (typeof v === "boolean") return v ? "1" : "0";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return `s${v.length}:${v}`;
  if (Array.isArray(v)) return `[${itemKeys(v, depth + 1, state).join(",")}]`;
  // Already canonical text (checked by validateValue): no BigInt parse of a million-digit number.
  if ("i" in v) return v.i;
  if ("f" in v) return numKey(parseFloatRepr(v.f), state);
  if ("c" in v) {
    const re = parseFloatRepr(v.c[0]);
    const im = parseFloatRepr(v.c[1]);
    return im === 0 ? numKey(re, state) : `c(${numKey(re, state)},${numKey(im, state)})`;
  }
  if ("t" in v) return `(${itemKeys(v.t, depth + 1, state).join(",")})`;
  if ("s" in v || "z" in v) return `{${[...new Set(itemKeys("s" in v ? v.s : v.z, depth + 1, state))].sort().join(",")}}`;
  if ("b" in v) return `b${v.b}`;
  if ("d" in v) {
    const pairs = new Array<string>(v.d.length);
    for (let i = 0; i < v.d.length; i++) {
      const [k, x] = v.d[i]!;
      pairs[i] = `${keyOf(k, depth + 1, state)}=${keyOf(x, depth + 1, state)}`;
    }
    return `<${pairs.sort().join(",")}>`;
  }
  state.opaque++;
  return `o${state.opaque}:${v.o}`;
}

/**
 * Python's `a == b` for two tagged values. Most comparisons are of a right answer, whose output is written exactly
 * as the expected one: one walk over both settles those (`sameTagged`). Anything else (a set or dict in another
 * order, 1 against 1.0 or True, a NaN, an opaque object, a wrong answer) is decided by the canonical keys.
 */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (sameTagged(a, b, 0)) return true;
  const ka = canonicalKey(a);
  const kb = canonicalKey(b);
  return !ka.nan && !kb.nan && ka.key === kb.key;
}

/**
 * Whether two tagged values are written identically, with no NaN and no opaque object in them. Then their canonical
 * keys are the same text and neither met a NaN, so Python's `==` holds. False only means "not shown this way";
 * nesting past MAX_DEPTH is left to the canonical keys, which refuse it.
 */
function sameTagged(a: PyValue, b: PyValue, depth: number): boolean {
  if (a === b) return a === null || typeof a !== "object";
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sameItems(a, b, depth + 1);
  if (Array.isArray(b)) return false;
  if ("i" in a) return "i" in b && a.i === b.i;
  if ("f" in a) return "f" in b && a.f === b.f && !a.f.includes("nan");
  if ("c" in a) return "c" in b && a.c[0] === b.c[0] && a.c[1] === b.c[1] && !a.c[0].includes("nan") && !a.c[1].includes("nan");
  if ("t" in a) return "t" in b && sameItems(a.t, b.t, depth + 1);
  if ("s" in a) return "s" in b && sameItems(a.s, b.s, depth + 1);
  if ("z" in a) return "z" in b && sameItems(a.z, b.z, depth + 1);
  if ("b" in a) return "b" in b && a.b === b.b && a.k === b.k;
  if ("d" in a) {
    if (!("d" in b) || a.k !== b.k || a.d.length !== b.d.length) return false;
    for (let i = 0; i < a.d.length; i++) {
      const [ka, va] = a.d[i]!;
      const [kb, vb] = b.d[i]!;
      if (!sameTagged(ka, kb, depth + 1) || !sameTagged(va, vb, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

function sameItems(a: PyValue[], b: PyValue[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameTagged(a[i]!, b[i]!, depth)) return false;
  return true;
}

/** Python's repr of a str (quote choice and escapes as CPython does them, for display). */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + quote;
}

function bytesRepr(b64: string): string {
  const bytes = Buffer.from(b64, "base64");
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = "b" + quote;
  for (const c of bytes) {
    if (c === quote.charCodeAt(0) || c === 0x5c) out += "\\" + String.fromCharCode(c);
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20 || c >= 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += String.fromCharCode(c);
  }
  return out + quote;
}

/**
 * A Python-style repr, cut at `limit` characters (with an ellipsis), for verdict reasons. Built by the host from
 * the tagged value, so what a report shows is what was compared, never text the answer chose.
 */
export function pyRepr(root: PyValue, limit = 300): string {
  let out = "";
  let cut = false;
  const put = (s: string) => {
    if (cut) return;
    if (out.length + s.length > limit) {
      out += s.slice(0, Math.max(0, limit - 1 - out.length));
      cut = true;
      return;
    }
    out += s;
  };
  const seq = (open: string, xs: PyValue[], close: string, depth: number, oneTuple = false) => {
    put(open);
    xs.forEach((x, i) => {
      if (cut) return;
      if (i > 0) put(", ");
      walk(x, depth + 1);
    });
    if (oneTuple && xs.length === 1) put(",");
    put(close);
  };
  const walk = (v: PyValue, depth: number): void => {
    if (cut) return;
    if (depth > 50) return put("...");
    if (v === null) return put("None");
    if (typeof v === "boolean") return put(v ? "True" : "False");
    if (typeof v === "number") return put(String(v));
    if (typeof v === "string") return put(pyStrRepr(v.length > limit ? v.slice(0, limit) : v));
    if (Array.isArray(v)) return seq("[", v, "]", depth);
    if ("i" in v) return put(v.i);
    if ("f" in v) return put(v.f);
    if ("c" in v) {
      // complex's repr drops ".0": (1.5+2j), 2j
      const part = (s: string) => (s.endsWith(".0") ? s.slice(0, -2) : s);
      const re = parseFloatRepr(v.c[0]);
      const im = part(v.c[1]);
      return put(re === 0 && !Object.is(re, -0) ? `${im}j` : `(${part(v.c[0])}${im.startsWith("-") ? im : `+${im}`}j)`);
    }
    if ("t" in v) return seq("(", v.t, ")", depth, true);
    if ("s" in v) return v.s.length === 0 ? put("set()") : seq("{", v.s, "}", depth);
    if ("z" in v) return v.z.length === 0 ? put("frozenset()") : seq("frozenset({", v.z, "})", depth);
    if ("b" in v) return put(v.k === "bytearray" ? `bytearray(${bytesRepr(v.b)})` : bytesRepr(v.b));
    if ("d" in v) {
      const open = v.k === "Counter" ? "Counter({" : v.k === "OrderedDict" ? "OrderedDict({" : v.k === "defaultdict" ? "defaultdict(…, {" : "{";
      put(open);
      v.d.forEach(([k, x], i) => {
        if (cut) return;
        if (i > 0) put(", ");
        walk(k, depth + 1);
        put(": ");
        walk(x, depth + 1);
      });
      return put(v.k ? "})" : "}");
    }
    return put(`<${v.o} object>`);
  };
  walk(root, 0);
  return cut ? out + "\u2026" : out;
}

/** Schema for a value already checked by validateValue (kept loose: the walk above is the real check). */
export const PyValueSchema = z.unknown().transform((v, ctx) => {
  try {
    return validateValue(v);
  } catch (e) {
    ctx.addIssue({ code: "custom", message: e instanceof Error ? e.message : String(e) });
    return z.NEVER;
  }
});
