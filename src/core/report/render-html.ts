/**
 * One self-contained static HTML page. No scripts at all, so the CSP is `default-src 'none'` with inline styles
 * only; every piece of model, task and skill text (including verdict reasons, which quote model output) is
 * HTML-escaped. Safe to open from a CI artifact or attach to an issue.
 */
import type { Evaluation, Report } from "./schema.js";
import { escapeHtml as h, evaluationFacts, explainerFor, interval, pValue, signed, skillMultiplicityNote, sortedSkills, subsetRows, title, verdict } from "./format.js";
import { sectionsHtml } from "./render-sections.js";
import { scatterSvg } from "./render-svg.js";

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'";

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2.2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6rem 0 1rem}th,td{padding:.25rem .6rem;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{padding:0 .4rem;border-radius:.3rem;font-size:.85em}.helpful{background:#d9f2dd}.harmful{background:#f9d6d5}
.inconclusive{background:#eee}.not-retrieved{color:#777}.paradox{background:#fff4ce;padding:.5rem .8rem;border-left:4px solid #e0b000}
.muted{color:#595959}.note{color:#7a4b00}code{font-size:.92em}.explainer{margin:1rem 0}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#ddd}th,td{border-color:#333}.helpful{background:#23462a}.harmful{background:#5a2522}.inconclusive{background:#333}.paradox{background:#3d3618}}
`;

function noteHtml(e: Evaluation, s: Evaluation["skills"][number]): string {
  const note = skillMultiplicityNote(e, s);
  return note ? `<div class="note">${h(note)}</div>` : "";
}

/** The "?" explainer of the webview, as a static disclosure: the same words and numbers. */
function explainerHtml(e: Evaluation): string {
  const parts = explainerFor(e)
    .map((p) => `<h4>${h(p.title)}</h4>${p.paragraphs.map((x) => `<p>${h(x)}</p>`).join("")}`)
    .join("\n");
  return `<details class="explainer"><summary>What these numbers mean</summary>\n${parts}\n</details>`;
}

function evaluationHtml(e: Evaluation): string {
  const exact = e.decisionP === "exact";
  const subsets = subsetRows(e)
    .map((r) => {
      const t = r.table;
      if (t === null) return `<tr><td>${h(r.label)}</td><td class="num" colspan="8">${h(r.note ?? "n/a")}</td></tr>`;
      return `<tr><td>${h(r.label)}</td><td class="num">${t.n}</td><td class="num">${t.bothPass}</td><td class="num">${t.rescued}</td><td class="num">${t.harmed}</td><td class="num">${t.bothFail}</td><td class="num">${h(signed(t.effect))}</td><td>${h(interval(t.ci))}</td><td class="num">${h(pValue(t.pMid))}</td><td>${h(verdict(t, e.alpha, exact))}</td></tr>`;
    })
    .join("\n");
  const skills = sortedSkills(e)
    .map(
      (s) =>
        `<tr><td><code>${h(s.name)}</code>${s.description ? `<div class="muted">${h(s.description)}</div>` : ""}${noteHtml(e, s)}</td><td class="num">${s.table.n}</td><td class="num">${s.table.rescued}</td><td class="num">${s.table.harmed}</td><td class="num">${h(signed(s.table.effect))}</td><td>${h(interval(s.table.ci))}</td><td class="num">${h(pValue(s.table.pMid))}</td><td class="num">${h(pValue(s.pHolm))}</td><td><span class="badge ${h(s.badge)}">${h(s.badge)}</span></td></tr>`,
    )
    .join("\n");
  const rows = e.taskRows
    .map(
      (r) =>
        `<tr><td><code>${h(r.taskId)}</code></td><td>${h(r.outcome)}</td><td>${h(r.retrieved.map((s) => s.name).join(", ") || "none")}</td><td>${h(r.enabledReason)}</td><td>${h(r.disabledReason)}</td></tr>`,
    )
    .join("\n");
  const facts = [...evaluationFacts(e), e.definitions.tables, e.definitions.retrieved];
  const figure = scatterSvg(e);
  return `<section>
<h2>${h(title(e))}</h2>
${e.metrics.paradox ? `<p class="paradox"><strong>Paradox.</strong> ${h(e.metrics.paradoxExplanation ?? "")}</p>` : ""}
<table><thead><tr><th>subset</th><th class="num">n</th><th class="num">both pass</th><th class="num">rescued</th><th class="num">harmed</th><th class="num">both fail</th><th class="num">effect</th><th>${Math.round((1 - e.alpha) * 100)}% CI (Tango)</th><th class="num">p (mid)</th><th>verdict</th></tr></thead>
<tbody>
${subsets}
</tbody></table>
<ul>${facts.map((f) => `<li>${h(f)}</li>`).join("")}</ul>
${explainerHtml(e)}
<h3>Skills (most harmful first)</h3>
<table><thead><tr><th>skill</th><th class="num">n</th><th class="num">rescued</th><th class="num">harmed</th><th class="num">RAE</th><th>CI</th><th class="num">p (mid)</th><th class="num">p (Holm)</th><th>badge</th></tr></thead>
<tbody>
${skills}
</tbody></table>
${sectionsHtml(e)}
${figure ? `<h3>Lift against RAE</h3>\n<p class="muted">Shaded quadrants: lift and RAE disagree in sign (the paradox). Diamond: all skills together.</p>\n${figure}` : ""}
<h3>Rescued and harmed tasks</h3>
${rows ? `<table><thead><tr><th>task</th><th>outcome</th><th>skills returned</th><th>enabled verdict</th><th>disabled verdict</th></tr></thead><tbody>\n${rows}\n</tbody></table>` : "<p class=\"muted\">none</p>"}
</section>`;
}

export function renderHtml(report: Report): string {
  const body = report.evaluations.length === 0 ? "<p>No evaluations: the run files contain no runs.</p>" : report.evaluations.map(evaluationHtml).join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skill Following report</title>
<style>${STYLE}</style>
</head><body>
<h1>Skill Following report</h1>
${body}
</body></html>
`;
}
