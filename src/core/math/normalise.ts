import { closedFormsEqual } from "./closed-form.js";
import { evaluateRational, rationalsEqual } from "./rational.js";

/**
 * Answer normalisation and equivalence for math-answer tasks (GSM8K, MATH-500). Two answers are equal when
 * their normalised strings match, or both evaluate to the same exact rational, or (for tuples, intervals,
 * sets, lists and matrices) element by element. Constants with roots and π are compared by value
 * (closed-form.ts: `\sqrt{8}` equals `2\sqrt{2}`, `\frac{5}{\sqrt{2}}` equals `\frac{5\sqrt{2}}{2}`), but never
 * against a decimal approximation; expressions in the same single-letter variables are compared at fixed test points
 * (`(x+1)^2` equals `x^2+2x+1`).
 *
 * Deliberate choices: no rounding tolerance (`0.333` is not `\frac{1}{3}`); `50\%` equals `50`, not `0.5`;
 * degrees are dropped (`30^\circ` = `30`); a bare comma list and `\{…\}` are unordered, `(…)` and `[…)` are
 * ordered and keep their bracket kinds; `1,234` is one number but `1, 234` is a list; `x = 5` equals `5`.
 */

const TEXT_COMMANDS = /\\(?:text|textbf|textit|textrm|textsf|texttt|textnormal|mathrm|mathbf|mathit|mathsf|mathtt|mbox|operatorname)\s*\{([^{}]*)\}/g;

/** Unit and filler words dropped from the end of an answer that still has a number left: `10 cm`, `18 dollars`. */
const UNIT_WORDS = [
  "square units", "sq units", "cubic units", "units", "unit",
  "dollars", "dollar", "cents", "cent", "euros",
  "centimeters", "centimetres", "cm", "millimeters", "mm", "kilometers", "km", "meters", "metres",
  "inches", "inch", "feet", "foot", "ft", "yards", "yard", "miles", "mile", "mph",
  "hours", "hour", "hrs", "hr", "minutes", "minute", "mins", "min", "seconds", "second", "secs", "sec",
  "days", "day", "weeks", "week", "months", "month", "years", "year",
  "degrees", "degree", "points", "point", "percent", "people", "students", "times",
  "pounds", "pound", "lbs", "ounces", "oz", "grams", "gram", "kg", "liters", "litres", "gallons", "gallon",
];
const UNIT_TAIL = new RegExp(`\\s*(?:${UNIT_WORDS.join("|").replace(/ /g, "\\s+")})(?:\\s*\\^\\s*\\{?[23]\\}?|[23²³])?\\.?\\s*$`, "i");

/** Final answers longer than this are compared verbatim only: no real answer is that long, and it bounds the work. */
export const MAX_ANSWER_CHARS = 4000;

const trimDots = (x: string) => {
  let end = x.length;
  while (end > 0 && x[end - 1] === ".") end--;
  return x.slice(0, end);
};

/**
 * Normal forms already computed. A task's reference is normalised at every grade of either condition (twice per
 * grade: the empty-reference check and the comparison), so short strings are kept; the map is emptied when full.
 */
const normalised = new Map<string, string>();
const MEMO_ENTRIES = 4096;
const MEMO_CHARS = 256;

/** The normalised string form of one answer (no structure splitting). Idempotent. */
export function normaliseMathAnswer(input: string): string {
  if (input.length > MEMO_CHARS) return normaliseUncached(input);
  let out = normalised.get(input);
  if (out === undefined) {
    out = normaliseUncached(input);
    if (normalised.size >= MEMO_ENTRIES) normalised.clear();
    normalised.set(input, out);
  }
  return out;
}

