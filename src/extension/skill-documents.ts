import * as vscode from "vscode";
import path from "node:path";

/** SKILL.md documents on disk (other schemes, e.g. our transcripts or git diffs, are not skills). */
export function isSkillDocument(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === "file" && path.basename(doc.uri.fsPath) === "SKILL.md";
}

/** Line 0 .. the closing `---` of the frontmatter, where verdicts and the CodeLens are anchored. */
export function frontmatterRange(doc: vscode.TextDocument): vscode.Range {
  if (doc.lineCount === 0 || doc.lineAt(0).text.trim() !== "---") return new vscode.Range(0, 0, 0, 0);
  for (let i = 1; i < Math.min(doc.lineCount, 200); i++) {
    if (doc.lineAt(i).text.trim() === "---") return new vscode.Range(0, 0, i, doc.lineAt(i).text.length);
  }
  return doc.lineAt(0).range;
}
