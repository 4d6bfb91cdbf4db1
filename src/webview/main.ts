import type { Chart } from "chart.js";
import { z } from "zod";
import { HostMessageSchema, PROTOCOL_VERSION, type WebviewMessage } from "../shared/protocol.js";
import type { ReportView, TaskRef } from "../shared/report-view.js";
import { ExportFormatSchema, type ExportFormat } from "../shared/vocabulary/export-format.js";
import { clear, el } from "./dom.js";
import { renderHeadline, renderRuns, renderSectionTable, renderSkillTable, renderTaskList } from "./render.js";
import { drawScatter } from "./scatter.js";
import { renderSkillEvals } from "./trigger-matrix.js";

/** Report webview entry: receives typed messages from the host, renders with DOM text nodes and chart.js. */

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

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

function render(report: ReportView): void {
  const started = performance.now();
  current = report;
  clear(root);
  const exportBar = el("div", { class: "export" });
  const labels: Record<ExportFormat, string> = { html: "HTML", csv: "CSV", json: "JSON", markdown: "Markdown" };
  for (const format of ExportFormatSchema.options) {
    exportBar.append(el("button", { "data-export": format }, `Export ${labels[format]}`));
  }
  const canvas = el("canvas", { id: "scatter-canvas", role: "img", "aria-label": "RAE against aggregate retrieval lift" });
  const parts: (Node | null)[] = [
    el("header", {}, el("h1", { id: "title" }, report.title), exportBar),
    renderRuns(report),
    report.notes.length ? el("ul", { class: "notes", id: "notes" }, ...report.notes.map((n) => el("li", {}, n))) : null,
    renderHeadline(report),
    el(
      "section",
      { id: "scatter" },
      el("h2", {}, "RAE vs aggregate retrieval lift"),
      el("p", { class: "hint" }, "Shaded: lift and RAE disagree in sign. Bars: RAE interval."),
      el("div", { class: "chart-box" }, canvas),
    ),
    el("section", { id: "skills" }, el("h2", {}, "Skills, sorted by RAE"), renderSkillTable(report.skills, report.alpha)),
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
  ];
  for (const p of parts) if (p) root.append(p);
  try {
    chart = drawScatter(canvas, report.points, chart);
  } catch (err) {
    post({ v: PROTOCOL_VERSION, type: "error", message: `chart: ${String(err)}`.slice(0, 4000) });
  }
  vscode.setState({ runFiles: report.runs.map((r) => r.runFile), title: report.title });
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

root.addEventListener("click", (event) => {
  const target = (event.target as Element).closest("button");
  if (!target || !current) return;
  const format = ExportFormatSchema.safeParse(target.getAttribute("data-export"));
  if (format.success) {
    post({ v: PROTOCOL_VERSION, type: "export", format: format.data });
    return;
  }
  const list = target.getAttribute("data-list");
  const index = Number(target.getAttribute("data-index"));
  const tasks: TaskRef[] | undefined = list === "harmed" ? current.harmed : list === "rescued" ? current.rescued : undefined;
  const task = tasks?.[index];
  if (task) post({ v: PROTOCOL_VERSION, type: "openTask", runFile: task.runFile, taskId: task.taskId, sample: task.sample });
});

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
