import path from "node:path";
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node as YamlNode, type Pair } from "yaml";
import { SKILL_FINDING_CODES, finding, type SkillFindingCode } from "./codes.js";
import { MAX_FRONTMATTER_BYTES, readFrontmatterYaml } from "./frontmatter.js";
import { skillContentHash } from "./hash.js";
import { closest } from "../../shared/suggest.js";
import type { Finding, Skill } from "./types.js";

/** Skill files above this size are refused: a SKILL.md is prose, and the editor lints it on every keystroke. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
export const BODY_LINES_ADVICE = 500;
export const BODY_WORDS_ADVICE = 5000;
/** Findings listed per code and file; the rest are counted in one closing finding of that code. */
export const MAX_FINDINGS_PER_CODE = 50;
export { MAX_FRONTMATTER_BYTES };

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

/** A value as quoted in a message: whole when short, cut with an ellipsis when it would flood the editor. */
function shown(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Checks a name against the Agent Skills rules; returns the finding codes with messages (empty = valid). */
export function checkSkillName(name: string): { code: SkillFindingCode; message: string }[] {
  const out: { code: SkillFindingCode; message: string }[] = [];
  if (/[/\\]/.test(name) || name.includes("..")) {
    out.push({ code: "name-unsafe", message: `name "${shown(name)}" contains a path separator or "..": use only a-z, 0-9 and hyphens, e.g. name: ${suggestSkillName(name)}` });
    return out;
  }
  if (name.length > MAX_NAME_LENGTH) {
    out.push({ code: "name-length", message: `name is ${name.length} characters; the limit is ${MAX_NAME_LENGTH}: shorten it, e.g. name: ${suggestSkillName(name)}` });
  }
  if (!/^[a-z0-9-]*$/.test(name)) {
    const bad = [...new Set(name.replace(/[a-z0-9-]/g, ""))].slice(0, 20).map((c) => JSON.stringify(c)).join(", ");
    out.push({ code: "name-format", message: `name "${shown(name)}" contains ${bad}; only lowercase a-z, 0-9 and "-" are allowed: set name: ${suggestSkillName(name)}` });
  } else if (/^-|-$|--/.test(name)) {
    out.push({ code: "name-format", message: `name "${shown(name)}" has a leading, trailing or double hyphen: set name: ${suggestSkillName(name)}` });
  }
  return out;
}

/**
 * The findings of one file, at most MAX_FINDINGS_PER_CODE per code: a hostile file can hold 60,000 unknown fields,
 * and each would become a squiggle in the editor. The overflow is one closing finding per code, with the count.
 */
class FindingList {
  private readonly items: Finding[] = [];
  private readonly perCode = new Map<SkillFindingCode, { count: number; last?: Span }>();

  constructor(private readonly file: string) {}

  add(code: SkillFindingCode, message: string, at?: Span): void {
    const c = this.perCode.get(code) ?? { count: 0 };
    c.count++;
    this.perCode.set(code, c);
    if (c.count <= MAX_FINDINGS_PER_CODE) this.items.push(finding(code, this.file, message, at));
    else c.last ??= at;
  }

  has(code: SkillFindingCode): boolean {
    return this.perCode.has(code);
  }

  skips(): boolean {
    return [...this.perCode.keys()].some((code) => SKILL_FINDING_CODES[code].skips);
  }

  list(): Finding[] {
    const out = [...this.items];
    for (const [code, c] of this.perCode) {
      const more = c.count - MAX_FINDINGS_PER_CODE;
      if (more > 0) out.push(finding(code, this.file, `${more} more \`${code}\` findings in this file are not listed (at most ${MAX_FINDINGS_PER_CODE} per kind)`, c.last));
    }
    return out;
  }
}

/** Locates offsets of the YAML text in the file: the YAML starts on file line 2. */
class YamlSpans {
  constructor(
    private readonly counter: LineCounter,
    readonly close: number,
  ) {}

  span(start: number, end: number): Span {
    const a = this.counter.linePos(start);
    const b = this.counter.linePos(Math.max(start, end));
    return { line: a.line + 1, column: a.col, endLine: b.line + 1, endColumn: b.col };
  }

  node(node: YamlNode | null | undefined, fallback: Span): Span {
    return node?.range ? this.span(node.range[0], node.range[1]) : fallback;
  }

  /** The closing `---` line. */
  closeLine(): Span {
    return { line: this.close + 1, column: 1, endLine: this.close + 1, endColumn: 4 };
  }
}

const FIRST_LINE: Span = { line: 1, column: 1, endLine: 1, endColumn: 4 };

/**
 * Parses one SKILL.md. Never throws: every problem is a located finding, and `skill` is absent when a
 * finding with `skips` (see SKILL_FINDING_CODES) was produced. `file` should be absolute; the folder-name
 * check only applies when the file is called SKILL.md (any case). Time is linear in the text (tests count it).
 */
export function parseSkill(file: string, text: string): { skill?: Skill; findings: Finding[] } {
  const out = new FindingList(file);
  const lines = readText(text, out);
  const close = lines && frontmatterEnd(lines, out);
  if (!lines || close === undefined) return { findings: out.list() };
  const yaml = readYaml(lines, close, out);
  if (!yaml) return { findings: out.list() };
  const fields = collectFields(yaml.doc, yaml.at, out);
  if (!fields) return { findings: out.list() };
  const name = checkName(file, fields, yaml.at, out);
  const description = checkDescription(fields, yaml.at, out);
  const optional = { ...optionalStrings(fields, yaml.at, out), ...metadataField(fields, yaml.at, out), ...allowedToolsField(fields, yaml.at, out) };
  const { body, bodyLine } = checkBody(lines, yaml.at, out);
  if (out.skips()) return { findings: out.list() };
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
  return { skill, findings: out.list() };
}

/** Size, NUL and BOM checks; the file's lines, or undefined when it cannot be read as a skill. */
function readText(text: string, out: FindingList): string[] | undefined {
  if (text.length > MAX_SKILL_FILE_BYTES || Buffer.byteLength(text, "utf8") > MAX_SKILL_FILE_BYTES) {
    out.add("file-too-large", `file is ${Buffer.byteLength(text, "utf8")} bytes; the limit is ${MAX_SKILL_FILE_BYTES} (1 MB): move reference material into separate files next to SKILL.md`);
    return undefined;
  }
  const nul = text.indexOf("\u0000");
  if (nul >= 0) {
    out.add("binary-file", "file contains NUL bytes (binary or UTF-16): save SKILL.md as UTF-8 text", positionOf(text, nul));
    return undefined;
  }
  let src = text;
  if (src.charCodeAt(0) === 0xfeff) {
    src = src.slice(1);
    out.add("bom", "file starts with a UTF-8 byte-order mark; it is ignored, but some tools show it: save as UTF-8 without BOM");
  }
  return src.split(/\r\n|\r|\n/);
}

/** Index of the closing `---` (or `...`) line, or undefined (with a finding) when the frontmatter is missing or open. */
function frontmatterEnd(lines: string[], out: FindingList): number | undefined {
  if ((lines[0] ?? "").trimEnd() !== "---") {
    out.add("frontmatter-missing", "SKILL.md must start with a `---` line, then YAML with `name:` and `description:`, then a closing `---` line", {
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: (lines[0] ?? "").length + 1,
    });
    return undefined;
  }
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] ?? "").trimEnd();
    if (l === "---" || l === "...") return i;
  }
  out.add("frontmatter-unterminated", "frontmatter opened with `---` on line 1 is never closed: add a `---` line after the last YAML key", FIRST_LINE);
  return undefined;
}

