/** Markdown for a PR comment (GitHub-flavoured). Every piece of model/task/skill text goes through escapeMarkdown. */
import type { Evaluation, Report } from "./schema.js";
import { sectionsMarkdown } from "./render-sections.js";
import { skillEvalsMarkdown } from "./render-skill-evals.js";
import { escapeMarkdown as md, interval, pValue, pct, signed, skillMultiplicityNote, sortedSkills, subsetRows, title, verdict } from "./format.js";

const BADGE: Record<string, string> = { helpful: "✅ helpful", harmful: "❌ harmful", inconclusive: "➖ inconclusive", "not-retrieved": "· not retrieved" };

function evaluationMarkdown(e: Evaluation): string {
  const out: string[] = [];
  out.push(`### Skill Following — ${md(title(e))}`);
  out.push("");
  out.push(`${e.tasks.complete} of ${e.tasks.planned} tasks complete${e.tasks.incomplete ? ` (${e.tasks.incomplete} incomplete, left out)` : ""} · sandbox: ${md(e.sandbox.isolation)}${e.sandbox.detail ? ` (${md(e.sandbox.detail)})` : ""} · α = ${e.alpha} · decision p: ${e.decisionP}`);
  out.push("");
  out.push(`| subset | n | rescued | harmed | effect | ${Math.round((1 - e.alpha) * 100)}% CI (Tango) | p (mid) | verdict |`);
  out.push("|---|---:|---:|---:|---:|---|---:|---|");
  for (const r of subsetRows(e)) {
    const t = r.table;
    out.push(t === null ? `| ${r.label} | | | | n/a | n/a | n/a | ${r.note ?? ""} |` : `| ${r.label} | ${t.n} | ${t.rescued} | ${t.harmed} | ${signed(t.effect)} | ${interval(t.ci)} | ${pValue(t.pMid)} | ${verdict(t, e.alpha, e.decisionP === "exact")} |`);
  }
  out.push("");
  out.push(`Aggregate retrieval lift ${signed(e.lift)} (not causal).${e.metrics.paradox ? ` **Paradox:** ${md(e.metrics.paradoxExplanation ?? "")}` : ""}`);
  if (e.repeated) out.push(`\nTask-level paired t over ${e.samples} samples (retrieved): Δ ${signed(e.repeated.retrieved.deltaHat)} ${interval(e.repeated.retrieved.ci)}, p ${pValue(e.repeated.retrieved.p)}.`);
  if (e.stopping) out.push(`\nStopping: ${md(e.stopping.reason ?? "no early stop")}; anytime-valid RAE interval ${interval(e.stopping.cs)}.`);
  if (e.costs.actualSaving !== null) out.push(`\nRAE-only design: saved ${pct(e.costs.actualSaving)} of runs (expected ${pct(e.costs.raeOnlyExpectedSaving)}).`);
  out.push("");
  out.push("| skill | n | rescued | harmed | RAE | CI | p (Holm) | badge |");
  out.push("|---|---:|---:|---:|---:|---|---:|---|");
  for (const s of sortedSkills(e)) {
    out.push(`| ${md(s.name)} | ${s.table.n} | ${s.table.rescued} | ${s.table.harmed} | ${signed(s.table.effect)} | ${interval(s.table.ci)} | ${pValue(s.pHolm)} | ${BADGE[s.badge]} |`);
  }
  const notes = sortedSkills(e).flatMap((s) => {
    const note = skillMultiplicityNote(e, s);
    return note ? [`- **${md(s.name)}**: ${note}`] : [];
  });
  if (notes.length > 0) out.push("", ...notes);
  out.push(...sectionsMarkdown(e));
  out.push(...skillEvalsMarkdown(e));
  const harmedSkills = sortedSkills(e).filter((s) => s.harmedTasks.length + s.rescuedTasks.length > 0);
  if (harmedSkills.length > 0) {
    out.push("");
    out.push("<details><summary>Rescued and harmed tasks</summary>");
    out.push("");
    for (const s of harmedSkills) {
      out.push(`- **${md(s.name)}** — harmed: ${s.harmedTasks.map(md).join(", ") || "none"}; rescued: ${s.rescuedTasks.map(md).join(", ") || "none"}`);
    }
    out.push("");
    out.push("</details>");
  }
  out.push("");
  out.push(`<sub>${md(e.definitions.tables)} ${md(e.definitions.retrieved)}</sub>`);
  return out.join("\n");
}

export function renderMarkdown(report: Report): string {
  if (report.evaluations.length === 0) return "_No evaluations: the run files contain no runs._";
  return report.evaluations.map(evaluationMarkdown).join("\n\n---\n\n");
}
