import path from "node:path";
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode, type Pair } from "yaml";
import { SKILL_FINDING_CODES, finding, type SkillFindingCode } from "./codes.js";
import { skillContentHash } from "./hash.js";
import type { Finding, Skill } from "./types.js";
import { closest } from "../../shared/suggest.js";

/** Skill files above this size are refused: a SKILL.md is prose, and the editor lints it on every keystroke. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
export const BODY_LINES_ADVICE = 500;
export const BODY_WORDS_ADVICE = 5000;

export const KNOWN_FIELDS = new Set(["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);
const FIELD_SPELLINGS: Record<string, string> = { allowed_tools: "allowed-tools", allowedTools: "allowed-tools", Name: "name", Description: "description" };

interface Span {
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
}

/** Turns free text into a valid skill name, for "set name: …" suggestions. */
export function suggestSkillName(raw: string): string {
  const s = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-$/, "");
  return s === "" ? "my-skill" : s;
}

/** Checks a name against the Agent Skills rules; returns the finding codes with messages (empty = valid). */
export function checkSkillName(name: string): { code: SkillFindingCode; message: string }[] {
  const out: { code: SkillFindingCode; message: string }[] = [];
  if (/[/\\]/.test(name) || name.includes("..")) {
    out.push({ code: "name-unsafe", message: `name "${name}" contains a path separator or "..": use only a-z, 0-9 and hyphens, e.g. name: ${suggestSkillName(name)}` });
    return out;
  }
  if (name.length > MAX_NAME_LENGTH) {
    out.push({ code: "name-length", message: `name is ${name.length} characters; the limit is ${MAX_NAME_LENGTH}: shorten it, e.g. name: ${suggestSkillName(name)}` });
  }
  if (!/^[a-z0-9-]*$/.test(name)) {
    const bad = [...new Set(name.replace(/[a-z0-9-]/g, ""))].map((c) => JSON.stringify(c)).join(", ");
    out.push({ code: "name-format", message: `name "${name}" contains ${bad}; only lowercase a-z, 0-9 and "-" are allowed: set name: ${suggestSkillName(name)}` });
  } else if (/^-|-$|--/.test(name)) {
    out.push({ code: "name-format", message: `name "${name}" has a leading, trailing or double hyphen: set name: ${suggestSkillName(name)}` });
  }
  return out;
}

/**
 * Parses one SKILL.md. Never throws: every problem is a located finding, and `skill` is absent when a
 * finding with `skips` (see SKILL_FINDING_CODES) was produced. `file` should be absolute; the folder-name
 * check only applies when the file is called SKILL.md (any case).
 */