/** The frontmatter as a YAML document, or undefined (with findings) when it is too large or not valid YAML. */
function readYaml(lines: string[], close: number, out: FindingList): { doc: Document.Parsed; at: YamlSpans } | undefined {
  const read = readFrontmatterYaml(lines.slice(1, close).join("\n"));
  const at = new YamlSpans(read.counter, close);
  if (!read.ok) {
    if (read.tooLarge !== undefined) {
      const limit = `${MAX_FRONTMATTER_BYTES / 1024} KB`;
      out.add("frontmatter-too-large", `frontmatter is ${read.tooLarge} bytes; the limit is ${limit}: keep only the fields (name, description, …) there and move the rest into the body`, FIRST_LINE);
    }
    for (const e of read.errors) out.add("yaml-syntax", `YAML error: ${firstLine(e.message)}`, at.span(e.pos[0], e.pos[1]));
    return undefined;
  }
  for (const w of read.warnings) out.add("yaml-warning", `YAML warning: ${firstLine(w.message)}`, at.span(w.pos[0], w.pos[1]));
  return { doc: read.doc, at };
}

type Fields = Map<string, { pair: Pair; keySpan: Span }>;

/** The top-level keys, with an `unknown-field` finding for each key the format does not define. */
function collectFields(doc: Document.Parsed, at: YamlSpans, out: FindingList): Fields | undefined {
  const contents = doc.contents;
  if (contents !== null && !isMap(contents)) {
    out.add("frontmatter-not-mapping", "frontmatter must be YAML keys and values (`name: my-skill`), not a list or a single value", at.node(contents, { line: 2, column: 1 }));
    return undefined;
  }
  const fields: Fields = new Map();
  for (const pair of contents?.items ?? []) {
    const keyNode = pair.key as YamlNode | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : keyNode?.range && keyNode.range[1] - keyNode.range[0] > 200 ? "(a long complex key)" : String(keyNode);
    const keySpan = at.node(keyNode, { line: 2, column: 1 });
    fields.set(key, { pair, keySpan });
  }
  for (const [key, { keySpan }] of fields) {
    if (KNOWN_FIELDS.has(key)) continue;
    // A typo of a field the skill lacks ("descripton" beside no "description"): the quick fix renames it.
    const near = FIELD_SPELLINGS[key] ?? closest(key.replace(/_/g, "-"), [...KNOWN_FIELDS].filter((k) => !fields.has(k)));
    const hint = near ? `did you mean \`${near}\`?` : "agents ignore it (Agent Skills defines name, description, license, compatibility, metadata, allowed-tools)";
    out.add("unknown-field", `unknown field \`${shown(key)}\`: ${hint}`, keySpan);
  }
  return fields;
}

