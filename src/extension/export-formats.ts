import type { ReportView } from "../shared/report-view.js";
import { interval, pValue, signed } from "../shared/format.js";

/**
 * Export Report renderers over the report view (the same numbers the panel shows). The HTML export is static:
 * no script at all, every value escaped, so a report that contains hostile model output stays inert when shared.
 */
export type ExportFormat = "html" | "csv" | "json" | "markdown";

export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = { html: "html", csv: "csv", json: "json", markdown: "md" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function csvCell(v: string | number | null): string {
  if (v === null) return "";
  const s = String(v);
  // Leading = + - @ would be formulas in a spreadsheet; quote-and-prefix them.
  const safe = /^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function renderCsv(r: ReportView): string {
  const header = ["skill", "model", "n", "rescued", "harmed", "rae", "rae_low", "rae_high", "p_mid", "p_holm", "lift", "flag"];
  const rows = r.skills.map((s) => [s.name, s.model ?? r.runs[0]?.model ?? "", s.n, s.rescued, s.harmed, s.rae.value, s.rae.low, s.rae.high, s.rae.p, s.pHolm, s.lift, s.flag]);
  return [header, ...rows].map((row) => row.map((c) => csvCell(c as string | number | null)).join(",")).join("\n") + "\n";
}

export function renderJson(r: ReportView): string {
  return JSON.stringify(r, null, 2) + "\n";
}

function mdCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ").replace(/[<>]/g, (c) => (c === "<" ? "&lt;" : "&gt;"));
}

export function renderMarkdown(r: ReportView): string {
  const h = r.headline;
  const lines = [
    `# ${mdCell(r.title)}`,
    "",
    `- RAE (where retrieved): **${signed(h.rae.value)}** ${interval(h.rae.low, h.rae.high)}, ${pValue(h.rae.p)}`,
    `- OAE (all tasks): ${signed(h.oae.value)} ${interval(h.oae.low, h.oae.high)}, ${pValue(h.oae.p)}`,
    `- Aggregate retrieval lift: ${signed(h.lift)}`,
    `- Retrieved on ${h.nRetrieved} of ${h.n} tasks; ${h.rescued} rescued, ${h.harmed} harmed where retrieved`,
    ...(h.paradox && h.paradoxText ? [`- **Paradox:** ${mdCell(h.paradoxText)}`] : []),
    ...r.notes.map((n) => `- Note: ${mdCell(n)}`),
    "",
    "| Skill | n | Rescued | Harmed | RAE | Interval | Holm p | Verdict |",
    "|---|---:|---:|---:|---:|---|---:|---|",
    ...r.skills.map(
      (s) =>
        `| ${mdCell(s.name)}${s.model ? ` (${mdCell(s.model)})` : ""} | ${s.n} | ${s.rescued} | ${s.harmed} | ${signed(s.rae.value)} | ${interval(s.rae.low, s.rae.high)} | ${s.pHolm === null ? "n/a" : s.pHolm.toFixed(3)} | ${s.flag} |`,
    ),
    "",
    `## Harmed tasks (${r.harmed.length})`,
    "",
    ...r.harmed.map((t) => `- \`${mdCell(t.taskId)}\`${t.skills.length ? ` (${mdCell(t.skills.join(", "))})` : ""}: ${mdCell(t.reason)}`),
    "",
    `## Rescued tasks (${r.rescued.length})`,
    "",
    ...r.rescued.map((t) => `- \`${mdCell(t.taskId)}\`${t.skills.length ? ` (${mdCell(t.skills.join(", "))})` : ""}: ${mdCell(t.reason)}`),
    "",
  ];
  return lines.join("\n");
}

export function renderHtml(r: ReportView): string {
  const e = escapeHtml;
  const h = r.headline;
  const tasks = (list: ReportView["harmed"]) =>
    list.map((t) => `<li><code>${e(t.taskId)}</code> ${e(t.skills.join(", "))}<br><small>${e(t.reason)}</small></li>`).join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${e(r.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ccc;padding:4px 8px;text-align:left}.num{text-align:right}</style>
</head><body>
<h1>${e(r.title)}</h1>
<ul>
<li>RAE (where retrieved): <strong>${e(signed(h.rae.value))}</strong> ${e(interval(h.rae.low, h.rae.high))}, ${e(pValue(h.rae.p))}</li>
<li>OAE (all tasks): ${e(signed(h.oae.value))} ${e(interval(h.oae.low, h.oae.high))}, ${e(pValue(h.oae.p))}</li>
<li>Aggregate retrieval lift: ${e(signed(h.lift))}</li>
<li>Retrieved on ${h.nRetrieved} of ${h.n} tasks; ${h.rescued} rescued, ${h.harmed} harmed where retrieved</li>
${h.paradox && h.paradoxText ? `<li><strong>Paradox:</strong> ${e(h.paradoxText)}</li>` : ""}
${r.notes.map((n) => `<li>${e(n)}</li>`).join("\n")}
</ul>
<table><thead><tr><th>Skill</th><th class="num">n</th><th class="num">Rescued</th><th class="num">Harmed</th><th class="num">RAE</th><th>Interval</th><th class="num">Holm p</th><th>Verdict</th></tr></thead><tbody>
${r.skills
  .map(
    (s) =>
      `<tr><td>${e(s.name)}${s.model ? ` (${e(s.model)})` : ""}</td><td class="num">${s.n}</td><td class="num">${s.rescued}</td><td class="num">${s.harmed}</td><td class="num">${e(signed(s.rae.value))}</td><td>${e(interval(s.rae.low, s.rae.high))}</td><td class="num">${s.pHolm === null ? "n/a" : s.pHolm.toFixed(3)}</td><td>${e(s.flag)}</td></tr>`,
  )
  .join("\n")}
</tbody></table>
<h2>Harmed tasks (${r.harmed.length})</h2><ul>${tasks(r.harmed)}</ul>
<h2>Rescued tasks (${r.rescued.length})</h2><ul>${tasks(r.rescued)}</ul>
</body></html>
`;
}

export function renderExport(r: ReportView, format: ExportFormat): string {
  switch (format) {
    case "html":
      return renderHtml(r);
    case "csv":
      return renderCsv(r);
    case "json":
      return renderJson(r);
    case "markdown":
      return renderMarkdown(r);
  }
}
