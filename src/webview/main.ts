import type { Chart } from "chart.js";
import { z } from "zod";
import { HostMessageSchema, PROTOCOL_VERSION, WebviewStateSchema, type WebviewMessage, type WebviewState } from "../shared/protocol.js";
import type { ReportView, TaskRef } from "../shared/report-view.js";
import { ExportFormatSchema, type ExportFormat } from "../shared/vocabulary/export-format.js";
import { clear, el } from "./dom.js";
import { renderExplainer, renderHeadline, renderMatrix, renderRuns, renderSectionTable, renderSkillTable, renderStale, renderSubsets, renderTaskList } from "./render.js";
import { drawScatter, emptyReason, plottable } from "./scatter.js";
import { renderSkillEvals } from "./trigger-matrix.js";

/**
 * Report webview entry: receives typed messages from the host, renders with DOM text nodes and chart.js, redraws the
 * chart when the editor theme changes, and keeps the reader's scroll position across re-renders and reloads.
 */

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  setState(state: unknown): void;
  getState(): unknown;
}
declare function acquireVsCodeApi(): VsCodeApi;

// The CSP forbids eval; zod must not even try its Function-based fast path (it would log CSP violations).
z.config({ jitless: true });

const vscode = acquireVsCodeApi();
const root = document.getElementById("app")!;
let chart: Chart<"scatter"> | undefined;
let current: ReportView | undefined;
const restored = WebviewStateSchema.safeParse(vscode.getState());
let state: WebviewState | undefined = restored.success ? restored.data : undefined;

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

function saveState(): void {
  if (!current) return;
  state = { runFiles: current.runs.map((r) => r.runFile), title: current.title, scrollY: window.scrollY };
  vscode.setState(state);
}

function renderScatter(report: ReportView): HTMLElement {
  const kind = report.models && report.models.length > 1 ? "model" : "skill";
  const drawable = plottable(report.points).length > 0;
  const canvas = drawable
    ? el("canvas", {
        id: "scatter-canvas",
        role: "img",
        "aria-label": `RAE against aggregate retrieval lift, one point per ${kind}. The ${kind === "skill" ? "Skills" : "headline"} table lists the same numbers.`,
        "aria-describedby": kind === "skill" ? "skills-table" : "headline-models",
      })
    : null;
  return el(
    "section",
    { id: "scatter" },
    el("h2", {}, "RAE vs aggregate retrieval lift ", el("button", { class: "explain", type: "button", "data-explain": "lift", "aria-controls": "explainer", "aria-expanded": "false", title: "Why the lift misleads" }, el("span", { "aria-hidden": "true" }, "?"), el("span", { class: "visually-hidden" }, "Why the lift misleads"))),
    canvas
      ? el("p", { class: "hint" }, `Hatched: lift and RAE disagree in sign (the paradox). Bars: RAE interval. Click a point to find its ${kind} in the table.`)
      : null,
    canvas ? el("div", { class: "chart-box" }, canvas) : el("p", { class: "empty", id: "scatter-empty" }, emptyReason(report.points, kind)),
  );
}

function draw(report: ReportView): void {
  const canvas = document.getElementById("scatter-canvas") as HTMLCanvasElement | null;
  if (!canvas) return;
  try {
    chart = drawScatter(canvas, report.points, select, chart);
  } catch (err) {
    post({ v: PROTOCOL_VERSION, type: "error", message: `chart: ${String(err)}`.slice(0, 4000) });
  }
}

/** A point was clicked: bring its row into view and mark it (the table is the chart's text alternative). */
function select(label: string): void {
  for (const tr of document.querySelectorAll("tr.selected")) tr.classList.remove("selected");
  const rows = [...document.querySelectorAll<HTMLElement>("#skills-table tbody tr, #headline-models tbody tr")];
  const row = rows.find((r) => r.getAttribute("data-skill") === label || (r.getAttribute("data-model") === label && !r.hasAttribute("data-skill")));
  if (!row) return;
  row.classList.add("selected");
  row.scrollIntoView({ block: "center" });
  row.setAttribute("tabindex", "-1");
  row.focus({ preventScroll: true });
}

