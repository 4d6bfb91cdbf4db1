/**
 * The per-skill sections table (issue 13) for the text, Markdown and HTML renderers: heading, line range, repaired,
 * broken, effect with its interval, Holm p and a verdict, most harmful first; then the pairs and the notes. Section
 * headings come from the skill file: escaped like every other untrusted text.
 */
import type { Evaluation, SkillResult } from "./schema.js";
import type { SectionVerdict } from "./sections-schema.js";
import { escapeHtml as h, escapeMarkdown as md, interval, pValue, signed } from "./format.js";

export const SECTION_VERDICT_LABEL: Record<SectionVerdict, string> = {
  harms: "harms",
  "harms-unadjusted": "harms (before Holm only)",
  helps: "helps",
  "helps-unadjusted": "helps (before Holm only)",
  "no-effect": "no effect",
  inconclusive: "inconclusive",
  "not-evaluated": "not evaluated",
};
const ICON: Record<SectionVerdict, string> = {
  harms: "❌",
  "harms-unadjusted": "⚠️",
  helps: "✅",
  "helps-unadjusted": "✅",
  "no-effect": "·",
  inconclusive: "➖",
  "not-evaluated": "·",
};

const ablated = (e: Evaluation): SkillResult[] => e.skills.filter((s) => s.ablation !== null);
const lines = (s: { startLine: number; endLine: number }) => (s.startLine === s.endLine ? String(s.startLine) : `${s.startLine}–${s.endLine}`);
const effectCell = (t: { effect: number | null; ci: [number, number] | null }) => `${signed(t.effect)} ${interval(t.ci)}`;

export function sectionsMarkdown(e: Evaluation): string[] {
  const out: string[] = [];
  for (const s of ablated(e)) {
    out.push("", `#### Sections of ${md(s.name)} (most harmful first)`, "");
    out.push("| section | lines | repaired | broken | effect (CI) | p (Holm) | verdict |");
    out.push("|---|---|---:|---:|---|---:|---|");
    for (const x of s.sections) {
      out.push(`| ${md(x.heading)} | ${lines(x)} | ${x.table.repaired} | ${x.table.broken} | ${effectCell(x.table)} | ${pValue(x.pHolm)} | ${ICON[x.verdict]} ${SECTION_VERDICT_LABEL[x.verdict]} |`);
    }
    if (s.sectionPairs.length > 0) {
      out.push("", "Section pairs (removed together):", "");
      out.push("| sections | repaired | broken | effect (CI) | interaction |");
      out.push("|---|---:|---:|---|---:|");
      for (const p of s.sectionPairs) out.push(`| ${md(p.headings.join(" + "))} | ${p.table.repaired} | ${p.table.broken} | ${effectCell(p.table)} | ${signed(p.interaction)} |`);
    }
    const repaired = s.sections.filter((x) => x.repairedTasks.length + x.brokenTasks.length > 0);
    if (repaired.length > 0) {
      out.push("", ...repaired.map((x) => `- **${md(x.heading)}** — removing it repaired: ${x.repairedTasks.map(md).join(", ") || "none"}; broke: ${x.brokenTasks.map(md).join(", ") || "none"}`));
    }
    out.push("", ...s.ablation!.notes.map((n) => `<sub>${md(n)}</sub>`));
  }
  return out;
}

export function sectionsHtml(e: Evaluation): string {
  return ablated(e)
    .map((s) => {
      const rows = s.sections
        .map(
          (x) =>
            `<tr><td>${h(x.heading)}</td><td class="num">${lines(x)}</td><td class="num">${x.table.repaired}</td><td class="num">${x.table.broken}</td><td class="num">${h(signed(x.table.effect))}</td><td>${h(interval(x.table.ci))}</td><td class="num">${h(pValue(x.pHolm))}</td><td>${h(SECTION_VERDICT_LABEL[x.verdict])}</td><td>${h(x.repairedTasks.join(", "))}</td><td>${h(x.brokenTasks.join(", "))}</td></tr>`,
        )
        .join("\n");
      const pairs = s.sectionPairs
        .map((p) => `<tr><td>${h(p.headings.join(" + "))}</td><td class="num">${p.table.repaired}</td><td class="num">${p.table.broken}</td><td class="num">${h(signed(p.table.effect))}</td><td>${h(interval(p.table.ci))}</td><td class="num">${h(signed(p.interaction))}</td></tr>`)
        .join("\n");
      return `<h3>Sections of <code>${h(s.name)}</code> (most harmful first)</h3>
<table><thead><tr><th>section</th><th class="num">lines</th><th class="num">repaired</th><th class="num">broken</th><th class="num">effect</th><th>CI</th><th class="num">p (Holm)</th><th>verdict</th><th>repaired tasks</th><th>broken tasks</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${pairs ? `<table><thead><tr><th>sections removed together</th><th class="num">repaired</th><th class="num">broken</th><th class="num">effect</th><th>CI</th><th class="num">interaction</th></tr></thead><tbody>\n${pairs}\n</tbody></table>` : ""}
<ul class="muted">${s.ablation!.notes.map((n) => `<li>${h(n)}</li>`).join("")}</ul>`;
    })
    .join("\n");
}

export function sectionsText(e: Evaluation, columns: (rows: string[][]) => string[], safe: (s: string) => string): string[] {
  const out: string[] = [];
  for (const s of ablated(e)) {
    out.push("", `sections of ${safe(s.name)} (most harmful first; repaired = full skill failed, without the section passed):`);
    const rows = s.sections.map((x) => [safe(x.heading), lines(x), String(x.table.n), String(x.table.repaired), String(x.table.broken), signed(x.table.effect), interval(x.table.ci), pValue(x.table.pMid), pValue(x.pHolm), SECTION_VERDICT_LABEL[x.verdict]]);
    out.push(...columns([["section", "lines", "n", "repaired", "broken", "effect", "CI", "p (mid)", "p (Holm)", "verdict"], ...rows]));
    for (const p of s.sectionPairs) out.push(`  pair ${safe(p.headings.join(" + "))}: repaired ${p.table.repaired}, broken ${p.table.broken}, effect ${signed(p.table.effect)} ${interval(p.table.ci)}, interaction ${signed(p.interaction)}`);
    for (const x of s.sections) {
      if (x.repairedTasks.length + x.brokenTasks.length > 0) out.push(`  ${safe(x.heading)}: repaired ${x.repairedTasks.map(safe).join(", ") || "none"}; broken ${x.brokenTasks.map(safe).join(", ") || "none"}`);
    }
    for (const n of s.ablation!.notes) out.push(`  note: ${n}`);
  }
  return out;
}
