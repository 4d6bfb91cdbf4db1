import {
  Chart,
  LinearScale,
  PointElement,
  ScatterController,
  Tooltip,
  Legend,
  type ChartConfiguration,
  type Plugin,
} from "chart.js";
import type { ScatterPoint } from "../shared/report-view.js";
import { interval, signed } from "../shared/format.js";

Chart.register(ScatterController, LinearScale, PointElement, Tooltip, Legend);

/** Reads a theme colour from the --vscode-* variables so the chart follows the editor theme. */
function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

interface Datum {
  x: number;
  y: number;
  low: number | null;
  high: number | null;
  label: string;
}

/**
 * Shades the sign-disagreement quadrants (lift > 0 with RAE < 0, and lift < 0 with RAE > 0): a skill there is
 * the paradox the product exists to expose. Drawn before the datasets.
 */
const quadrants: Plugin<"scatter"> = {
  id: "sfQuadrants",
  beforeDatasetsDraw(chart) {
    const { ctx, chartArea: a, scales } = chart;
    const x0 = scales.x!.getPixelForValue(0);
    const y0 = scales.y!.getPixelForValue(0);
    const cx = Math.min(Math.max(x0, a.left), a.right);
    const cy = Math.min(Math.max(y0, a.top), a.bottom);
    ctx.save();
    ctx.fillStyle = themeColor("--vscode-inputValidation-warningBackground", "rgba(200, 120, 0, 0.15)");
    ctx.globalAlpha = 0.35;
    ctx.fillRect(cx, cy, a.right - cx, a.bottom - cy); // lift > 0, RAE < 0
    ctx.fillRect(a.left, a.top, cx - a.left, cy - a.top); // lift < 0, RAE > 0
    ctx.globalAlpha = 1;
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

/** Vertical interval bars (RAE interval) through each point. */
const intervalBars: Plugin<"scatter"> = {
  id: "sfIntervals",
  afterDatasetsDraw(chart) {
    const { ctx, scales } = chart;
    ctx.save();
    ctx.strokeStyle = themeColor("--vscode-charts-blue", "#3794ff");
    ctx.lineWidth = 1.5;
    for (const ds of chart.data.datasets) {
      for (const raw of ds.data as unknown as Datum[]) {
        if (raw.low === null || raw.high === null) continue;
        const x = scales.x!.getPixelForValue(raw.x);
        const yl = scales.y!.getPixelForValue(raw.low);
        const yh = scales.y!.getPixelForValue(raw.high);
        ctx.beginPath();
        ctx.moveTo(x, yl);
        ctx.lineTo(x, yh);
        ctx.moveTo(x - 4, yl);
        ctx.lineTo(x + 4, yl);
        ctx.moveTo(x - 4, yh);
        ctx.lineTo(x + 4, yh);
        ctx.stroke();
      }
    }
    ctx.restore();
  },
};

export function drawScatter(canvas: HTMLCanvasElement, points: ScatterPoint[], previous?: Chart<"scatter">): Chart<"scatter"> | undefined {
  previous?.destroy();
  const data: Datum[] = points
    .filter((p) => p.lift !== null && p.rae.value !== null)
    .map((p) => ({ x: p.lift as number, y: p.rae.value as number, low: p.rae.low, high: p.rae.high, label: p.label }));
  if (data.length === 0) return undefined;
  const fg = themeColor("--vscode-foreground", "#ccc");
  const grid = themeColor("--vscode-widget-border", "rgba(128,128,128,0.3)");
  const extent = Math.max(0.1, ...data.flatMap((d) => [Math.abs(d.x), Math.abs(d.low ?? d.y), Math.abs(d.high ?? d.y)])) * 1.15;
  const config: ChartConfiguration<"scatter", Datum[]> = {
    type: "scatter",
    data: {
      datasets: [
        {
          label: "RAE vs aggregate retrieval lift",
          data,
          pointRadius: 5,
          backgroundColor: themeColor("--vscode-charts-orange", "#d18616"),
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: { min: -extent, max: extent, title: { display: true, text: "aggregate retrieval lift", color: fg }, ticks: { color: fg }, grid: { color: grid } },
        y: { min: -extent, max: extent, title: { display: true, text: "RAE", color: fg }, ticks: { color: fg }, grid: { color: grid } },
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
    plugins: [quadrants, intervalBars],
  };
  return new Chart(canvas, config as unknown as ChartConfiguration<"scatter">);
}