function render(report: ReportView): void {
  const started = performance.now();
  // A re-render of the same report (after a re-evaluation) keeps the reader where they were; a reload restores it.
  const sameReport = current?.title === report.title || state?.title === report.title;
  const scrollY = current ? window.scrollY : (state?.scrollY ?? 0);
  current = report;
  chart?.destroy();
  chart = undefined;
  clear(root);
  const exportBar = el("div", { class: "export", role: "group", "aria-label": "Export" });
  const labels: Record<ExportFormat, string> = { html: "HTML", csv: "CSV", json: "JSON", markdown: "Markdown" };
  for (const format of ExportFormatSchema.options) exportBar.append(el("button", { type: "button", "data-export": format }, `Export ${labels[format]}`));
  const parts: (Node | null)[] = [
    el("header", {}, el("h1", { id: "title" }, report.title), exportBar),
    renderStale(report),
    renderRuns(report),
    report.notes.length ? el("ul", { class: "notes", id: "notes" }, ...report.notes.map((n) => el("li", {}, n))) : null,
    el("main", {}, renderHeadline(report)),
    renderExplainer(report),
    renderScatter(report),
    renderMatrix(report),
    el("section", { id: "skills" }, el("h2", {}, "Skills ", el("span", { class: "hint-inline" }, `(Holm over ${report.family} skill${report.family === 1 ? "" : "s"}; click a column to sort)`)), renderSkillTable(report.skills, report.alpha, report.family)),
    report.sections && report.sections.length > 0
      ? el(
          "section",
          { id: "sections" },
          el("h2", {}, "Which part of the skill harms (section ablation)"),
          el("p", { class: "hint" }, "Repaired: the full skill failed, the skill without the section passed. Broken: the reverse. Effect = (broken − repaired)/n; negative means the section harms."),
          renderSectionTable(report.sections, report.alpha),
        )
      : null,
    report.skillEvals && report.skillEvals.length > 0 ? renderSkillEvals(report.skillEvals) : null,
    renderTaskList("harmed", "Harmed tasks", report.harmed, "No task was harmed."),
    renderTaskList("rescued", "Rescued tasks", report.rescued, "No task was rescued."),
    report.subsets.length > 0 ? renderSubsets(report) : null,
  ];
  for (const p of parts) if (p) root.append(p);
  draw(report);
  if (sameReport && scrollY > 0) window.scrollTo(0, scrollY);
  saveState();
  const ms = performance.now() - started;
  root.dataset.renderMs = ms.toFixed(1);
  post({
    v: PROTOCOL_VERSION,
    type: "rendered",
    ms,
    skills: report.skills.length,
    rescued: report.rescued.length,
    harmed: report.harmed.length,
    ...(report.skillEvals?.length ? { triggerCells: root.querySelectorAll(".trigger-matrix td.heat").length } : {}),
  });
}

function toggleExplainer(part: string | null): void {
  const box = document.getElementById("explainer");
  if (!box) return;
  const open = part !== null;
  box.hidden = !open;
  for (const b of document.querySelectorAll("button[data-explain]")) b.setAttribute("aria-expanded", String(open && b.getAttribute("data-explain") === part));
  if (!open) return;
  const target = document.getElementById(`explain-${part}`) ?? box;
  for (const p of box.querySelectorAll(".explain-part")) p.classList.toggle("focused", p === target);
  target.scrollIntoView({ block: "start" });
  box.focus({ preventScroll: true });
}

root.addEventListener("click", (event) => {
  const target = (event.target as Element).closest("button");
  if (!target || !current) return;
  const format = ExportFormatSchema.safeParse(target.getAttribute("data-export"));
  if (format.success) return post({ v: PROTOCOL_VERSION, type: "export", format: format.data });
  if (target.hasAttribute("data-explain")) {
    const part = target.getAttribute("data-explain");
    return toggleExplainer(target.getAttribute("aria-expanded") === "true" ? null : part);
  }
  if (target.hasAttribute("data-close-explainer")) return toggleExplainer(null);
  const action = target.getAttribute("data-action");
  if (action === "showLatest") return post({ v: PROTOCOL_VERSION, type: "showLatest" });
  if (action === "evaluateAgain") return post({ v: PROTOCOL_VERSION, type: "evaluateAgain" });
  const list = target.getAttribute("data-list");
  const index = Number(target.getAttribute("data-index"));
  const tasks: TaskRef[] | undefined = list === "harmed" ? current.harmed : list === "rescued" ? current.rescued : undefined;
  const task = tasks?.[index];
  if (task) post({ v: PROTOCOL_VERSION, type: "openTask", runFile: task.runFile, taskId: task.taskId, sample: task.sample });
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !document.getElementById("explainer")?.hidden) toggleExplainer(null);
});

let scrollTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener("scroll", () => {
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(saveState, 150);
});

// VS Code changes the theme by rewriting the --vscode-* variables on <html> and the theme class on <body>: redraw
// the chart (canvas colours are not CSS) whenever either changes.
let themeTimer: ReturnType<typeof setTimeout> | undefined;
const onTheme = () => {
  clearTimeout(themeTimer);
  themeTimer = setTimeout(() => current && draw(current), 50);
};
new MutationObserver(onTheme).observe(document.documentElement, { attributes: true, attributeFilter: ["style", "class"] });
new MutationObserver(onTheme).observe(document.body, { attributes: true, attributeFilter: ["class", "data-vscode-theme-id"] });

window.addEventListener("message", (event: MessageEvent) => {
  const parsed = HostMessageSchema.safeParse(event.data);
  if (!parsed.success) return;
  const msg = parsed.data;
  switch (msg.type) {
    case "report":
      render(msg.report);
      break;
    case "focus": {
      const section = document.getElementById(msg.section);
      section?.scrollIntoView({ block: "start" });
      section?.classList.add("focused");
      break;
    }
  }
});

post({ v: PROTOCOL_VERSION, type: "ready" });
