/**
 * Figure 1 as static inline SVG (no script, allowed by the page's CSP): x = aggregate retrieval lift, y = RAE, one
 * point per skill plus the evaluation's own point; the two sign-disagreement quadrants (the paradox) are shaded.
 */
import type { Evaluation } from "./schema.js";
import { escapeHtml as h, signed } from "./format.js";

export function scatterSvg(e: Evaluation): string | null {
  const points = [
    ...e.skills.filter((s) => s.lift !== null && s.table.effect !== null).map((s) => ({ x: s.lift!, y: s.table.effect!, label: `${s.name}: lift ${signed(s.lift)}, RAE ${signed(s.table.effect)}, n ${s.table.n}`, all: false })),
    ...(e.lift !== null && e.metrics.RAE !== null ? [{ x: e.lift, y: e.metrics.RAE, label: `all skills: lift ${signed(e.lift)}, RAE ${signed(e.metrics.RAE)}`, all: true }] : []),
  ];
  if (points.length === 0) return null;
  const extent = Math.max(0.1, Math.ceil(Math.max(...points.map((p) => Math.max(Math.abs(p.x), Math.abs(p.y)))) * 10) / 10);
  const size = 320;
  const pad = 36;
  const sx = (x: number): number => pad + ((x + extent) / (2 * extent)) * size;
  const sy = (y: number): number => pad + ((extent - y) / (2 * extent)) * size;
  const mid = pad + size / 2;
  const dots = points
    .map((p) =>
      p.all
        ? `<rect x="${(sx(p.x) - 6).toFixed(1)}" y="${(sy(p.y) - 6).toFixed(1)}" width="12" height="12" transform="rotate(45 ${sx(p.x).toFixed(1)} ${sy(p.y).toFixed(1)})" fill="#444"><title>${h(p.label)}</title></rect>`
        : `<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="5" fill="${p.x * p.y < 0 ? "#c0392b" : "#2471a3"}" fill-opacity="0.8"><title>${h(p.label)}</title></circle>`,
    )
    .join("");
  const w = size + 2 * pad;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${w}" viewBox="0 0 ${w} ${w}" role="img" aria-label="aggregate retrieval lift against RAE">
<rect x="${mid}" y="${mid}" width="${size / 2}" height="${size / 2}" fill="#f5c6c3" fill-opacity="0.5"/><rect x="${pad}" y="${pad}" width="${size / 2}" height="${size / 2}" fill="#f5c6c3" fill-opacity="0.5"/>
<rect x="${pad}" y="${pad}" width="${size}" height="${size}" fill="none" stroke="#999"/>
<line x1="${pad}" y1="${mid}" x2="${pad + size}" y2="${mid}" stroke="#999"/><line x1="${mid}" y1="${pad}" x2="${mid}" y2="${pad + size}" stroke="#999"/>
<text x="${mid}" y="${w - 8}" text-anchor="middle" font-size="12" fill="currentColor">aggregate retrieval lift (−${extent} … +${extent})</text>
<text x="12" y="${mid}" text-anchor="middle" font-size="12" fill="currentColor" transform="rotate(-90 12 ${mid})">RAE (−${extent} … +${extent})</text>
${dots}
</svg>`;
}
