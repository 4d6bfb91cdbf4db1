import * as vscode from "vscode";
import { COMMANDS } from "./command-ids.js";
import type { ResultsStore } from "./results-store.js";
import { placeSections, SECTION_CODES, sectionLensTitle, type SectionResultsStore } from "./section-results.js";
import { isSkillDocument } from "./skill-documents.js";
import { skillContentHash } from "../core/skills/hash.js";
import { DIAGNOSTIC_SOURCE } from "./diagnostics.js";

/**
 * CodeLenses of Find What Harms: above every evaluated section, what removing it did ("removing this: 6 repaired ·
 * 0 broken", `· stale` once that section's own text changed); and, on an evaluated skill that harmed tasks,
 * "Find what harms" above the frontmatter until the sections of this version are known.
 */
export class SectionCodeLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  constructor(
    private readonly sections: SectionResultsStore,
    private readonly results: ResultsStore,
  ) {
    sections.onDidChange(() => this.emitter.fire(), this, this.disposables);
    results.onDidChange(() => this.emitter.fire(), this, this.disposables);
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (isSkillDocument(e.document)) this.emitter.fire();
    }, this, this.disposables);
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!isSkillDocument(doc)) return [];
    const stored = this.sections.get(doc.uri.fsPath);
    const lenses: vscode.CodeLens[] = [];
    const result = this.results.get(doc.uri.fsPath);
    const hash = skillContentHash(doc.getText());
    if (result && result.harmed > 0 && result.contentHash === hash && stored?.contentHash !== hash) {
      lenses.push(new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { command: COMMANDS.findWhatHarms.id, title: "$(search) Find what harms", tooltip: "Re-run the skill's harmed and rescued tasks with each section removed", arguments: [doc.uri] }));
    }
    if (!stored) return lenses;
    for (const p of placeSections(doc.getText(), stored)) {
      lenses.push(
        new vscode.CodeLens(new vscode.Range(p.startLine - 1, 0, p.startLine - 1, 0), {
          command: COMMANDS.openReport.id,
          title: sectionLensTitle(p),
          tooltip: `${p.section.heading}: on ${stored.taskSet} with ${stored.model}, ${stored.evaluatedAt}. Click to open the report.`,
          arguments: [[stored.runFile]],
        }),
      );
    }
    return lenses;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The quick fix on a harmful section: "Remove this section and re-evaluate". */
export class SectionCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly sections: SectionResultsStore) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const codes: string[] = Object.values(SECTION_CODES);
    const stored = this.sections.get(doc.uri.fsPath);
    if (!stored) return [];
    const placed = placeSections(doc.getText(), stored);
    return context.diagnostics
      .filter((d) => d.source === DIAGNOSTIC_SOURCE && typeof d.code === "string" && codes.includes(d.code))
      .flatMap((d) => {
        const p = placed.find((x) => !x.stale && x.startLine - 1 === d.range.start.line);
        if (!p) return [];
        const fix = new vscode.CodeAction(`Remove \u201c${p.section.heading}\u201d and re-evaluate`, vscode.CodeActionKind.QuickFix);
        fix.command = { command: COMMANDS.removeSectionAndReevaluate.id, title: "Remove this section and re-evaluate", arguments: [doc.uri, p.section.id] };
        fix.diagnostics = [d];
        fix.isPreferred = true;
        return [fix];
      });
  }
}