function normaliseUncached(input: string): string {
  let s = input.trim();
  // `10,\!080` / `10{,}080` mark a thousands separator explicitly, even with spaces around it.
  const markedThousands = /,\s*\\!|\{,\}/.test(s);
  s = s
    .replace(/[−–]/g, "-")
    .replace(/π/g, "\\pi ")
    .replace(/√/g, "\\sqrt")
    .replace(/∞/g, "\\infty ")
    .replace(/°/g, "^\\circ")
    .replace(/\\\$/g, "")
    .replace(/\$/g, "")
    .replace(/\\(?:displaystyle|textstyle|scriptstyle)(?![A-Za-z])/g, "")
    .replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|bigg|Bigg)\s*\.(?![0-9])/g, "")
    .replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|bigg|Bigg)(?![A-Za-z])/g, "")
    .replace(/\\(?:q?quad)(?![A-Za-z])/g, " ")
    // `\!` is a negative thin space, used inside numbers (`10,\!080`): it must vanish, not become a gap.
    .replace(/(?<!\\)\\!/g, "")
    .replace(/\{,\}/g, ",")
    // Not after a backslash: `\\ ` is a matrix row break followed by a space.
    .replace(/(?<!\\)\\[,;: ]/g, " ")
    .replace(/~/g, " ")
    .replace(/\\[dt]frac(?![A-Za-z])/g, "\\frac")
    .replace(/\\[dt]binom(?![A-Za-z])/g, "\\binom")
    .replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])|\\circ(?![A-Za-z])|\\degree(?![A-Za-z])/g, "")
    .replace(/\\%|%/g, "")
    .replace(/\\le(?![A-Za-z])/g, "\\leq")
    .replace(/\\ge(?![A-Za-z])/g, "\\geq")
    .replace(/\\(?:cdot|times)(?![A-Za-z])/g, "*");
  // Unwrap \text{…} and friends, innermost first, so `\text{\textbf{x}}` works.
  for (let prev = ""; prev !== s; ) {
    prev = s;
    s = s.replace(TEXT_COMMANDS, " $1 ");
  }
  s = trimDots(s.trim()).trim();
  for (let prev = ""; prev !== s; ) {
    prev = s;
    const stripped = s.replace(UNIT_TAIL, "");
    if (/\d/.test(stripped) && stripped.trim() !== "") s = stripped.trim();
  }
  // `5 apples`, `\frac{1}{2} cup`: a number followed only by words (two letters or more, so `5 x` stays algebra).
  const counted = /^(\S*\d\S*)(?:\s+[A-Za-z]{2,}[.,]?)+$/.exec(s);
  if (counted) s = counted[1] as string;
  // Thousands commas, only when the whole answer is one such number (`1,000`, not the list `1, 000`).
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, "");
  // A leading `x =` / `\theta =` / `x \in` names the variable; the value is the answer.
  const assign = /^(?:[A-Za-z](?:_\{?\w+\}?)?|\\[A-Za-z]+)\s*(?:=|\\in(?![A-Za-z]))\s*(.+)$/s.exec(s);
  if (assign && !(assign[1] as string).includes("=")) s = assign[1] as string;
  s = s.replace(/\s+/g, "");
  if (markedThousands && /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, "");
  s = fixFracsAndRoots(s)
    .replace(/\^\{(\w)\}/g, "^$1")
    .replace(/_\{(\w)\}/g, "_$1")
    .replace(/(\d)\*(?=[A-Za-z\\(])/g, "$1")
    .replace(/^\+/, "")
    .replace(/^\((\w)\)$/, "$1")
    .replace(/(^|[^\d])\.(\d)/g, "$10.$2");
  return trimDots(s);
}

/** `\frac12` -> `\frac{1}{2}`, `\sqrt3` -> `\sqrt{3}` (the shorthand MATH solutions use). */
function fixFracsAndRoots(s: string): string {
  return s
    .replace(/\\frac(\d)(\d)/g, "\\frac{$1}{$2}")
    .replace(/\\frac(\d|[A-Za-z])\{/g, "\\frac{$1}{")
    .replace(/\\frac\{([^{}]*)\}(\d|[A-Za-z])/g, "\\frac{$1}{$2}")
    // As TeX reads it: `\sqrt13` is \sqrt{1}3, not \sqrt{13}.
    .replace(/\\sqrt(\d|[A-Za-z])(?![A-Za-z])/g, "\\sqrt{$1}");
}

/** String form for symbolic comparison: `\frac{a}{b}` -> `a/b`, parenthesised unless atomic. */
function slashForm(s: string): string {
  let out = s;
  for (let prev = ""; prev !== out; ) {
    prev = out;
    out = out.replace(/\\frac\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}/g, (_m, a: string, b: string) => `${atom(a)}/${atom(b)}`);
  }
  return out;
}

const atom = (x: string) => (/^-?(?:[A-Za-z0-9.]+|\\[A-Za-z]+(?:\{[^{}]*\})?|\\[A-Za-z]+\d*)$/.test(x) ? x : `(${x})`);

type Shape =
  | { kind: "atom"; s: string }
  | { kind: "tuple"; open: string; close: string; items: string[] }
  | { kind: "set"; items: string[] }
  | { kind: "list"; items: string[] }
  | { kind: "union"; parts: string[] }
  | { kind: "matrix"; rows: string[][] };

