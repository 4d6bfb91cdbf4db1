/**
 * The one number formatter of the product. The webview, the CodeLens, the diagnostics, the CLI's text and progress
 * lines, and every export (text, Markdown, HTML, JUnit) format through these functions, so the same number reads
 * the same everywhere (a unit test compares them on one fixture report):
 *   effects      two decimals with a sign: +0.50, −0.25 (a real minus, U+2212), 0.00
 *   intervals    [−0.96, −0.19], [−0.25, 0.01] (the ends carry a minus only, as in "RAE −0.12 [−0.25, 0.01]")
 *   p-values     three decimals: p 0.012, p < 0.001 (Holm p 0.082)
 *   undefined    n/a (never 0)
 * Imports nothing: it runs in the webview, the extension host and the CLI alike.
 */

export const NA = "n/a";

const finite = (x: number | null | undefined): x is number => typeof x === "number" && Number.isFinite(x);

/** An effect or difference: `+0.50`, `−0.25`, `0.00`; `n/a` when undefined. */
export function signed(x: number | null | undefined, digits = 2): string {
  if (!finite(x)) return NA;
  const r = Number(x.toFixed(digits));
  const text = Math.abs(r).toFixed(digits);
  if (r < 0) return `\u2212${text}`;
  if (r > 0) return `+${text}`;
  return text;
}

/** A number without a sign (a rate, an e-value, a threshold): `0.25`; `n/a` when undefined. */
export function plain(x: number | null | undefined, digits = 2): string {
  return finite(x) ? x.toFixed(digits) : NA;
}

/** A number with a real minus sign and no plus: `−0.25`, `0.01`. */
function end(x: number, digits: number): string {
  const r = Number(x.toFixed(digits));
  return r < 0 ? `\u2212${Math.abs(r).toFixed(digits)}` : Math.abs(r).toFixed(digits);
}

/** An interval from its two ends: `[−0.96, −0.19]`, `[−0.25, 0.01]`; `n/a` when either end is undefined. */
export function interval(low: number | null | undefined, high: number | null | undefined, digits = 2): string {
  if (!finite(low) || !finite(high)) return NA;
  return `[${end(low, digits)}, ${end(high, digits)}]`;
}

/** An interval given as a pair (the report model's `ci`). */
export function intervalOf(ci: readonly [number, number] | null | undefined, digits = 2): string {
  return ci ? interval(ci[0], ci[1], digits) : NA;
}

/** A p-value's number: `0.012`, `< 0.001`; `n/a` when undefined. */
export function pValue(p: number | null | undefined): string {
  if (!finite(p)) return NA;
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}

/** A p-value with its name: `p 0.012`, `p < 0.001`, `Holm p 0.082`. */
export function pLabel(p: number | null | undefined, name = "p"): string {
  return `${name} ${pValue(p)}`;
}

/** A share as a percentage: `12.5%`. */
export function pct(x: number | null | undefined): string {
  return finite(x) ? `${(100 * x).toFixed(1)}%` : NA;
}

/** `RAE −0.12 [−0.25, 0.01] · 3 rescued · 7 harmed`: the CodeLens and diagnostic headline of one skill. */
export function raeSummary(s: { rae: number | null; low: number | null; high: number | null; rescued: number; harmed: number }): string {
  return `RAE ${signed(s.rae)} ${interval(s.low, s.high)} \u00b7 ${s.rescued} rescued \u00b7 ${s.harmed} harmed`;
}

/** A duration as a clock: `0:07`, `1:02`, `1:02:03`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** A token count: `950 tokens`, `12.3k tokens`, `4.1M tokens`. */
export function tokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k tokens`;
  return `${(n / 1_000_000).toFixed(1)}M tokens`;
}

/** The verdict a skill gets from its own p-value, as if it were the only skill evaluated. */
export type Alone = "harmful" | "helpful" | "inconclusive";

export function verdictAlone(effect: number | null, p: number | null, alpha: number): Alone | undefined {
  if (effect === null || p === null) return undefined;
  if (p > alpha || effect === 0) return "inconclusive";
  return effect < 0 ? "harmful" : "helpful";
}

/**
 * When a skill's verdict depends on the multiplicity family, say so: `harmful alone (p 0.012); inconclusive among 12
 * skills (Holm p 0.082)`. Undefined when the verdict is the same either way (or the family is one skill).
 */
export function multiplicityNote(s: { effect: number | null; p: number | null; pHolm: number | null; badge: string }, family: number, alpha: number): string | undefined {
  const alone = verdictAlone(s.effect, s.p, alpha);
  if (alone === undefined || family < 2 || s.pHolm === null) return undefined;
  const among = s.badge === "harmful" || s.badge === "helpful" ? s.badge : "inconclusive";
  if (alone === among) return undefined;
  return `${alone} alone (${pLabel(s.p)}); ${among} among ${family} skills (${pLabel(s.pHolm, "Holm p")})`;
}

/** "1 file", "2 files": a count with its noun in the right number. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
