/** Per-skill rows (one per skill × evaluation) as RFC 4180 CSV, for spreadsheets and the 17-model comparison. */
import type { Report } from "./schema.js";

const HEADER = [
  "model", "model_id", "task_set", "mode", "samples", "design", "skill", "content_hash", "n", "both_pass", "rescued", "harmed",
  "both_fail", "rae", "ci_low", "ci_high", "p_mid", "p_exact", "p_holm", "p_bh", "badge", "lift", "oae", "rae_all",
];

/** Quote every text cell; neutralise spreadsheet formulas (=, +, -, @ at the start) in text that came from outside. */
function text(s: string): string {
  const guarded = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${guarded.replace(/"/g, '""')}"`;
}
const num = (v: number | null): string => (v === null ? "" : String(v));

export function renderCsv(report: Report): string {
  const lines = [HEADER.join(",")];
  for (const e of report.evaluations) {
    for (const s of e.skills) {
      const t = s.table;
      lines.push(
        [
          text(e.model), text(e.modelId), text(e.taskSet), text(e.mode), num(e.samples), text(e.design), text(s.name), text(s.contentHash),
          num(t.n), num(t.bothPass), num(t.rescued), num(t.harmed), num(t.bothFail), num(t.effect), num(t.ci?.[0] ?? null),
          num(t.ci?.[1] ?? null), num(t.pMid), num(t.pExact), num(s.pHolm), num(s.pBH), text(s.badge), num(e.lift),
          num(e.metrics.OAE), num(e.metrics.RAE),
        ].join(","),
      );
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
