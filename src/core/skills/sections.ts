/**
 * A SKILL.md split into the sections that section ablation removes one at a time (issue 13).
 *
 * Parsing is CommonMark (markdown-it, whose block tokens carry their source line range), never a regex: a `#` line
 * inside a fenced block is code, a setext heading (`Title` over `===`) is a heading, and a heading inside a block
 * quote or list item belongs to that block. Rules:
 * - with headings: each top-level heading (any level) starts a section that runs to the next top-level heading;
 *   text before the first heading is a section of its own ("preamble");
 * - without headings: each top-level block (paragraph, list, quote, table…) is a section, and a fenced or indented
 *   code block joins the paragraph before it (or, when the body starts with one, the block after it);
 * - the frontmatter `description` is a separate section, reported apart: removing it changes retrieval, so it is
 *   ablated only on request.
 * Sections partition the body's lines, so deleting one leaves the rest byte-identical. Line numbers are 1-based in
 * the file (frontmatter included); CRLF, CR and LF each count as one line break, as in parseSkill and VS Code.
 */
import MarkdownIt from "markdown-it";
import { isMap, isScalar } from "yaml";
import { frame, readFrontmatterYaml, type Frame } from "./frontmatter.js";
import { sha256Hex, trimTrailingBlanks } from "./hash.js";

export type SectionKind = "preamble" | "heading" | "block" | "description";

export interface SkillSection {
  /** Stable id: the slugged heading path, then `#` and 12 hex digits of the section's content hash. */
  id: string;
  /** What the author sees: the heading text, or a description of the block. */
  heading: string;
  /** Heading texts from the outermost enclosing heading down to this one (one entry for blocks and the preamble). */
  path: string[];
  kind: SectionKind;
  /** 1-based, in the file: the first line and the last non-blank line of the section. */
  startLine: number;
  endLine: number;
  /** sha256 of the section's normalised text (trailing spaces and trailing blank lines dropped). */
  contentHash: string;
}

export interface SkillSections {
  /** 1-based file line where the body starts (the line after the closing `---`), as Skill.bodyLine. */
  bodyLine: number;
  /** Body sections in document order; empty for a frontmatter-only skill. */
  sections: SkillSection[];
  /** The frontmatter description as a section (absent when there is none). */
  description?: SkillSection;
}

// Block structure only: the inline rules (emphasis, links, code spans) would parse text this module never reads.
const md = new MarkdownIt("commonmark").disable("inline");
const HASH_DIGITS = 12;

/** The body exactly as parseSkill returns it (lines after the frontmatter joined by LF, trailing whitespace cut). */
function bodyLinesOf(f: Frame): string[] {
  return f.close < 0 ? [] : f.lines.slice(f.close + 1);
}

export function slug(s: string): string {
  const out = s
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return out === "" ? "x" : out;
}

function sectionHash(lines: readonly string[]): string {
  const trimmed = lines.map(trimTrailingBlanks);
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === "") trimmed.pop();
  return sha256Hex(trimmed.join("\n"));
}

function lastNonBlank(lines: readonly string[], from: number, to: number): number {
  for (let i = to - 1; i > from; i--) if ((lines[i] ?? "").trim() !== "") return i;
  return from;
}

interface Span {
  /** 0-based body line range [from, to) that the section owns (deleting it removes exactly these lines). */
  from: number;
  to: number;
  kind: SectionKind;
  path: string[];
  heading: string;
}

/** Top-level blocks with their 0-based start lines, as markdown-it sees them. */
function topLevelBlocks(body: string): Array<{ type: string; start: number; level?: number; text?: string }> {
  const tokens = md.parse(body, {});
  const out: Array<{ type: string; start: number; level?: number; text?: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.level !== 0 || !t.map || t.nesting === -1) continue;
    if (t.type === "heading_open") {
      out.push({ type: "heading", start: t.map[0], level: Number(t.tag.slice(1)), text: tokens[i + 1]?.content ?? "" });
    } else {
      // A block's label is its first line of text (a list's first item, a quote's first paragraph).
      let text = t.content;
      if (t.nesting === 1) for (let j = i + 1; j < tokens.length && tokens[j]!.level > 0; j++) if (tokens[j]!.type === "inline") { text = tokens[j]!.content; break; }
      out.push({ type: t.type, start: t.map[0], text });
    }
  }
  return out;
}

function headingSpans(blocks: ReturnType<typeof topLevelBlocks>, n: number): Span[] {
  const spans: Span[] = [];
  const first = blocks.find((b) => b.type === "heading")!;
  if (blocks.some((b) => b.start < first.start)) {
    spans.push({ from: 0, to: first.start, kind: "preamble", path: ["(before the first heading)"], heading: "(before the first heading)" });
  }
  const stack: Array<{ level: number; text: string }> = [];
  const heads = blocks.filter((b) => b.type === "heading");
  heads.forEach((h, i) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level!) stack.pop();
    const text = h.text!.trim() || "(empty heading)";
    stack.push({ level: h.level!, text });
    spans.push({ from: h.start, to: heads[i + 1]?.start ?? n, kind: "heading", path: stack.map((s) => s.text), heading: text });
  });
  if (spans[0] && spans[0].kind !== "preamble") spans[0].from = 0;
  return spans;
}

const CODE = new Set(["fence", "code_block"]);

