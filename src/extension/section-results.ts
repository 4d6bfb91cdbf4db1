import * as vscode from "vscode";
import path from "node:path";
import { splitSkillSections } from "../core/skills/sections.js";
import type { SectionResult } from "../core/report/sections-schema.js";
import { interval, pLabel, signed } from "../shared/format.js";

const KEY = "skillFollowing.sectionResults.v1";

/** One section's result as the editor shows it (from the core report's `sections`). */
export interface StoredSection {
  id: string;
  heading: string;
  path: string[];
  startLine: number;
  endLine: number;
  n: number;
  repaired: number;
  broken: number;
  effect: number | null;
  low: number | null;
  high: number | null;
  pHolm: number | null;
  verdict: SectionResult["verdict"];
}

/** The last Find What Harms of one SKILL.md. */
export interface SkillSectionResults {
  file: string;
  skill: string;
  /** The skill as ablated: section ids and lines refer to this text. */
  contentHash: string;
  runFile: string;
  ablationFile: string;
  model: string;
  taskSet: string;
  evaluatedAt: string;
  sections: StoredSection[];
}

export function toStored(s: SectionResult): StoredSection {
  return {
    id: s.id, heading: s.heading, path: s.path, startLine: s.startLine, endLine: s.endLine, n: s.table.n, repaired: s.table.repaired, broken: s.table.broken,
    effect: s.table.effect, low: s.table.ci ? s.table.ci[0] : null, high: s.table.ci ? s.table.ci[1] : null, pHolm: s.pHolm, verdict: s.verdict,
  };
}

/** Section results per SKILL.md in workspaceState, read by the section diagnostics and CodeLenses. */
export class SectionResultsStore implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string[]>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly memento: vscode.Memento) {}

  private all(): Record<string, SkillSectionResults> {
    return this.memento.get<Record<string, SkillSectionResults>>(KEY, {});
  }

  get(file: string): SkillSectionResults | undefined {
    return this.all()[path.resolve(file)];
  }

  async set(result: SkillSectionResults): Promise<void> {
    await this.memento.update(KEY, { ...this.all(), [path.resolve(result.file)]: result });
    this.emitter.fire([path.resolve(result.file)]);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** A stored section located in the document as it is now. */
export interface PlacedSection {
  section: StoredSection;
  /** 1-based lines in the current text. */
  startLine: number;
  endLine: number;
  /** The section's own text changed since it was ablated (matched by heading path instead of id). */
  stale: boolean;
}

/**
 * Finds each evaluated section in the current text: by id (heading path + content hash) when its text is unchanged,
 * wherever it moved; else by heading path, marked stale. An edit of one section thus marks only that one stale; a
 * deleted section is not shown.
 */
export function placeSections(text: string, stored: SkillSectionResults): PlacedSection[] {
  const current = splitSkillSections(text).sections;
  const used = new Set<string>();
  const out: PlacedSection[] = [];
  for (const s of stored.sections) {
    const same = current.find((c) => c.id === s.id && !used.has(c.id));
    if (same) {
      used.add(same.id);
      out.push({ section: s, startLine: same.startLine, endLine: same.endLine, stale: false });
    }
  }
  for (const s of stored.sections) {
    if (out.some((p) => p.section === s)) continue;
    const moved = current.find((c) => !used.has(c.id) && c.path.join("\u0000") === s.path.join("\u0000"));
    if (moved) {
      used.add(moved.id);
      out.push({ section: s, startLine: moved.startLine, endLine: moved.endLine, stale: true });
    }
  }
  return out.sort((a, b) => a.startLine - b.startLine);
}

export const SECTION_CODES = { harms: "section-harms", harmsUnadjusted: "section-harms-unadjusted" } as const;

export function sectionLensTitle(p: PlacedSection): string {
  return `removing this: ${p.section.repaired} repaired \u00b7 ${p.section.broken} broken${p.stale ? " \u00b7 stale" : ""}`;
}

function describe(s: StoredSection): string {
  return `removing it repaired ${s.repaired} and broke ${s.broken} of ${s.n} tasks (effect ${signed(s.effect)} ${interval(s.low, s.high)}${s.pHolm === null ? "" : `, ${pLabel(s.pHolm, "Holm p")}`})`;
}

/** Diagnostics on the exact lines of each section whose removal repairs significantly more than it breaks. */
export function sectionDiagnostics(doc: vscode.TextDocument, stored: SkillSectionResults | undefined, source: string): vscode.Diagnostic[] {
  if (!stored) return [];
  const out: vscode.Diagnostic[] = [];
  for (const p of placeSections(doc.getText(), stored)) {
    const v = p.section.verdict;
    if (p.stale || (v !== "harms" && v !== "harms-unadjusted")) continue;
    const last = Math.min(p.endLine - 1, doc.lineCount - 1);
    const range = new vscode.Range(p.startLine - 1, 0, last, doc.lineAt(last).text.length);
    const adjusted = v === "harms";
    const d = new vscode.Diagnostic(
      range,
      `Section \u201c${p.section.heading}\u201d harms: ${describe(p.section)} on ${stored.taskSet} with ${stored.model}${adjusted ? " \u2014 significant after Holm across the skill's sections" : " \u2014 significant before Holm only"}.`,
      adjusted ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
    );
    d.code = adjusted ? SECTION_CODES.harms : SECTION_CODES.harmsUnadjusted;
    d.source = source;
    out.push(d);
  }
  return out;
}

/** What the skill-level verdict links to: the harmful sections, located in the current text. */
export function harmfulSectionLinks(doc: vscode.TextDocument, stored: SkillSectionResults | undefined): vscode.DiagnosticRelatedInformation[] {
  if (!stored) return [];
  return placeSections(doc.getText(), stored)
    .filter((p) => !p.stale && p.section.verdict.startsWith("harms"))
    .map((p) => new vscode.DiagnosticRelatedInformation(new vscode.Location(doc.uri, new vscode.Range(p.startLine - 1, 0, p.endLine - 1, 0)), `\u201c${p.section.heading}\u201d: ${describe(p.section)}`));
}
