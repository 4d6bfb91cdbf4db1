/** Renderings of a skill diff (diff.ts): text for a terminal, Markdown for a pull request, JSON for tools. */
import type { SkillDiff } from "./diff.js";
import { escapeMarkdown as md, interval, pValue, signed } from "./format.js";

const HEADLINE: Record<SkillDiff["verdict"], string> = {
  improved: "the edit improved the tasks that load the skill",
  regressed: "the edit made the tasks that load the skill worse",
  inconclusive: "no significant change on the tasks that load the skill",
  "no-change": "no task changed its outcome on the tasks that load the skill",
  "not-evaluated": "no task loaded the skill in both versions",
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function counts(d: SkillDiff): string {
  const t = d.table;
  const p = d.decisionP === "exact" ? t.pExact : t.pMid;
  return `${t.improved} improved · ${t.regressed} regressed of ${plural(t.n, "pair")} · effect ${signed(t.effect)} ${interval(t.ci)} · p ${pValue(p)}${d.decisionP === "exact" ? " (exact)" : ""}`;
}

export function renderDiffText(d: SkillDiff): string {
  const out = [
    `${d.skill}: ${HEADLINE[d.verdict]}`,
    `  before ${d.before.hash.slice(0, 12)} (${d.before.source})`,
    `  after  ${d.after.hash.slice(0, 12)} (${d.after.source})`,
    `  ${counts(d)}`,
  ];
  if (d.improvedTasks.length) out.push(`  improved: ${d.improvedTasks.join(", ")}`);
  if (d.regressedTasks.length) out.push(`  regressed: ${d.regressedTasks.join(", ")}`);
  const { gained, lost } = d.triggerChanged;
  if (gained.length || lost.length) {
    out.push(`  trigger changes (not counted above): now loaded on ${plural(gained.length, "task")}${gained.length ? ` (${gained.join(", ")})` : ""}, no longer on ${plural(lost.length, "task")}${lost.length ? ` (${lost.join(", ")})` : ""}`);
  }
  if (d.table.tooFewDiscordant && d.table.n > 0) out.push(`  too few changed pairs for any p below α = ${d.alpha}: run more tasks or samples`);
  if (d.note) out.push(`  note: ${d.note}`);
  return out.join("\n");
}

export function renderDiffMarkdown(d: SkillDiff): string {
  const t = d.table;
  const p = d.decisionP === "exact" ? t.pExact : t.pMid;
  const out = [
    `### Skill Following — what the edit to \`${md(d.skill)}\` changed`,
    "",
    `**${HEADLINE[d.verdict]}** (${md(d.model)} on ${md(d.taskSet)}; before \`${d.before.hash.slice(0, 12)}\`, after \`${d.after.hash.slice(0, 12)}\`)`,
    "",
    `| pairs | improved | regressed | effect | ${Math.round((1 - d.alpha) * 100)}% CI (Tango) | p (${d.decisionP}) |`,
    "|---:|---:|---:|---:|---|---:|",
    `| ${t.n} | ${t.improved} | ${t.regressed} | ${signed(t.effect)} | ${interval(t.ci)} | ${pValue(p)} |`,
    "",
  ];
  if (d.improvedTasks.length) out.push(`Improved: ${d.improvedTasks.map(md).join(", ")}`, "");
  if (d.regressedTasks.length) out.push(`Regressed: ${d.regressedTasks.map(md).join(", ")}`, "");
  const { gained, lost } = d.triggerChanged;
  if (gained.length || lost.length) out.push(`Trigger changes, not counted above: now loaded on ${gained.map(md).join(", ") || "none"}; no longer loaded on ${lost.map(md).join(", ") || "none"}.`, "");
  if (d.note) out.push(`_${md(d.note)}_`, "");
  return out.join("\n");
}

export function renderDiffJson(d: SkillDiff): string {
  return JSON.stringify({ diff: d }, null, 2);
}