/** Splits at top-level occurrences of `sep` (outside (), [], {}, \{ \}). */
function splitTop(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "\\" && (s[i + 1] === "{" || s[i + 1] === "}")) {
      depth += s[i + 1] === "{" ? 1 : -1;
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0 && s.startsWith(sep, i)) {
      out.push(s.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** True when the bracket opened at 0 closes at the very end (so `(1,2)-(3,4)` is not one tuple). */
function wrapsWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return depth === 0;
}

function shapeOf(s: string): Shape {
  const matrix = /^\\begin\{([pbvBV]?matrix|array)\}(?:\{[^{}]*\})?(.*)\\end\{\1\}$/s.exec(s);
  if (matrix) return { kind: "matrix", rows: (matrix[2] as string).split("\\\\").filter((r) => r !== "").map((r) => r.split("&")) };
  const union = splitTop(s, "\\cup");
  if (union.length > 1) return { kind: "union", parts: union };
  if (s.startsWith("\\{") && s.endsWith("\\}")) return { kind: "set", items: splitTop(s.slice(2, -2), ",") };
  if (/^[([]/.test(s) && /[)\]]$/.test(s) && wrapsWhole(s)) {
    const items = splitTop(s.slice(1, -1), ",");
    if (items.length > 1) return { kind: "tuple", open: s[0] as string, close: s[s.length - 1] as string, items };
  }
  const list = splitTop(s, ",");
  if (list.length > 1) return { kind: "list", items: list };
  return { kind: "atom", s };
}

function atomsEqual(a: string, b: string): boolean {
  if (a === b) return true;
  const x = evaluateRational(a);
  const y = evaluateRational(b);
  if (x && y) return rationalsEqual(x, y);
  // One side a plain number and the other not: no string rule could make them equal honestly; only the value of a
  // closed form can (`\sqrt[3]{27}` is 3).
  if (!x && !y) {
    if (slashForm(a) === slashForm(b)) return true;
    if (/^[A-Za-z ]+$/.test(a) && a.toLowerCase() === b.toLowerCase()) return true;
  }
  return closedFormsEqual(a, b);
}

/** Order-free comparison for sets and bare lists of solutions (`3, 5, 7` = `7, 5, 3`). */
function multisetEqual(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const left = [...b];
  for (const x of a) {
    const k = left.findIndex((y) => shapesEqual(x, y));
    if (k < 0) return false;
    left.splice(k, 1);
  }
  return true;
}

function shapesEqual(a: string, b: string): boolean {
  const x = shapeOf(a);
  const y = shapeOf(b);
  if (x.kind === "atom" && y.kind === "atom") return atomsEqual(x.s, y.s);
  // `\{1, 2\}` and `1, 2` both list solutions without order; a tuple `(1, 2)` is ordered and stays apart.
  const unordered = (k: Shape["kind"]) => k === "set" || k === "list";
  if (unordered(x.kind) && unordered(y.kind)) return multisetEqual((x as { items: string[] }).items, (y as { items: string[] }).items);
  if (x.kind !== y.kind) return false;
  switch (x.kind) {
    case "tuple": {
      const t = y as typeof x;
      return x.open === t.open && x.close === t.close && x.items.length === t.items.length && x.items.every((v, i) => shapesEqual(v, t.items[i] as string));
    }
    case "set":
    case "list":
      return multisetEqual(x.items, (y as typeof x).items);
    case "union": {
      const u = y as typeof x;
      return x.parts.length === u.parts.length && x.parts.every((p, i) => shapesEqual(p, u.parts[i] as string));
    }
    case "matrix": {
      const m = y as typeof x;
      return x.rows.length === m.rows.length && x.rows.every((r, i) => r.length === (m.rows[i] as string[]).length && r.every((c, j) => shapesEqual(c, (m.rows[i] as string[])[j] as string)));
    }
    default:
      return false;
  }
}

/** True when two final answers are the same mathematical answer (see the module comment for the rules). */
export function mathAnswersEqual(a: string, b: string): boolean {
  if (a.length > MAX_ANSWER_CHARS || b.length > MAX_ANSWER_CHARS) return a.trim() !== "" && a.trim() === b.trim();
  const x = normaliseMathAnswer(a);
  const y = normaliseMathAnswer(b);
  if (x === "" || y === "") return false;
  return x === y || shapesEqual(x, y);
}
