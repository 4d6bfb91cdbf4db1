import { Chart, LinearScale, PointElement, ScatterController, Tooltip, Legend, type ChartConfiguration, type Plugin } from "chart.js";
import type { ScatterPoint } from "../shared/report-view.js";
import { interval, signed } from "../shared/format.js";

Chart.register(ScatterController, LinearScale, PointElement, Tooltip, Legend);

/**
 * The RAE-vs-lift figure. Colours are read from the --vscode-* variables each time it is drawn, and main.ts redraws
 * it when the theme changes, so axes stay readable after a live switch. The disagreement quadrants are hatched and
 * bordered (a tint alone vanishes in high-contrast themes), the axes are fixed to [−1, 1] (both quantities are
 * differences of two rates), and every point is labelled and selects its table row when clicked.
 */

function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

interface Datum {
  x: number;
  y: number;
  low: number | null;
  high: number | null;
  label: string;
}

/** What the figure drew with, on the canvas's data-* attributes: the tests and screenshots read them. */
export interface Drawn {
  tickColor: string;
  quadrantColor: string;
}

const clamp = (v: number) => Math.max(-1, Math.min(1, v));

/** A diagonal hatch tile in the given colour, for the disagreement quadrants. */
function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  const tile = document.createElement("canvas");
  tile.width = 8;
  tile.height = 8;
  const t = tile.getContext("2d");
  if (!t) return color;
  t.strokeStyle = color;
  t.lineWidth = 1.5;
  t.beginPath();
  t.moveTo(0, 8);
  t.lineTo(8, 0);
  t.moveTo(-2, 2);
  t.lineTo(2, -2);
  t.moveTo(6, 10);
  t.lineTo(10, 6);
  t.stroke();
  return ctx.createPattern(tile, "repeat") ?? color;
}

function quadrantsPlugin(color: string, border: string): Plugin<"scatter"> {
  return {
    id: "sfQuadrants",
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea: a, scales } = chart;
      const cx = scales.x!.getPixelForValue(0);
      const cy = scales.y!.getPixelForValue(0);
      ctx.save();
      // lift > 0 with RAE < 0 (bottom right), and lift < 0 with RAE > 0 (top left): the paradox.
      const quads: [number, number, number, number][] = [
        [cx, cy, a.right - cx, a.bottom - cy],
        [a.left, a.top, cx - a.left, cy - a.top],
      ];
      ctx.globalAlpha = 0.1;
      ctx.fillStyle = color;
      for (const q of quads) ctx.fillRect(...q);
      ctx.globalAlpha = 0.55;
      ctx.fillStyle = hatch(ctx, color);
      for (const q of quads) ctx.fillRect(...q);
      ctx.globalAlpha = 1;
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1;
      ctx.strokeStyle = border;
      for (const q of quads) ctx.strokeRect(q[0] + 0.5, q[1] + 0.5, q[2] - 1, q[3] - 1);
      ctx.setLineDash([]);
      ctx.strokeStyle = themeColor("--vscode-editorRuler-foreground", "#888");
      ctx.beginPath();
      ctx.moveTo(a.left, cy);
      ctx.lineTo(a.right, cy);
      ctx.moveTo(cx, a.top);
      ctx.lineTo(cx, a.bottom);
      ctx.stroke();
      ctx.restore();
    },
  };
}

/** RAE interval bars through each point, and each point's label. */
function barsAndLabels(barColor: string, textColor: string, font: string, labelled: boolean): Plugin<"scatter"> {
  return {
    id: "sfBarsLabels",
    afterDatasetsDraw(chart) {
      const { ctx, scales, chartArea: a } = chart;
      ctx.save();
      ctx.strokeStyle = barColor;
      ctx.lineWidth = 1.5;
      ctx.fillStyle = textColor;
      ctx.font = font;
      ctx.textBaseline = "middle";
      for (const ds of chart.data.datasets) {
        for (const raw of ds.data as unknown as Datum[]) {
          const x = scales.x!.getPixelForValue(raw.x);
          const y = scales.y!.getPixelForValue(raw.y);
          if (raw.low !== null && raw.high !== null) {
            const yl = scales.y!.getPixelForValue(clamp(raw.low));
            const yh = scales.y!.getPixelForValue(clamp(raw.high));
            ctx.beginPath();
            ctx.moveTo(x, yl);
            ctx.lineTo(x, yh);
            ctx.moveTo(x - 4, yl);
            ctx.lineTo(x + 4, yl);
            ctx.moveTo(x - 4, yh);
            ctx.lineTo(x + 4, yh);
            ctx.stroke();
          }
          if (labelled) {
            const text = raw.label.length > 28 ? `${raw.label.slice(0, 27)}\u2026` : raw.label;
            const w = ctx.measureText(text).width;
            // Right of the point, or left of it near the right edge.
            const left = x + 8 + w > a.right ? x - 8 - w : x + 8;
            ctx.fillText(text, left, y);
          }
        }
      }
      ctx.restore();
    },
  };
}