interface ScalarField {
  value?: string;
  span: Span;
  present: boolean;
  wrongType: boolean;
  /** A plain YAML number or boolean (`name: 2024`), kept as typed; quick_validate.py requires a string. */
  notString?: "number" | "boolean";
}

function scalarField(fields: Fields, key: string, at: YamlSpans): ScalarField {
  const f = fields.get(key);
  if (!f) return { span: FIRST_LINE, present: false, wrongType: false };
  const v = f.pair.value as YamlNode | null;
  const span = at.node(v, f.keySpan);
  if (!isScalar(v) || v.value === null || v.value === undefined) return { span, present: true, wrongType: !(v === null || (isScalar(v) && v.value === null)) };
  if (typeof v.value === "string") return { value: v.value, span, present: true, wrongType: false };
  // Plain numbers and booleans: keep what the author typed (`1.0`, not `1`).
  if (typeof v.value === "number" || typeof v.value === "boolean") return { value: v.source ?? String(v.value), span, present: true, wrongType: false, notString: typeof v.value === "number" ? "number" : "boolean" };
  return { span, present: true, wrongType: true };
}

/** The `name` checks: present, valid, and the folder's name. */
function checkName(file: string, fields: Fields, at: YamlSpans, out: FindingList): string | undefined {
  const nameF = scalarField(fields, "name", at);
  const name = nameF.value?.trim();
  const folder = folderName(file);
  if (name === undefined || name === "") {
    const how = folder ? `add \`name: ${suggestSkillName(folder)}\`` : "add `name: my-skill`";
    out.add("name-missing", nameF.present ? `name must be a non-empty string: ${how}` : `frontmatter has no \`name\`: ${how}`, nameF.present ? nameF.span : FIRST_LINE);
    return undefined;
  }
  notString("name", nameF, out);
  const nameProblems = checkSkillName(name);
  for (const p of nameProblems) out.add(p.code, p.message, nameF.span);
  if (folder !== undefined && folder !== name && !out.has("name-unsafe")) {
    // Suggest only names that are valid (lowercase a-z, 0-9 and hyphens): never "rename the folder to Date-Formatter".
    const folderValid = checkSkillName(folder).length === 0;
    const how =
      nameProblems.length === 0 && folderValid
        ? `rename the folder to ${shown(name)} or set name: ${folder}`
        : folderValid
          ? `set name: ${folder}`
          : nameProblems.length === 0
            ? `rename the folder to ${shown(name)}`
            : `use one valid name for both, such as ${suggestSkillName(folder)}`;
    out.add("name-folder-mismatch", `name "${shown(name)}" does not match its folder "${folder}": ${how}`, nameF.span);
  }
  return name;
}

/** quick_validate.py's "must be a string": `name: 2024` loads (as typed) but fails there; quoting it fixes both. */
function notString(key: string, f: ScalarField, out: FindingList): void {
  if (f.notString) out.add("field-not-string", `\`${key}\` is a YAML ${f.notString} (${shown(f.value ?? "")}), not a string; skill-creator's quick_validate.py rejects it: quote it, e.g. ${key}: "${shown(f.value ?? "")}"`, f.span);
}

