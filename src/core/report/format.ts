/**
 * Escaping and display helpers of the renderers. Numbers are formatted only by the product's one formatter
 * (src/shared/format.ts), re-exported here under the names the renderers use, so an export reads like the webview.
 * Model, task and skill text is untrusted everywhere.
 */
import { explainer, type ExplainerPart } from "../../shared/explain.js";
import { multiplicityNote } from "../../shared/format.js";
import type { Evaluation, SkillResult, Table } from "./schema.js";

export { intervalOf as interval, pct, plain as fmt, pValue, signed } from "../../shared/format.js";
import { intervalOf, pct, pLabel, signed } from "../../shared/format.js";

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

/** Skills in the Holm family of an evaluation (those with a Holm-adjusted p). */
export const familySize = (e: Evaluation): number => e.skills.filter((s) => s.pHolm !== null).length;

/** The note a skill's verdict needs when it depends on the family ("harmful alone (p 0.012); inconclusive among 12 skills (Holm p 0.082)"). */
export function skillMultiplicityNote(e: Evaluation, s: SkillResult): string | undefined {
  const p = e.decisionP === "exact" ? s.table.pExact : s.table.pMid;
  return multiplicityNote({ effect: s.table.effect, p, pHolm: s.pHolm, badge: s.badge }, familySize(e), e.alpha);
}

/** The facts under an evaluation's tables (the HTML export's list; the webview shows the same list). */
export function evaluationFacts(e: Evaluation): string[] {
  return [
    `${e.tasks.complete} of ${e.tasks.planned} tasks complete${e.tasks.incomplete ? `, ${e.tasks.incomplete} incomplete (left out)` : ""}`,
    // "none" is recorded when no task ran generated code (math answers are compared, not executed): say that.
    e.sandbox.isolation === "none" ? "sandbox: not used (no task ran generated code)" : `sandbox isolation: ${e.sandbox.isolation}${e.sandbox.detail ? ` (${e.sandbox.detail})` : ""}`,
    `α = ${e.alpha}, decision p: ${e.decisionP}`,
    `aggregate retrieval lift ${signed(e.lift)} (not causal)${e.metrics.selectionTerm === null ? "" : `, selection term ${signed(e.metrics.selectionTerm)}`}`,
    `noise floor ${pct(e.noise.floor)} (${e.noise.floorSource}); discordance on retrieved tasks ${pct(e.noise.observedDiscordanceRetrieved)}`,
    `runs ${e.costs.runs} of ${e.costs.fullDesignRuns} for the full design (${e.costs.modelCalls} model calls, ${e.costs.cachedCalls} cached); RAE-only expected saving ${pct(e.costs.raeOnlyExpectedSaving)}${e.costs.actualSaving === null ? "" : `, actual ${pct(e.costs.actualSaving)}`}`,
    ...(e.repeated ? [`task-level paired t over ${e.samples} samples (retrieved): Δ ${signed(e.repeated.retrieved.deltaHat)} ${intervalOf(e.repeated.retrieved.ci)}, ${pLabel(e.repeated.retrieved.p)}`] : []),
    ...(e.stopping ? [`stopping: ${e.stopping.reason ?? "no early stop"}; anytime-valid RAE interval ${intervalOf(e.stopping.cs)}`] : []),
  ];
}

/** The "?" explainer with this evaluation's numbers: the retrieved pair table, the lift decomposition, Holm on the skill closest to a verdict. */
export function explainerFor(e: Evaluation): ExplainerPart[] {
  const decide = (t: Table) => (e.decisionP === "exact" ? t.pExact : t.pMid);
  const inFamily = e.skills.filter((s) => s.pHolm !== null && decide(s.table) !== null);
  // The skill closest to a verdict (smallest own p): the one where Holm matters most to the reader.
  const example = [...inFamily].sort((a, b) => decide(a.table)! - decide(b.table)! || a.name.localeCompare(b.name))[0];
  return explainer({
    bothPass: e.retrieved.bothPass,
    rescued: e.retrieved.rescued,
    harmed: e.retrieved.harmed,
    bothFail: e.retrieved.bothFail,
    rae: e.retrieved.effect,
    lift: e.lift,
    selectionTerm: e.metrics.selectionTerm,
    nrae: e.notRetrieved?.effect ?? null,
    alpha: e.alpha,
    family: familySize(e),
    ...(example ? { holmExample: { name: example.name, p: decide(example.table), pHolm: example.pHolm } } : {}),
  });
}
