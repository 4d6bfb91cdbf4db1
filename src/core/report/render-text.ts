/** Plain-text rendering for terminals: one block per evaluation, aligned columns, no colour codes. */
import type { Evaluation, Report, Table } from "./schema.js";
import { sectionsText } from "./render-sections.js";
import { skillEvalsText } from "./render-skill-evals.js";
import { fmt, interval, pValue, pct, signed, skillMultiplicityNote, sortedSkills, subsetRows, title, verdict } from "./format.js";

function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd());
}

// Terminal text is not markup, but control characters in model/task/skill text could move the cursor or recolour
// the terminal: show them as U+FFFD.
// eslint-disable-next-line no-control-regex
const safe = (s: string): string => s.replace(/[\u0000-\u001F\u007F-\u009F]/g, "\uFFFD");

const tableCells = (t: Table | null, e: Evaluation): string[] =>
  t === null
    ? ["", "", "", "", "", "n/a", "n/a", "n/a", "n/a", "not estimable"]
    : [String(t.n), String(t.bothPass), String(t.rescued), String(t.harmed), String(t.bothFail), signed(t.effect), interval(t.ci), pValue(t.pMid), pValue(t.pExact), verdict(t, e.alpha, e.decisionP === "exact")];

function evaluationText(e: Evaluation): string {
  const out: string[] = [];
  out.push(`Skill Following — ${safe(title(e))}`);
  out.push(
    `tasks: ${e.tasks.planned} planned, ${e.tasks.complete} complete, ${e.tasks.incomplete} incomplete · sandbox: ${e.sandbox.isolation}${e.sandbox.detail ? ` (${e.sandbox.detail})` : ""} · alpha ${e.alpha} · decision p: ${e.decisionP}`,
  );
  out.push(`tables: ${e.definitions.tables}`);
  out.push(`retrieved: ${e.definitions.retrieved}`);
  out.push("");
  const head = ["subset", "n", "both pass", "rescued", "harmed", "both fail", "effect", `${Math.round((1 - e.alpha) * 100)}% CI (Tango)`, "p (mid)", "p (exact)", "verdict"];
  out.push(...columns([head, ...subsetRows(e).map((r) => [r.label, ...tableCells(r.table, e)])]));
  out.push("");
  out.push(`aggregate retrieval lift: ${signed(e.lift)} (not causal${e.metrics.selectionTerm === null ? "" : `; selection term ${signed(e.metrics.selectionTerm)}`})`);
  if (e.metrics.paradox) out.push(`PARADOX: ${e.metrics.paradoxExplanation}`);
  if (e.metrics.oaeUnderA0 !== null) out.push(`OAE under A0 (r·RAE): ${signed(e.metrics.oaeUnderA0)}`);
  if (e.repeated) {
    const r = e.repeated;
    out.push(`task-level paired t (all ${e.samples} samples): retrieved Δ ${signed(r.retrieved.deltaHat)} ${interval(r.retrieved.ci)} p ${pValue(r.retrieved.p)}` +
      (r.overall ? `; all tasks Δ ${signed(r.overall.deltaHat)} ${interval(r.overall.ci)} p ${pValue(r.overall.p)}` : ""));
  }
  out.push(`noise floor: ${pct(e.noise.floor)} (${e.noise.floorSource}); discordance on retrieved tasks: ${pct(e.noise.observedDiscordanceRetrieved)}`);
  out.push(
    `runs: ${e.costs.runs} (${e.costs.modelCalls} model calls, ${e.costs.cachedCalls} cached) of ${e.costs.fullDesignRuns} for the full design; RAE-only expected saving ${pct(e.costs.raeOnlyExpectedSaving)}` +
      (e.costs.actualSaving === null ? "" : `, actual ${pct(e.costs.actualSaving)}`),
  );
  if (e.stopping) {
    const s = e.stopping;
    out.push(`stopping: rule ${s.rule}; ${s.reason ?? "no early stop"}; decided ${s.decided ?? "no"}; E_help ${fmt(s.eHelp, 2)}, E_harm ${fmt(s.eHarm, 2)} (threshold ${fmt(s.threshold, 0)}); anytime-valid RAE interval ${interval(s.cs)}`);
  }
  out.push("");
  out.push("skills (most harmful first; badge from Holm-adjusted p):");
  const skillRows = sortedSkills(e).map((s) => [safe(s.name), String(s.table.n), String(s.table.rescued), String(s.table.harmed), signed(s.table.effect), interval(s.table.ci), pValue(s.table.pMid), pValue(s.pHolm), s.badge]);
  out.push(...columns([["skill", "n", "rescued", "harmed", "RAE", "CI", "p (mid)", "p (Holm)", "badge"], ...skillRows]));
  for (const s of sortedSkills(e)) {
    const note = skillMultiplicityNote(e, s);
    if (note) out.push(`  ${safe(s.name)}: ${note}`);
  }
  for (const s of sortedSkills(e)) {
    if (s.rescuedTasks.length + s.harmedTasks.length === 0) continue;
    out.push(`  ${safe(s.name)}: rescued ${s.rescuedTasks.map(safe).join(", ") || "none"}; harmed ${s.harmedTasks.map(safe).join(", ") || "none"}`);
  }
  out.push(...sectionsText(e, columns, safe));
  out.push(...skillEvalsText(e, columns, safe));
  if (e.tasks.incomplete > 0) out.push(`incomplete (left out): ${e.tasks.incompleteIds.map(safe).join(", ")}`);
  return out.join("\n");
}

export function renderText(report: Report): string {
  if (report.evaluations.length === 0) return "no evaluations (the run files contain no runs)";
  return report.evaluations.map(evaluationText).join("\n\n");
}
