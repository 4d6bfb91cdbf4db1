import * as vscode from "vscode";
import { readFileSync } from "node:fs";
import { lintSkillText } from "../core/skills/index.js";
import { skillContentHash } from "../core/skills/hash.js";
import type { Finding } from "../core/skills/types.js";
import { COMMANDS } from "./command-ids.js";
import type { ConfigFacade } from "./config.js";
import type { SkillResult } from "./report-view-model.js";
import type { ResultsStore } from "./results-store.js";
import { harmfulSectionLinks, sectionDiagnostics, type SectionResultsStore, type SkillSectionResults } from "./section-results.js";
import { frontmatterRange, isSkillDocument } from "./skill-documents.js";
import { verdictKind, verdictMessage } from "./verdict-text.js";
import { plainYamlMessage } from "./yaml-messages.js";

/**
 * One DiagnosticCollection for SKILL.md files: the core's format findings (debounced while typing) plus the verdict
 * of the last evaluation on the frontmatter. Findings are plain data from the core; this is the one mapper to
 * vscode.Diagnostic.
 */
export const DIAGNOSTIC_SOURCE = "Skill Following";

const SEVERITY: Record<Finding["severity"], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toDiagnostic(f: Finding, doc: vscode.TextDocument): vscode.Diagnostic {
  const line = Math.min(Math.max(f.line - 1, 0), Math.max(doc.lineCount - 1, 0));
  const startCol = Math.max(f.column - 1, 0);
  const endLine = f.endLine !== undefined ? Math.min(f.endLine - 1, doc.lineCount - 1) : line;
  const endCol = f.endColumn !== undefined ? f.endColumn - 1 : doc.lineAt(endLine).text.length;
  const range = new vscode.Range(line, startCol, endLine, Math.max(endLine === line ? startCol : 0, endCol));
  const d = new vscode.Diagnostic(range, plainYamlMessage(f), SEVERITY[f.severity]);
  d.code = f.code;
  d.source = DIAGNOSTIC_SOURCE;
  return d;
}

export const VERDICT_CODES = { harmful: "evaluation-harmful", harms: "evaluation-harms", helps: "evaluation-helps" } as const;

/**
 * Where the skill-level verdict sits: the `name:` line of the frontmatter (issue 13 / 14), so it no longer covers
 * the description and does not overlap the section diagnostics; the whole frontmatter when there is no name line.
 */
export function nameLineRange(doc: vscode.TextDocument): vscode.Range {
  const front = frontmatterRange(doc);
  for (let i = 1; i < front.end.line; i++) {
    const text = doc.lineAt(i).text;
    if (/^name\s*:/.test(text)) return new vscode.Range(i, 0, i, text.length);
  }
  return front;
}

/**
 * The evaluation verdict as a diagnostic, or undefined when the skill neither harmed nor rescued more. With section
 * results (Find What Harms) it names the harmful sections and links to them.
 */
export function verdictDiagnostic(result: SkillResult, doc: vscode.TextDocument, sections?: SkillSectionResults, others: readonly SkillResult[] = []): vscode.Diagnostic | undefined {
  const stale = skillContentHash(doc.getText()) !== result.contentHash;
  const kind = verdictKind(result);
  if (!kind) return undefined;
  const links = kind === "helps" ? [] : harmfulSectionLinks(doc, sections);
  const which = links.length > 0 ? ` Find What Harms: ${links.map((l) => l.message.split(":")[0]).join(", ")} (see the related lines).` : "";
  const severity = kind === "harmful" ? vscode.DiagnosticSeverity.Error : kind === "harms" ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
  const d = new vscode.Diagnostic(nameLineRange(doc), verdictMessage(result, stale, which, others)!, severity);
  d.code = VERDICT_CODES[kind];
  if (links.length > 0) d.relatedInformation = links;
  d.source = DIAGNOSTIC_SOURCE;
  return d;
}

