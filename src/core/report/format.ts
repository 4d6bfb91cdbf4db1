/** Number formatting and escaping shared by the renderers. Model, task and skill text is untrusted everywhere. */
import type { Evaluation, Interval, SkillResult } from "./schema.js";

export const fmt = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined ? "n/a" : x.toFixed(digits));
export const signed = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined ? "n/a" : `${x > 0 ? "+" : x < 0 ? "" : "±"}${x.toFixed(digits)}`);
export const interval = (ci: Interval | null | undefined, digits = 3): string => (ci ? `[${signed(ci[0], digits)}, ${signed(ci[1], digits)}]` : "n/a");
export function pValue(p: number | null | undefined): string {
  if (p === null || p === undefined) return "n/a";
  if (p < 0.0001) return "<0.0001";
  return p.toFixed(4);
}
export const pct = (x: number | null | undefined): string => (x === null || x === undefined ? "n/a" : `${(100 * x).toFixed(1)}%`);

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" })[c]!);
}

/** XML 1.0 text/attribute escaping; characters XML cannot carry at all are replaced with U+FFFD. */
export function escapeXml(s: string): string {
  return s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD")
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/**
 * Markdown cell text in one pass: &, <, >, quotes become entities (GitHub renders raw HTML, so `<script>` must not
 * survive) and markdown punctuation is backslash-escaped; a second pass would corrupt the entities' `#` and `;`.
 */
export function escapeMarkdown(s: string): string {
  return s.replace(/\r?\n/g, " ").replace(/[&<>"'\\`*_[\]()#|!~{}+-]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : c === "'" ? "&#39;" : `\\${c}`,
  );
}

/** Skills for display: most harmful first (lowest RAE), never-retrieved last. */
export function sortedSkills(e: Evaluation): SkillResult[] {
  return [...e.skills].sort((a, b) => {
    const x = a.table.effect;
    const y = b.table.effect;
    if (x === null && y === null) return a.name.localeCompare(b.name);
    if (x === null) return 1;
    if (y === null) return -1;
    return x - y || a.name.localeCompare(b.name);
  });
}

export const title = (e: Evaluation): string =>
  `${e.model} on ${e.taskSet} (${e.mode}, ${e.samples} sample${e.samples === 1 ? "" : "s"}, ${e.design} design)`;

/** One-line verdict for a table: what a reader should take away. */
export function verdict(
  t: { effect: number | null; pMid: number | null; pExact: number | null; tooFewDiscordant: boolean; n: number; rescued: number; harmed: number },
  alpha: number,
  exact: boolean,
): string {
  if (t.n === 0 || t.effect === null) return "n/a (no tasks)";
  if (t.rescued + t.harmed === 0) return "no discordant pairs";
  const p = exact ? t.pExact : t.pMid;
  if (p !== null && p < alpha) return t.effect > 0 ? "helps" : "hurts";
  if (t.tooFewDiscordant) return "too few discordant pairs";
  return "inconclusive";
}

export function subsetRows(e: Evaluation): Array<{ label: string; table: Evaluation["retrieved"] | null; note?: string }> {
  return [
    { label: "all tasks (OAE)", table: e.overall, ...(e.overall === null ? { note: "not estimable (RAE-only design)" } : {}) },
    { label: "retrieved (RAE)", table: e.retrieved },
    {
      label: e.design === "rae-only" && e.notRetrieved !== null ? "not retrieved, control sample (NRAE; A0 test)" : "not retrieved (NRAE)",
      table: e.notRetrieved,
      ...(e.notRetrieved === null ? { note: "not estimable (RAE-only design)" } : {}),
    },
  ];
}
