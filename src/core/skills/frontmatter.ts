/**
 * Reading a SKILL.md's frontmatter as YAML in time linear in its size, for parseSkill and the section splitter.
 *
 * The `yaml` package is linear on its own, with three exceptions this module removes:
 * - its duplicate-key check compares every key with every earlier one (`uniqueKeys`: a 589 KB frontmatter of
 *   60,000 fields took 67 s), so parsing runs with `uniqueKeys: false` and `duplicateKeys` does the same check
 *   with one set per map;
 * - every nesting level is a few stack frames, so a frontmatter of `[[[[…` overflows the stack part-way through
 *   (the library catches that, but an overflow can land anywhere): `nestingDepth` refuses deep nesting first;
 * - size: the frontmatter is capped at MAX_FRONTMATTER_BYTES (every field the format defines fits in 3 KB).
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node as YamlNode } from "yaml";

/** Largest frontmatter read (the YAML between the `---` lines). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Deepest nesting of YAML collections read; the format needs 2 (metadata), and the library overflows near 800. */
export const MAX_YAML_NESTING = 100;

/** The lines of a file (CRLF, CR and LF each one break) and the index of the closing `---` (-1: none). */
export interface Frame {
  lines: string[];
  close: number;
}

/** Splits a SKILL.md into lines (BOM dropped) and finds its frontmatter: line 0 is `---`, the next `---`/`...` closes. */
export function frame(text: string): Frame {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = src.split(/\r\n|\r|\n/);
  if ((lines[0] ?? "").trimEnd() !== "---") return { lines, close: -1 };
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] ?? "").trimEnd();
    if (l === "---" || l === "...") return { lines, close: i };
  }
  return { lines, close: -1 };
}

/** A problem found before or while reading the YAML: an offset range in the YAML text and a message. */
export interface YamlProblem {
  pos: [number, number];
  message: string;
}

export type YamlRead =
  | { ok: true; doc: Document.Parsed; counter: LineCounter; warnings: YamlProblem[] }
  | { ok: false; tooLarge?: number; errors: YamlProblem[]; counter: LineCounter };

/**
 * An upper bound on how deeply the YAML nests, in one pass: block nesting (a stack of indents, plus compact `- `,
 * `? ` and `: ` indicators at the start of a line) plus the depth of open flow brackets. Brackets inside quoted or
 * plain scalars count too, so the bound can only be too high, never too low.
 */
export function nestingDepth(yaml: string): { depth: number; offset: number } {
  const indents: number[] = [];
  let flow = 0;
  let max = 0;
  let at = 0;
  let lineStart = 0;
  for (const line of yaml.split("\n")) {
    let i = 0;
    while (i < line.length && line.charCodeAt(i) === 0x20) i++;
    if (i < line.length && line[i] !== "#") {
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= i) indents.pop();
      indents.push(i);
      let compact = 0;
      // A tab after an indicator is an error to the library, which still nests on it (and `?\t` 3,000 times over
      // made V8's regexp compiler abort the process on the next parse): tabs count as separators here.
      while (i < line.length && "-?:".includes(line[i] as string) && (i + 1 === line.length || line[i + 1] === " " || line[i + 1] === "\t")) {
        compact++;
        i += 2;
        while (i < line.length && (line.charCodeAt(i) === 0x20 || line.charCodeAt(i) === 0x09)) i++;
      }
      const block = indents.length + compact;
      if (block + flow > max) [max, at] = [block + flow, lineStart + i];
      for (; i < line.length; i++) {
        const c = line[i];
        if (c === "[" || c === "{") {
          flow++;
          if (block + flow > max) [max, at] = [block + flow, lineStart + i];
        } else if ((c === "]" || c === "}") && flow > 0) flow--;
      }
    }
    lineStart += line.length + 1;
  }
  return { depth: max, offset: at };
}

/**
 * Parses the frontmatter's YAML text with the caps above. Errors come back in document order (duplicate keys
 * included, as the library would report them: "Map keys must be unique" at the later key).
 */
export function readFrontmatterYaml(yamlText: string): YamlRead {
  const bytes = Buffer.byteLength(yamlText, "utf8");
  if (bytes > MAX_FRONTMATTER_BYTES) return { ok: false, tooLarge: bytes, errors: [], counter: lineCounterOf("") };
  const nest = nestingDepth(yamlText);
  if (nest.depth > MAX_YAML_NESTING) {
    const message = `nesting deeper than ${MAX_YAML_NESTING} levels; frontmatter this deep is not read: keep it flat (name, description and metadata need 2 levels)`;
    return { ok: false, errors: [{ pos: [nest.offset, nest.offset + 1], message }], counter: lineCounterOf(yamlText) };
  }
  const counter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
  } catch (e) {
    return { ok: false, errors: [{ pos: [0, 0], message: `the YAML parser failed: ${(e as Error).message}` }], counter };
  }
  const errors: YamlProblem[] = [...doc.errors.map((e) => ({ pos: e.pos, message: e.message })), ...duplicateKeys(doc)];
  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => a.pos[0] - b.pos[0]), counter };
  return { ok: true, doc, counter, warnings: doc.warnings.map((w) => ({ pos: w.pos, message: w.message })) };
}

/** The line starts of a text, as the parser would have recorded them. */
function lineCounterOf(text: string): LineCounter {
  const counter = new LineCounter();
  counter.addNewLine(0);
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) counter.addNewLine(i + 1);
  return counter;
}

/** The key a map's duplicate check compares by (the library's rule: scalars by value, anything else by identity). */
function keyId(key: unknown): string | undefined {
  if (!isScalar(key)) return undefined;
  const v = key.value;
  if (typeof v === "number") return Number.isNaN(v) ? undefined : `n:${v}`;
  if (typeof v === "string") return `s:${v}`;
  if (typeof v === "boolean" || typeof v === "bigint") return `${typeof v}:${String(v)}`;
  if (v === null || v === undefined) return "null";
  return undefined;
}

/** "Map keys must be unique" for every later repeat of a key in any map of the document: one set per map. */
function duplicateKeys(doc: Document.Parsed): YamlProblem[] {
  const out: YamlProblem[] = [];
  // An explicit stack instead of the library's recursive visit: nesting is bounded above, but need not be trusted.
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const id = keyId(pair.key);
        if (id !== undefined) {
          if (seen.has(id)) {
            const start = (pair.key as YamlNode).range?.[0] ?? 0;
            out.push({ pos: [start, start + 1], message: "Map keys must be unique" });
          }
          seen.add(id);
        }
        stack.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
  return out;
}
