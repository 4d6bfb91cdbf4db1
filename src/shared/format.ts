/**
 * Number formatting shared by the CodeLens, diagnostics and the webview, so the same RAE reads the same everywhere:
 * two decimals, a real minus sign (U+2212), `n/a` for undefined quantities (never 0).
 */
export function signed(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "n/a";
  const r = Number(x.toFixed(digits));
  const text = Math.abs(r).toFixed(digits);
  if (r < 0) return `\u2212${text}`;
  return text;
}

export function interval(low: number | null | undefined, high: number | null | undefined, digits = 2): string {
  if (low === null || low === undefined || high === null || high === undefined) return "[n/a]";
  return `[${signed(low, digits)}, ${signed(high, digits)}]`;
}

export function pValue(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return "p n/a";
  if (p < 0.001) return "p < 0.001";
  return `p = ${p.toFixed(3)}`;
}

/** `RAE −0.12 [−0.25, 0.01] · 3 rescued · 7 harmed` — the CodeLens and diagnostic headline of one skill. */
export function raeSummary(s: { rae: number | null; low: number | null; high: number | null; rescued: number; harmed: number }): string {
  return `RAE ${signed(s.rae)} ${interval(s.low, s.high)} \u00b7 ${s.rescued} rescued \u00b7 ${s.harmed} harmed`;
}
