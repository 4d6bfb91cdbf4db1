import path from "node:path";
import { closest } from "../../shared/suggest.js";
import { KNOWN_FIELDS, suggestSkillName } from "./parse.js";
import type { SkillFindingCode } from "./codes.js";

/**
 * Mechanical fixes for SKILL.md findings, as plain text edits any host can apply (the editor offers them as quick
 * fixes). Only fixes whose result is certain: quoting a description that breaks the YAML, setting `name` to the folder
 * name, renaming a misspelled field. Lines and columns are 0-based; `end` is exclusive.
 */
export interface TextEdit {
  line: number;
  start: number;
  end: number;
  text: string;
}

export interface SkillFix {
  title: string;
  /** The finding codes this fix resolves (the editor attaches it to those diagnostics). */
  fixes: SkillFindingCode[];
  edits: TextEdit[];
  /** The one to apply with "Fix all" / the lightbulb's first choice. */
  preferred?: boolean;
}

/** The frontmatter's lines (between the `---` lines), with their 0-based numbers. */
function frontmatterLines(text: string): { line: number; text: string }[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return [];
  const out: { line: number; text: string }[] = [];
  for (let i = 1; i < lines.length && lines[i]!.trim() !== "---"; i++) out.push({ line: i, text: lines[i]! });
  return out;
}

const TOP_LEVEL_KEY = /^([A-Za-z_][\w-]*)\s*:(\s*)(.*)$/;

/** A YAML double-quoted scalar of `value`. */
function doubleQuoted(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * `description: Use when: the user asks` is the most common SKILL.md bug in public repositories: the second `: ` makes
 * it a nested mapping, the YAML is invalid, and agents silently drop the skill. Quoting the value fixes it.
 */
function quoteDescription(lines: { line: number; text: string }[]): SkillFix | undefined {
  for (const l of lines) {
    const m = TOP_LEVEL_KEY.exec(l.text);
    if (!m || m[1] !== "description") continue;
    const value = m[3]!.trimEnd();
    if (value === "" || /^["'|>]/.test(value)) return undefined;
    if (!/: |:$| #/.test(value)) return undefined;
    const start = l.text.length - m[3]!.length;
    return { title: "Quote the description (its \": \" breaks the YAML)", fixes: ["yaml-syntax"], edits: [{ line: l.line, start, end: l.text.length, text: doubleQuoted(value) }], preferred: true };
  }
  return undefined;
}

function setNameToFolder(lines: { line: number; text: string }[], file: string): SkillFix | undefined {
  const folder = path.basename(path.dirname(file));
  const wanted = suggestSkillName(folder);
  if (wanted !== folder) return undefined; // the folder itself is not a valid name: renaming it is the user's call
  for (const l of lines) {
    const m = TOP_LEVEL_KEY.exec(l.text);
    if (!m || m[1] !== "name") continue;
    const current = m[3]!.trim().replace(/^["']|["']$/g, "");
    if (current === folder) return undefined;
    const start = l.text.length - m[3]!.length;
    return { title: `Set name to the folder name (${folder})`, fixes: ["name-folder-mismatch", "name-format", "name-length"], edits: [{ line: l.line, start, end: l.text.length, text: folder }], preferred: true };
  }
  return undefined;
}

function renameMisspelledFields(lines: { line: number; text: string }[]): SkillFix[] {
  const keys = lines.flatMap((l) => {
    const m = TOP_LEVEL_KEY.exec(l.text);
    return m ? [{ key: m[1]!, line: l.line }] : [];
  });
  const present = new Set(keys.map((k) => k.key));
  const out: SkillFix[] = [];
  for (const { key, line } of keys) {
    if (KNOWN_FIELDS.has(key)) continue;
    const near = closest(key.replace(/_/g, "-"), [...KNOWN_FIELDS].filter((k) => !present.has(k)));
    if (!near) continue;
    out.push({ title: `Rename \`${key}\` to \`${near}\``, fixes: ["unknown-field", near === "name" ? "name-missing" : near === "description" ? "description-missing" : "unknown-field"], edits: [{ line, start: 0, end: key.length, text: near }], preferred: true });
  }
  return out;
}

/** Every mechanical fix the text of `file` admits, whatever its findings are (the host matches them to diagnostics). */
export function skillFixes(file: string, text: string): SkillFix[] {
  const lines = frontmatterLines(text);
  if (lines.length === 0) return [];
  return [quoteDescription(lines), setNameToFolder(lines, file), ...renameMisspelledFields(lines)].filter((f): f is SkillFix => f !== undefined);
}

/** Applies edits to a text (for tests and hosts without an editor). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  for (const e of [...edits].sort((a, b) => b.line - a.line || b.start - a.start)) {
    const l = lines[e.line] ?? "";
    lines[e.line] = l.slice(0, e.start) + e.text + l.slice(e.end);
  }
  return lines.join(eol);
}