function blockSpans(blocks: ReturnType<typeof topLevelBlocks>, n: number): Span[] {
  // Group code blocks with the paragraph before them (or after them, when nothing comes before).
  const groups: Array<Array<(typeof blocks)[number]>> = [];
  // Whether the last group holds only code so far, kept as we go: testing the whole group for every block
  // made a body of 30,000 code blocks quadratic.
  let prevAllCode = false;
  for (const b of blocks) {
    const prev = groups[groups.length - 1];
    const code = CODE.has(b.type);
    if (prev && (code || prevAllCode)) {
      prev.push(b);
      prevAllCode &&= code;
    } else {
      groups.push([b]);
      prevAllCode = code;
    }
  }
  return groups.map((g, i) => {
    const lead = g.find((b) => !CODE.has(b.type)) ?? g[0]!;
    const words = (lead.text ?? "").replace(/\s+/g, " ").trim();
    const short = words.length > 48 ? `${words.slice(0, 47).trimEnd()}…` : words;
    const heading = short === "" ? `(block ${i + 1})` : `¶ ${short}`;
    return { from: i === 0 ? 0 : g[0]!.start, to: groups[i + 1]?.[0]!.start ?? n, kind: "block" as const, path: [heading], heading };
  });
}

/**
 * Splits a SKILL.md (the whole file text) into its sections. Pure and total: a file without frontmatter or with an
 * empty body gives no body sections.
 */
export function splitSkillSections(text: string): SkillSections {
  const f = frame(text);
  const bodyLine = f.close + 2;
  const lines = bodyLinesOf(f);
  const n = lines.length;
  const body = lines.join("\n");
  const blocks = body.trim() === "" ? [] : topLevelBlocks(body);
  const spans = blocks.length === 0 ? [] : blocks.some((b) => b.type === "heading") ? headingSpans(blocks, n) : blockSpans(blocks, n);
  const used = new Map<string, number>();
  const sections = spans.map((s): SkillSection => {
    const own = lines.slice(s.from, s.to);
    const contentHash = sectionHash(own);
    // Skip the blank lines the span starts with (a first section owns the body's leading blank lines).
    let first = s.from;
    while (first < s.to - 1 && (lines[first] ?? "").trim() === "") first++;
    let id = `${s.path.map(slug).join("/")}#${contentHash.slice(0, HASH_DIGITS)}`;
    const seen = used.get(id) ?? 0;
    used.set(id, seen + 1);
    if (seen > 0) id = `${id}-${seen + 1}`;
    return {
      id,
      heading: s.heading,
      path: s.path,
      kind: s.kind,
      startLine: bodyLine + first,
      endLine: bodyLine + lastNonBlank(lines, first, s.to),
      contentHash,
    };
  });
  const description = descriptionSection(f);
  return { bodyLine, sections, ...(description ? { description } : {}) };
}

export const DESCRIPTION_SECTION_ID = "frontmatter/description";

/** The `description:` entry of the frontmatter, key through value, as a section. */
function descriptionSection(f: Frame): SkillSection | undefined {
  if (f.close < 0) return undefined;
  const read = readFrontmatterYaml(f.lines.slice(1, f.close).join("\n"));
  if (!read.ok || !isMap(read.doc.contents)) return undefined;
  const counter = read.counter;
  const pair = read.doc.contents.items.find((p) => isScalar(p.key) && p.key.value === "description");
  const key = pair?.key as { range?: [number, number, number] } | undefined;
  const value = pair?.value as { range?: [number, number, number] } | null | undefined;
  if (!key?.range) return undefined;
  const end = value?.range ? value.range[1] : key.range[1];
  // YAML starts on file line 2.
  const startLine = counter.linePos(key.range[0]).line + 1;
  let endLine = counter.linePos(Math.max(key.range[0], end)).line + 1;
  // A block scalar's range ends at the start of the next line: step back onto the last line of the value.
  if (endLine > startLine && counter.linePos(end).col === 1) endLine--;
  const own = f.lines.slice(startLine - 1, endLine);
  return { id: DESCRIPTION_SECTION_ID, heading: "description (frontmatter)", path: ["description"], kind: "description", startLine, endLine, contentHash: sectionHash(own) };
}

/**
 * The body the agent reads once the given sections are deleted: parseSkill's body of the same file with those
 * sections' lines cut out. Throws on an id the file does not have (the caller checked the skill is the one evaluated).
 */
export function bodyWithout(text: string, removeIds: readonly string[]): string {
  const f = frame(text);
  const lines = bodyLinesOf(f);
  const split = splitSkillSections(text);
  const owned = ownedRanges(split, lines.length);
  const drop = new Set<number>();
  for (const id of removeIds) {
    const r = owned.get(id);
    if (!r) throw new Error(`no section ${id} in this skill`);
    for (let i = r.from; i < r.to; i++) drop.add(i);
  }
  return lines.filter((_, i) => !drop.has(i)).join("\n").trimEnd();
}

/**
 * The file lines (1-based, inclusive) that deleting a section removes from the file: from its first line up to the
 * line before the next section (its trailing blank lines go with it). The quick fix deletes exactly these.
 */
export function sectionDeletionRange(text: string, id: string): { startLine: number; endLine: number } | undefined {
  const f = frame(text);
  const split = splitSkillSections(text);
  const r = ownedRanges(split, bodyLinesOf(f).length).get(id);
  if (!r) return undefined;
  const sec = split.sections.find((s) => s.id === id)!;
  return { startLine: sec.startLine, endLine: split.bodyLine + r.to - 1 };
}

function ownedRanges(split: SkillSections, n: number): Map<string, { from: number; to: number }> {
  const out = new Map<string, { from: number; to: number }>();
  split.sections.forEach((s, i) => {
    const next = split.sections[i + 1];
    out.set(s.id, { from: i === 0 ? 0 : s.startLine - split.bodyLine, to: next ? next.startLine - split.bodyLine : n });
  });
  return out;
}