/** The parts of a TextDocument the diagnostics read, for a file that is not open in the editor. */
function textDocumentOf(uri: vscode.Uri, text: string): vscode.TextDocument {
  const lines = text.split(/\r?\n/);
  const lineAt = (i: number | vscode.Position) => {
    const n = typeof i === "number" ? i : i.line;
    const t = lines[n] ?? "";
    return { lineNumber: n, text: t, range: new vscode.Range(n, 0, n, t.length), rangeIncludingLineBreak: new vscode.Range(n, 0, n + 1, 0), firstNonWhitespaceCharacterIndex: t.search(/\S|$/), isEmptyOrWhitespace: t.trim() === "" };
  };
  return { uri, fileName: uri.fsPath, isClosed: false, isDirty: false, isUntitled: false, languageId: "markdown", version: 0, lineCount: lines.length, getText: () => text, lineAt } as unknown as vscode.TextDocument;
}

export class SkillDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection("skill-following");
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(
    private readonly results: ResultsStore,
    private readonly config: ConfigFacade,
    private readonly sections?: SectionResultsStore,
  ) {
    sections?.onDidChange(() => this.updateAll(), this, this.disposables);
    vscode.workspace.onDidOpenTextDocument((d) => this.update(d), this, this.disposables);
    vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document), this, this.disposables);
    vscode.workspace.onDidSaveTextDocument((d) => this.update(d), this, this.disposables);
    // A closed skill with a verdict keeps it (read from disk), so the Problems panel lists the library's harmful skills.
    vscode.workspace.onDidCloseTextDocument((d) => (isSkillDocument(d) && this.results.get(d.uri.fsPath) ? this.updateFile(d.uri.fsPath) : this.collection.delete(d.uri)), this, this.disposables);
    results.onDidChange((files) => {
      for (const f of files) this.updateFile(f);
    }, this, this.disposables);
    this.updateAll();
  }

  private updateAll(): void {
    const open = new Set<string>();
    for (const d of vscode.workspace.textDocuments) {
      this.update(d);
      if (isSkillDocument(d)) open.add(d.uri.fsPath);
    }
    // Every evaluated skill of the workspace, open or not (after a library run, or a reload).
    for (const f of this.results.files()) if (!open.has(f)) this.updateFile(f);
  }

  /** Diagnostics of a SKILL.md whether or not it is open: from the editor's text if open, else from the file on disk. */
  updateFile(file: string): void {
    const uri = vscode.Uri.file(file);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isClosed);
    if (open) return this.update(open);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      this.collection.delete(uri);
      return;
    }
    this.update(textDocumentOf(uri, text));
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!isSkillDocument(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.update(doc);
      }, this.config.get().lintDelayMs),
    );
  }

  update(doc: vscode.TextDocument): void {
    if (!isSkillDocument(doc) || doc.isClosed) return;
    const diagnostics = lintSkillText(doc.uri.fsPath, doc.getText()).map((f) => toDiagnostic(f, doc));
    const result = this.results.get(doc.uri.fsPath);
    const sections = this.sections?.get(doc.uri.fsPath);
    const verdict = result ? verdictDiagnostic(result, doc, sections, this.results.others(doc.uri.fsPath)) : undefined;
    diagnostics.unshift(...sectionDiagnostics(doc, sections, DIAGNOSTIC_SOURCE));
    if (verdict) diagnostics.unshift(verdict);
    this.collection.set(doc.uri, diagnostics);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** Quick fixes on a verdict: open the harmed tasks; re-evaluate. */
export class VerdictCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const codes: string[] = Object.values(VERDICT_CODES);
    const verdicts = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && typeof d.code === "string" && codes.includes(d.code));
    if (verdicts.length === 0) return [];
    const show = new vscode.CodeAction("Show the harmed tasks", vscode.CodeActionKind.QuickFix);
    show.command = { command: COMMANDS.showHarmedTasks.id, title: "Show the harmed tasks", arguments: [doc.uri] };
    show.diagnostics = verdicts;
    show.isPreferred = true;
    const again = new vscode.CodeAction("Re-evaluate this skill", vscode.CodeActionKind.QuickFix);
    again.command = { command: COMMANDS.evaluateSkill.id, title: "Re-evaluate this skill", arguments: [doc.uri] };
    again.diagnostics = verdicts;
    const harms = verdicts.filter((d) => d.code !== VERDICT_CODES.helps);
    if (harms.length === 0) return [show, again];
    const find = new vscode.CodeAction("Find what harms (section ablation)", vscode.CodeActionKind.QuickFix);
    find.command = { command: COMMANDS.findWhatHarms.id, title: "Find what harms", arguments: [doc.uri] };
    find.diagnostics = harms;
    return [show, find, again];
  }
}