function checkDescription(fields: Fields, at: YamlSpans, out: FindingList): string | undefined {
  const descF = scalarField(fields, "description", at);
  const description = descF.value?.trim();
  if (description === undefined || description === "") {
    const what = !descF.present ? "frontmatter has no `description`" : descF.wrongType ? "description must be a string" : "description is empty";
    out.add("description-missing", `${what}: add \`description:\` saying in one or two sentences what the skill does and when to use it`, descF.span);
    return undefined;
  }
  notString("description", descF, out);
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    out.add("description-too-long", `description is ${description.length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}: shorten it and move detail into the body`, descF.span);
  }
  // quick_validate.py's rule (skill-creator): the description goes into the system prompt, where `<…>` reads as markup.
  if (/[<>]/.test(description)) {
    out.add("description-angle-brackets", "description contains `<` or `>`, which skill-creator's quick_validate.py and Claude.ai reject: write the words instead (e.g. \"returns\" for `->`, \"less than\" for `<`)", descF.span);
  }
  return description;
}

type Optional = Partial<Pick<Skill, "license" | "compatibility" | "metadata" | "allowedTools">>;

function optionalStrings(fields: Fields, at: YamlSpans, out: FindingList): Optional {
  const optional: Optional = {};
  for (const key of ["license", "compatibility"] as const) {
    const f = scalarField(fields, key, at);
    if (!f.present) continue;
    if (f.value === undefined) {
      out.add("field-type", `\`${key}\` must be a single string; it is ignored`, f.span);
    } else if (key === "compatibility" && f.value.length > MAX_COMPATIBILITY_LENGTH) {
      out.add("compatibility-too-long", `compatibility is ${f.value.length} characters; the limit is ${MAX_COMPATIBILITY_LENGTH}: shorten it`, f.span);
      optional.compatibility = f.value;
    } else {
      optional[key] = f.value;
    }
  }
  return optional;
}

function metadataField(fields: Fields, at: YamlSpans, out: FindingList): Optional {
  const meta = fields.get("metadata");
  if (!meta) return {};
  const v = meta.pair.value as YamlNode | null;
  if (!isMap(v)) {
    out.add("field-type", "`metadata` must be a map of string keys to string values (`metadata:` then `  key: value` lines); it is ignored", at.node(v, meta.keySpan));
    return {};
  }
  const m: Record<string, string> = {};
  const ok = (n: YamlNode | null) => isScalar(n) && n.value !== null && ["string", "number", "boolean"].includes(typeof n.value);
  for (const p of v.items) {
    const k = p.key as YamlNode | null;
    const val = p.value as YamlNode | null;
    if (!isScalar(k) || !ok(k) || !isScalar(val) || !ok(val)) {
      out.add("field-type", "metadata entries must be `key: string`; this entry is ignored", at.node(val ?? k, meta.keySpan));
      continue;
    }
    m[String(k.value)] = typeof val.value === "string" ? val.value : (val.source ?? String(val.value));
  }
  return { metadata: m };
}

function allowedToolsField(fields: Fields, at: YamlSpans, out: FindingList): Optional {
  const tools = fields.get("allowed-tools");
  if (!tools) return {};
  const v = tools.pair.value as YamlNode | null;
  if (isScalar(v) && typeof v.value === "string") {
    // Claude Code writes `Read, Grep, Bash(git add:*)`; the Agent Skills spec writes space-separated names.
    const parts = v.value.includes(",") ? v.value.split(",") : v.value.split(/\s+/);
    return { allowedTools: parts.map((s) => s.trim()).filter((s) => s !== "") };
  }
  if (isSeq(v) && v.items.every((i) => isScalar(i) && typeof i.value === "string")) {
    return { allowedTools: v.items.map((i) => String((i as { value: unknown }).value)) };
  }
  out.add("field-type", "`allowed-tools` must be a string of tool names or a list of strings; it is ignored", at.node(v, tools.keySpan));
  return {};
}

/** The body after the closing `---` (trailing whitespace cut), with the empty and too-long advice. */
function checkBody(lines: string[], at: YamlSpans, out: FindingList): { body: string; bodyLine: number } {
  const body = lines
    .slice(at.close + 1)
    .join("\n")
    .trimEnd();
  const bodyLine = at.close + 2;
  if (body.trim() === "") {
    out.add("body-empty", "the skill has no body: write the instructions the agent should follow after the closing `---`", at.closeLine());
    return { body, bodyLine };
  }
  const nLines = body.split("\n").length;
  const nWords = body.split(/\s+/).filter((w) => w !== "").length;
  if (nLines > BODY_LINES_ADVICE || nWords > BODY_WORDS_ADVICE) {
    out.add("body-long", `body is ${nLines} lines and ${nWords} words (advice: at most ${BODY_LINES_ADVICE} lines or ${BODY_WORDS_ADVICE} words): move detail into referenced files`, {
      line: bodyLine,
      column: 1,
    });
  }
  return { body, bodyLine };
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
