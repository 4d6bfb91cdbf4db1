import * as vscode from "vscode";
import { skillFixes } from "../core/skills/fixes.js";
import { DIAGNOSTIC_SOURCE } from "./diagnostics.js";
import { isSkillDocument } from "./skill-documents.js";

/**
 * Quick fixes for SKILL.md format findings whose fix is mechanical (src/core/skills/fixes.ts): quote a description
 * whose ": " breaks the YAML, set `name` to the folder name, rename a misspelled field. Each is offered on the
 * diagnostics it resolves, and the certain ones are preferred (so "Fix all" and Ctrl+. apply them).
 */
export class SkillFixCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    if (!isSkillDocument(doc)) return [];
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
    if (ours.length === 0) return [];
    const out: vscode.CodeAction[] = [];
    for (const fix of skillFixes(doc.uri.fsPath, doc.getText())) {
      const resolved = ours.filter((d) => (fix.fixes as readonly string[]).includes(String(typeof d.code === "object" ? d.code.value : d.code)));
      if (resolved.length === 0) continue;
      const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      for (const e of fix.edits) action.edit.replace(doc.uri, new vscode.Range(e.line, e.start, e.line, e.end), e.text);
      action.diagnostics = resolved;
      action.isPreferred = fix.preferred === true;
      out.push(action);
    }
    return out;
  }
}
