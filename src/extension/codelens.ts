import * as vscode from "vscode";
import { skillContentHash } from "../core/skills/hash.js";
import { COMMANDS } from "./command-ids.js";
import type { ResultsStore } from "./results-store.js";
import { editLensTitle, type EditHistory } from "./edit-history.js";
import { isSkillDocument } from "./skill-documents.js";
import { configLabel, lensTitle, verdictWord } from "./verdict-text.js";

/**
 * The CodeLens above a SKILL.md's frontmatter: the result of the configuration the author chose (the configured
 * model on the task set last used for this skill alone; results-store.ts), with the model and task set it is about
 * (`RAE −0.12 [−0.25, 0.01] · 3 rescued · 7 harmed · gpt-4o-mini on math-word`, plus `· stale` once the content hash
 * no longer matches the evaluated one), one click to (re-)evaluate, and `also: …` links to other configurations'
 * reports.
 */
export { lensTitle };

export class SkillCodeLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  constructor(
    private readonly results: ResultsStore,
    private readonly edits?: EditHistory,
  ) {
    results.onDidChange(() => this.emitter.fire(), this, this.disposables);
    if (edits) this.disposables.push(edits.onDidChange(() => this.emitter.fire()));
    // Staleness depends on the text, so the lens is recomputed as the document changes.
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (isSkillDocument(e.document)) this.emitter.fire();
    }, this, this.disposables);
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!isSkillDocument(doc)) return [];
    const range = new vscode.Range(0, 0, 0, 0);
    const result = this.results.get(doc.uri.fsPath);
    if (!result) {
      return [new vscode.CodeLens(range, { command: COMMANDS.evaluateSkill.id, title: "$(beaker) Evaluate this skill", arguments: [doc.uri] })];
    }
    const stale = skillContentHash(doc.getText()) !== result.contentHash;
    return [
      new vscode.CodeLens(range, {
        command: COMMANDS.showHarmedTasks.id,
        title: lensTitle(result, stale),
        tooltip: `${result.model} on ${result.taskSet}, ${result.evaluatedAt}. Click to open the report.`,
        arguments: [doc.uri],
      }),
      new vscode.CodeLens(range, { command: COMMANDS.evaluateSkill.id, title: stale ? "Re-evaluate (changed)" : "Re-evaluate", arguments: [doc.uri] }),
      // What the edit that led to the evaluated text changed (issue 28): paired against the previous text's run.
      ...this.editLens(doc, range, result.contentHash),
      // Other configurations' verdicts (another model, a library run) are linked, never shown in place of this one.
      ...this.results.others(doc.uri.fsPath).slice(0, 2).map(
        (r) =>
          new vscode.CodeLens(range, {
            command: COMMANDS.openReport.id,
            title: `also: ${configLabel(r)} \u2014 ${verdictWord(r)}`,
            tooltip: `${configLabel(r)}, ${r.evaluatedAt}. Click to open that report.`,
            arguments: [[r.runFile]],
          }),
      ),
    ];
  }

  private editLens(doc: vscode.TextDocument, range: vscode.Range, contentHash: string): vscode.CodeLens[] {
    const history = this.edits?.of(doc.uri.fsPath) ?? [];
    const index = history.findIndex((e) => e.diff.after.hash === contentHash);
    if (index < 0) return [];
    const e = history[index]!;
    return [
      new vscode.CodeLens(range, {
        command: COMMANDS.showEditDiff.id,
        title: editLensTitle(e.diff),
        tooltip: `Against the ${e.beforeLabel} (${e.diff.table.n} tasks loaded both versions). Click for the two versions side by side and the tasks that changed.`,
        arguments: [doc.uri, index],
      }),
    ];
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