/** Points that can be drawn: both a lift and an RAE. */
export function plottable(points: ScatterPoint[]): Datum[] {
  return points
    .filter((p) => p.lift !== null && p.rae.value !== null)
    .map((p) => ({ x: clamp(p.lift as number), y: clamp(p.rae.value as number), low: p.rae.low, high: p.rae.high, label: p.label }));
}

export function drawScatter(canvas: HTMLCanvasElement, points: ScatterPoint[], onSelect: (label: string) => void, previous?: Chart<"scatter">): Chart<"scatter"> | undefined {
  previous?.destroy();
  const data = plottable(points);
  if (data.length === 0) return undefined;
  const fg = themeColor("--vscode-foreground", "#ccc");
  const grid = themeColor("--vscode-editorWidget-border", themeColor("--vscode-widget-border", "rgba(128,128,128,0.35)"));
  const warn = themeColor("--vscode-editorWarning-foreground", "#cca700");
  const border = themeColor("--vscode-contrastBorder", warn);
  const font = `${themeColor("--vscode-font-size", "13px")} ${themeColor("--vscode-font-family", "sans-serif")}`;
  const ticks = {
    color: fg,
    stepSize: 0.5,
    font: { size: 12 },
    callback: (v: string | number) => (Number(v) === 0 ? "0" : signed(Number(v), 1)),
  };
  const config: ChartConfiguration<"scatter", Datum[]> = {
    type: "scatter",
    data: { datasets: [{ label: "RAE vs aggregate retrieval lift", data, pointRadius: 5, pointHoverRadius: 7, backgroundColor: themeColor("--vscode-charts-orange", "#d18616"), borderColor: fg, borderWidth: 1 }] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      onClick: (_e, elements) => {
        const hit = elements[0];
        if (hit) onSelect(data[hit.index]!.label);
      },
      scales: {
        x: { min: -1, max: 1, title: { display: true, text: "aggregate retrieval lift", color: fg }, ticks, grid: { color: grid }, border: { color: fg } },
        y: { min: -1, max: 1, title: { display: true, text: "RAE (where retrieved)", color: fg }, ticks, grid: { color: grid }, border: { color: fg } },
      },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (item) => {
              const d = item.raw as Datum;
              return `${d.label}: lift ${signed(d.x)}, RAE ${signed(d.y)} ${interval(d.low, d.high)}`;
            },
          },
        },
      },
    },
    plugins: [quadrantsPlugin(warn, border), barsAndLabels(themeColor("--vscode-charts-blue", "#3794ff"), fg, font, data.length <= 25)],
  };
  const chart = new Chart(canvas, config);
  const drawn: Drawn = { tickColor: fg, quadrantColor: warn };
  canvas.dataset.tickColor = drawn.tickColor;
  canvas.dataset.quadrantColor = drawn.quadrantColor;
  const a = chart.chartArea;
  canvas.dataset.area = JSON.stringify({ left: a.left, top: a.top, right: a.right, bottom: a.bottom, x0: chart.scales.x!.getPixelForValue(0), y0: chart.scales.y!.getPixelForValue(0) });
  return chart;
}

/** Why there is nothing to plot, in a sentence (shown instead of an empty chart). */
export function emptyReason(points: ScatterPoint[], kind: "skill" | "model"): string {
  if (points.length === 0) return `There is no ${kind} to plot.`;
  const noRae = points.filter((p) => p.rae.value === null).length;
  const noLift = points.filter((p) => p.lift === null).length;
  const what = kind === "model" ? "No model" : "No skill";
  return `${what} has both numbers the figure needs. ${noRae} of ${points.length} have no RAE (no task retrieved them in both conditions) and ${noLift} have no lift (that needs tasks both with and without a retrieval).`;
}
