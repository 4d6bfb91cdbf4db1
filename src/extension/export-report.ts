import * as vscode from "vscode";
import { mkdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { inspectExport, renderCsv, renderHtml, renderJUnit, renderJson, renderMarkdown, renderSarif, renderText, skillCreatorExport } from "../core/report/index.js";
import type { Report } from "../core/report/schema.js";
import { reportFile } from "../core/layout.js";
import { mergeShardRuns, type LoadedRun } from "../core/runs/merge.js";
import { readRunFile } from "../core/runs/store.js";
import type { RunRecord } from "../core/runs/types.js";
import { TOOL_VERSION } from "../core/version.js";
import { ReportFormatSchema, type ReportFormat } from "../shared/vocabulary/index.js";
import type { Services } from "./services.js";

/**
 * Export Report: every format `report --format` writes, from the open report. A file format asks where to save
 * (the dialog opens in the workspace's reports folder, created first so the dialog can open there); skill-creator
 * and inspect write a folder of files (from the run files' whole records), into a folder of their own named after
 * the run inside the folder chosen.
 */
export interface ExportChoice extends vscode.QuickPickItem {
  format: ReportFormat;
  /** File extension of a one-file format; undefined for the formats that write a folder. */
  extension?: string;
}

export const EXPORT_CHOICES: readonly ExportChoice[] = [
  { format: "html", extension: "html", label: "HTML", description: ".html", detail: "The report as one self-contained page." },
  { format: "markdown", extension: "md", label: "Markdown", description: ".md", detail: "For a pull request or an issue." },
  { format: "csv", extension: "csv", label: "CSV", description: ".csv", detail: "One row per skill, for a spreadsheet." },
  { format: "json", extension: "json", label: "JSON", description: ".json", detail: "The whole report model." },
  { format: "junit", extension: "xml", label: "JUnit XML", description: ".xml", detail: "One test case per skill, for CI test reporters." },
  { format: "sarif", extension: "sarif", label: "SARIF", description: ".sarif", detail: "Significantly harmful skills and sections on their SKILL.md lines, for code scanning." },
  { format: "text", extension: "txt", label: "Text", description: ".txt", detail: "What the CLI prints." },
  { format: "skill-creator", label: "skill-creator", description: "a folder", detail: "Skill evals in skill-creator's iteration layout (benchmark.json per skill)." },
  { format: "inspect", label: "Inspect eval logs", description: "a folder", detail: "One log per evaluation and condition, for `inspect view`." },
];

// Every report format is offered (a new one in the vocabulary without an entry here fails the unit test).
const byFormat = new Map(EXPORT_CHOICES.map((c) => [c.format, c]));

interface OpenReport {
  reportModel?: Report;
  runFiles: string[];
}

function readTextOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function render(format: ReportFormat, report: Report, root: string): string {
  switch (format) {
    case "html":
      return renderHtml(report);
    case "markdown":
      return renderMarkdown(report);
    case "csv":
      return renderCsv(report);
    case "json":
      return renderJson(report);
    case "junit":
      return renderJUnit(report);
    case "sarif":
      return renderSarif(report, { root, readText: readTextOrUndefined, toolVersion: TOOL_VERSION });
    case "text":
      return renderText(report);
    default:
      throw new Error(`${format} writes a folder, not one file`);
  }
}

/** The files a folder format writes, from the run files' whole records (outputs, transcripts); `empty` says why none. */
async function folderFiles(svc: Services, format: "skill-creator" | "inspect", report: Report, runFiles: readonly string[]): Promise<{ files: { path: string; text: string }[]; empty?: string }> {
  const whole: LoadedRun<RunRecord>[] = [];
  for (const file of runFiles) {
    const contents = await readRunFile(file);
    for (const w of contents.warnings) svc.logger.warn(w);
    whole.push({ file, header: contents.header, records: contents.records, stops: contents.stops });
  }
  const runs = mergeShardRuns(whole, svc.logger);
  if (format === "inspect") {
    const { files } = inspectExport(runs, report);
    return files.length ? { files } : { files, empty: "This report holds no runs to export as Inspect eval logs." };
  }
  const { files } = skillCreatorExport(runs, report);
  return files.length
    ? { files }
    : { files, empty: "This report holds no skill evals, so skill-creator's layout would be empty: evaluate a skill on its own evals (evals/evals.json) and export that report." };
}

/**
 * Exports `panel`'s report as `format` (asked for when not given) to `target` (a file, or a folder for skill-creator
 * and inspect; asked for when not given). Returns the file or folder written, undefined when the user backed out.
 */
export async function exportOpenReport(svc: Services, panel: OpenReport, format?: unknown, target?: unknown): Promise<string | undefined> {
  const model = panel.reportModel;
  if (!model) return undefined;
  const given = ReportFormatSchema.safeParse(format);
  const choice = given.success ? byFormat.get(given.data) : await vscode.window.showQuickPick([...EXPORT_CHOICES], { title: "Export format", matchOnDetail: true });
  if (!choice) return undefined;
  const runFile = panel.runFiles[0] ?? "report";
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? path.dirname(runFile);
  // The dialog opens in the workspace's reports folder: created now, so it exists when the dialog shows it.
  const reportsDir = path.dirname(reportFile(svc.layout, runFile, choice.extension ?? "txt"));
  mkdirSync(reportsDir, { recursive: true });

  if (choice.extension) {
    const file =
      typeof target === "string"
        ? target
        : (await vscode.window.showSaveDialog({ title: `Export ${choice.label}`, defaultUri: vscode.Uri.file(reportFile(svc.layout, runFile, choice.extension)), filters: { [choice.label]: [choice.extension] } }))?.fsPath;
    if (!file) return undefined;
    mkdirSync(path.dirname(file), { recursive: true });
    const text = render(choice.format, model, root);
    await writeFile(file, text.endsWith("\n") ? text : `${text}\n`, "utf8");
    void vscode.window.showInformationMessage(`Report exported to ${vscode.workspace.asRelativePath(vscode.Uri.file(file))}.`);
    return file;
  }

  const { files, empty } = await folderFiles(svc, choice.format as "skill-creator" | "inspect", model, panel.runFiles);
  if (empty) {
    void vscode.window.showWarningMessage(empty);
    return undefined;
  }
  let dir: string | undefined;
  if (typeof target === "string") dir = target;
  else {
    const picked = await vscode.window.showOpenDialog({ title: `Export ${choice.label}: the folder to write it in`, canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: "Export Here", defaultUri: vscode.Uri.file(reportsDir) });
    const parent = picked?.[0]?.fsPath;
    if (parent) dir = path.join(parent, `${path.basename(runFile).replace(/\.jsonl$/, "")}.${choice.format}`);
  }
  if (!dir) return undefined;
  for (const f of files) {
    const out = path.join(dir, ...f.path.split("/"));
    mkdirSync(path.dirname(out), { recursive: true });
    await writeFile(out, f.text, "utf8");
  }
  void vscode.window.showInformationMessage(`Report exported as ${choice.label} (${files.length} files) to ${vscode.workspace.asRelativePath(vscode.Uri.file(dir))}.`);
  return dir;
}