export function parseSkill(file: string, text: string): { skill?: Skill; findings: Finding[] } {
  const findings: Finding[] = [];
  const add = (code: SkillFindingCode, message: string, at?: Span) => findings.push(finding(code, file, message, at));
  const result = () => ({ findings });

  if (text.length > MAX_SKILL_FILE_BYTES || Buffer.byteLength(text, "utf8") > MAX_SKILL_FILE_BYTES) {
    add("file-too-large", `file is ${Buffer.byteLength(text, "utf8")} bytes; the limit is ${MAX_SKILL_FILE_BYTES} (1 MB): move reference material into separate files next to SKILL.md`);
    return result();
  }
  const nul = text.indexOf("\u0000");
  if (nul >= 0) {
    add("binary-file", "file contains NUL bytes (binary or UTF-16): save SKILL.md as UTF-8 text", positionOf(text, nul));
    return result();
  }

  let src = text;
  if (src.charCodeAt(0) === 0xfeff) {
    src = src.slice(1);
    add("bom", "file starts with a UTF-8 byte-order mark; it is ignored, but some tools show it: save as UTF-8 without BOM");
  }
  const lines = src.split(/\r\n|\r|\n/);
  if ((lines[0] ?? "").trimEnd() !== "---") {
    add("frontmatter-missing", "SKILL.md must start with a `---` line, then YAML with `name:` and `description:`, then a closing `---` line", {
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: (lines[0] ?? "").length + 1,
    });
    return result();
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] ?? "").trimEnd();
    if (l === "---" || l === "...") {
      close = i;
      break;
    }
  }
  if (close < 0) {
    add("frontmatter-unterminated", "frontmatter opened with `---` on line 1 is never closed: add a `---` line after the last YAML key", { line: 1, column: 1, endLine: 1, endColumn: 4 });
    return result();
  }

  // YAML text starts on line 2 of the file; every offset below is shifted by that one line.
  const yamlText = lines.slice(1, close).join("\n");
  const counter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const span = (start: number, end: number): Span => {
    const a = counter.linePos(start);
    const b = counter.linePos(Math.max(start, end));
    return { line: a.line + 1, column: a.col, endLine: b.line + 1, endColumn: b.col };
  };
  const nodeSpan = (node: YamlNode | null | undefined, fallback: Span): Span => (node?.range ? span(node.range[0], node.range[1]) : fallback);
  const closeSpan: Span = { line: close + 1, column: 1, endLine: close + 1, endColumn: 4 };

  for (const e of doc.errors) add("yaml-syntax", `YAML error: ${firstLine(e.message)}`, span(e.pos[0], e.pos[1]));
  if (doc.errors.length > 0) return result();
  for (const w of doc.warnings) add("yaml-warning", `YAML warning: ${firstLine(w.message)}`, span(w.pos[0], w.pos[1]));

  const contents = doc.contents;
  const fields = new Map<string, { pair: Pair; keySpan: Span }>();
  if (contents !== null && !isMap(contents)) {
    add("frontmatter-not-mapping", "frontmatter must be YAML keys and values (`name: my-skill`), not a list or a single value", nodeSpan(contents, { line: 2, column: 1 }));
    return result();
  }
  for (const pair of contents?.items ?? []) {
    const keyNode = pair.key as YamlNode | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const keySpan = nodeSpan(keyNode, { line: 2, column: 1 });
    fields.set(key, { pair, keySpan });
  }
  for (const [key, { keySpan }] of fields) {
    if (KNOWN_FIELDS.has(key)) continue;
    // A typo of a field the skill lacks ("descripton" beside no "description"): the quick fix renames it.
    const near = FIELD_SPELLINGS[key] ?? closest(key.replace(/_/g, "-"), [...KNOWN_FIELDS].filter((k) => !fields.has(k)));
    const hint = near ? `did you mean \`${near}\`?` : "agents ignore it (Agent Skills defines name, description, license, compatibility, metadata, allowed-tools)";
    add("unknown-field", `unknown field \`${key}\`: ${hint}`, keySpan);
  }

  const scalarField = (key: string): { value?: string; span: Span; present: boolean; wrongType: boolean } => {
    const f = fields.get(key);
    if (!f) return { span: { line: 1, column: 1, endLine: 1, endColumn: 4 }, present: false, wrongType: false };
    const v = f.pair.value as YamlNode | null;
    const at = nodeSpan(v, f.keySpan);
    if (!isScalar(v) || v.value === null || v.value === undefined) return { span: at, present: true, wrongType: !(v === null || (isScalar(v) && v.value === null)) };
    if (typeof v.value === "string") return { value: v.value, span: at, present: true, wrongType: false };
    // Plain numbers and booleans: keep what the author typed (`1.0`, not `1`).
    if (typeof v.value === "number" || typeof v.value === "boolean") return { value: v.source ?? String(v.value), span: at, present: true, wrongType: false };
    return { span: at, present: true, wrongType: true };
  };

  const nameF = scalarField("name");
  const name = nameF.value?.trim();
  if (name === undefined || name === "") {
    const folder = folderName(file);
    const how = folder ? `add \`name: ${suggestSkillName(folder)}\`` : "add `name: my-skill`";
    add("name-missing", nameF.present ? `name must be a non-empty string: ${how}` : `frontmatter has no \`name\`: ${how}`, nameF.present ? nameF.span : { line: 1, column: 1, endLine: 1, endColumn: 4 });
  } else {
    for (const p of checkSkillName(name)) add(p.code, p.message, nameF.span);
    const folder = folderName(file);
    if (folder !== undefined && folder !== name && !findings.some((f) => f.code === "name-unsafe")) {
      add("name-folder-mismatch", `name "${name}" does not match its folder "${folder}": rename the folder to ${name} or set name: ${folder}`, nameF.span);
    }
  }

  const descF = scalarField("description");
  const description = descF.value?.trim();
  if (description === undefined || description === "") {
    const what = !descF.present ? "frontmatter has no `description`" : descF.wrongType ? "description must be a string" : "description is empty";
    add("description-missing", `${what}: add \`description:\` saying in one or two sentences what the skill does and when to use it`, descF.span);
  } else if (description.length > MAX_DESCRIPTION_LENGTH) {
    add("description-too-long", `description is ${description.length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}: shorten it and move detail into the body`, descF.span);
  }

  const optional: Partial<Pick<Skill, "license" | "compatibility" | "metadata" | "allowedTools">> = {};
  for (const key of ["license", "compatibility"] as const) {
    const f = scalarField(key);
    if (!f.present) continue;
    if (f.value === undefined) {
      add("field-type", `\`${key}\` must be a single string; it is ignored`, f.span);
    } else if (key === "compatibility" && f.value.length > MAX_COMPATIBILITY_LENGTH) {
      add("compatibility-too-long", `compatibility is ${f.value.length} characters; the limit is ${MAX_COMPATIBILITY_LENGTH}: shorten it`, f.span);
      optional.compatibility = f.value;
    } else {
      optional[key] = f.value;
    }
  }

  const meta = fields.get("metadata");
  if (meta) {
    const v = meta.pair.value as YamlNode | null;
    if (!isMap(v)) {
      add("field-type", "`metadata` must be a map of string keys to string values (`metadata:` then `  key: value` lines); it is ignored", nodeSpan(v, meta.keySpan));
    } else {
      const m: Record<string, string> = {};
      for (const p of v.items) {
        const k = p.key as YamlNode | null;
        const val = p.value as YamlNode | null;
        const ok = (n: YamlNode | null) => isScalar(n) && n.value !== null && ["string", "number", "boolean"].includes(typeof n.value);
        if (!isScalar(k) || !ok(k) || !isScalar(val) || !ok(val)) {
          add("field-type", "metadata entries must be `key: string`; this entry is ignored", nodeSpan(val ?? k, meta.keySpan));
          continue;
        }
        m[String(k.value)] = typeof val.value === "string" ? val.value : (val.source ?? String(val.value));
      }
      optional.metadata = m;
    }
  }

  const tools = fields.get("allowed-tools");
  if (tools) {
    const v = tools.pair.value as YamlNode | null;
    if (isScalar(v) && typeof v.value === "string") {
      // Claude Code writes `Read, Grep, Bash(git add:*)`; the Agent Skills spec writes space-separated names.
      const parts = v.value.includes(",") ? v.value.split(",") : v.value.split(/\s+/);
      optional.allowedTools = parts.map((s) => s.trim()).filter((s) => s !== "");
    } else if (isSeq(v) && v.items.every((i) => isScalar(i) && typeof i.value === "string")) {
      optional.allowedTools = v.items.map((i) => String((i as { value: unknown }).value));
    } else {
      add("field-type", "`allowed-tools` must be a string of tool names or a list of strings; it is ignored", nodeSpan(v, tools.keySpan));
    }
  }

  const bodyLines = lines.slice(close + 1);
  const body = bodyLines.join("\n").trimEnd();
  const bodyLine = close + 2;
  if (body.trim() === "") {
    add("body-empty", "the skill has no body: write the instructions the agent should follow after the closing `---`", closeSpan);
  } else {
    const nLines = body.split("\n").length;
    const nWords = body.split(/\s+/).filter((w) => w !== "").length;
    if (nLines > BODY_LINES_ADVICE || nWords > BODY_WORDS_ADVICE) {
      add("body-long", `body is ${nLines} lines and ${nWords} words (advice: at most ${BODY_LINES_ADVICE} lines or ${BODY_WORDS_ADVICE} words): move detail into referenced files`, {
        line: bodyLine,
        column: 1,
      });
    }
  }

  if (findings.some((f) => SKILL_FINDING_CODES[f.code as SkillFindingCode]?.skips)) return { findings };
  const abs = path.resolve(file);
  const skill: Skill = {
    name: name as string,
    description: description as string,
    body,
    file: abs,
    dir: path.dirname(abs),
    contentHash: skillContentHash(text),
    bodyLine,
    ...optional,
  };
  return { skill, findings };
}

/** The editor's as-you-type check: the findings of parseSkill, nothing else (no file system access). */
export function lintSkillText(file: string, text: string): Finding[] {
  return parseSkill(file, text).findings;
}

function folderName(file: string): string | undefined {
  return /^skill\.md$/i.test(path.basename(file)) ? path.basename(path.dirname(path.resolve(file))) : undefined;
}

function firstLine(s: string): string {
  return s.split("\n")[0] ?? s;
}

/** 1-based line/column of a string offset, counting CRLF, CR and LF as one line break each. */
export function positionOf(text: string, offset: number): Span {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}
