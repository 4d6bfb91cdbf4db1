/**
 * The host-side input code as it was before it was made linear (issue 10 item 5), kept only so the work-bound
 * tests can show that their bound catches it: each function below is the old cost centre, copied verbatim.
 * Never used by the product.
 */
import { parseDocument } from "yaml";

/** Old src/core/agent/extract.ts: a lazy fence regex, which backtracks over every unclosed fence. */
const OLD_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

export function oldExtractPythonCode(text: string): string | null {
  let lastTagged: string | null = null;
  let lastUntagged: string | null = null;
  for (const m of text.replace(/\r\n/g, "\n").matchAll(OLD_FENCE)) {
    const lang = (m[2] ?? "").toLowerCase();
    const body = m[3] ?? "";
    if (lang === "python" || lang === "py" || lang === "python3") lastTagged = body;
    else if (lang === "") lastUntagged = body;
  }
  const code = lastTagged ?? lastUntagged;
  return code !== null && code.trim() !== "" ? code.replace(/\s+$/, "") + "\n" : null;
}

const ANSWER_LINE = /(?:^|[^A-Za-z])(?:final\s+)?answer\s*(?:is\s*)?[:：]\s*(.*)$/i;
const HASHES_LINE = /^\s*####\s*(.+)$/;

/** Old src/core/grading/math-extract.ts lastAnswerLine: searches forward from every bare `Answer:` line. */
export function oldLastAnswerLine(text: string): string | null {
  const lines = text.split(/\r\n|\r|\n/);
  for (let k = lines.length - 1; k >= 0; k--) {
    const line = (lines[k] as string).replace(/\*\*|__/g, "");
    const m = ANSWER_LINE.exec(line) ?? HASHES_LINE.exec(line);
    if (!m) continue;
    let value = oldCleanAnswer(m[1] ?? "");
    if (value === "") value = oldCleanAnswer(lines.slice(k + 1).find((l) => l.trim() !== "") ?? "");
    if (value !== "") return value;
  }
  return null;
}

function oldCleanAnswer(s: string): string {
  let v = s.trim().replace(/\.$/, "").replace(/^`+|`+$/g, "").trim();
  const wrapped = /^\$\$?([\s\S]*?)\$?\$$/.exec(v) ?? /^\\\(([\s\S]*)\\\)$/.exec(v) ?? /^\\\[([\s\S]*)\\\]$/.exec(v);
  if (wrapped) v = (wrapped[1] ?? "").trim();
  return v.replace(/\.$/, "").trim();
}

/** Old src/core/skills/hash.ts normaliseSkillContent: /[ \t\f\v]+$/ per line restarts at every inner blank. */
export function oldNormaliseSkillContent(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = noBom.split(/\r\n|\r|\n/).map((l) => l.replace(/[ \t\f\v]+$/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

/** Old parseSkill's YAML read (no frontmatter cap, the library's own duplicate-key check). */
export function oldReadFrontmatter(text: string): number {
  const lines = text.split(/\r\n|\r|\n/);
  let close = -1;
  for (let i = 1; i < lines.length; i++) if (lines[i]!.trimEnd() === "---") {
    close = i;
    break;
  }
  const doc = parseDocument(lines.slice(1, close).join("\n"), { prettyErrors: false, uniqueKeys: true });
  return doc.errors.length;
}

/** Old sections.ts blockSpans grouping: tests the whole group for every block. */
export function oldGroupBlocks(types: readonly string[]): number {
  const CODE = new Set(["fence", "code_block"]);
  const groups: string[][] = [];
  for (const b of types) {
    const prev = groups[groups.length - 1];
    const prevAllCode = prev?.every((x) => CODE.has(x));
    if (prev && (CODE.has(b) || prevAllCode)) prev.push(b);
    else groups.push([b]);
  }
  return groups.length;
}
