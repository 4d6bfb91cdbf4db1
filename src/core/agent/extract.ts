import { extractMathAnswer } from "../grading/math.js";
import type { Task } from "../tasks/schema.js";

/**
 * The longest model reply that answer extraction reads (1 Mi characters, about 250k tokens: far beyond any
 * max_tokens an evaluation sets). A longer reply is not read at all: it gets no answer, and the run's verdict
 * says why (see `replyOverCap`). Reading only a prefix would be wrong, since the answer is the *last* block.
 */
export const MAX_REPLY_CHARS = 1024 * 1024;

/** Why a reply is not read, or undefined when it is within the cap. The agent loop records this on the run. */
export function replyOverCap(text: string | null): string | undefined {
  if (text === null || text.length <= MAX_REPLY_CHARS) return undefined;
  return `the reply is ${text.length} characters, over the ${MAX_REPLY_CHARS}-character limit of answer extraction; it was not read`;
}

/**
 * Deterministic final-answer extraction. Code: the last fenced python block (```python / ```py), else the last
 * untagged fenced block. Math: the math grader's extractor (last \boxed{}, else an `Answer:` line, else the last number).
 * Both read the reply in linear time; a reply over MAX_REPLY_CHARS has no answer.
 */
export function extractAnswer(task: Task, text: string | null): string | null {
  if (!text || replyOverCap(text) !== undefined) return null;
  return task.kind === "python-function" ? extractPythonCode(text) : extractMathAnswer(text);
}

interface FenceLine {
  /** The run of backticks or tildes, e.g. "````". */
  fence: string;
  /** The info string's language tag: the leading [A-Za-z0-9_+-] run after the fence and blanks. */
  lang: string;
  /** Only blanks after the fence: the line can close a block opened with the same fence. */
  closes: boolean;
}

const isBlank = (c: number) => c === 0x20 || c === 0x09;
const isLangChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2b || c === 0x2d;

/** Reads one line as a fence line (blanks, then 3 or more ` or ~), in time linear in the line. */
function fenceLine(line: string): FenceLine | undefined {
  let i = 0;
  while (i < line.length && isBlank(line.charCodeAt(i))) i++;
  const c = line.charCodeAt(i);
  if (c !== 0x60 && c !== 0x7e) return undefined;
  let j = i;
  while (j < line.length && line.charCodeAt(j) === c) j++;
  if (j - i < 3) return undefined;
  let k = j;
  while (k < line.length && isBlank(line.charCodeAt(k))) k++;
  let e = k;
  while (e < line.length && isLangChar(line.charCodeAt(e))) e++;
  return { fence: line.slice(i, j), lang: line.slice(k, e).toLowerCase(), closes: k === line.length };
}

/**
 * The last fenced python block, else the last untagged one, as a line scanner (the regex it replaces backtracked
 * over every unclosed fence: a 320 KB reply of them took 109 s). Same rules as that regex: a block opens on a fence
 * line followed by a newline and closes on the next line holding exactly the same fence and blanks; an opener
 * with no closer is skipped and the scan goes on with the next line. Lines end at LF (CRLF is read as LF).
 * Each line is looked at a constant number of times: closers are indexed per fence, with a cursor that only
 * moves forward.
 */
export function extractPythonCode(text: string): string | null {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const fences = lines.map(fenceLine);
  const closers = new Map<string, { at: number[]; next: number }>();
  fences.forEach((f, i) => {
    if (!f?.closes) return;
    const c = closers.get(f.fence);
    if (c) c.at.push(i);
    else closers.set(f.fence, { at: [i], next: 0 });
  });
  let lastTagged: [number, number] | undefined;
  let lastUntagged: [number, number] | undefined;
  // The last line has no newline after it, so it cannot open a block.
  for (let i = 0; i < lines.length - 1; i++) {
    const f = fences[i];
    if (!f) continue;
    const c = closers.get(f.fence);
    if (!c) continue;
    while (c.next < c.at.length && (c.at[c.next] as number) <= i) c.next++;
    if (c.next === c.at.length) continue;
    const close = c.at[c.next] as number;
    if (f.lang === "python" || f.lang === "py" || f.lang === "python3") lastTagged = [i + 1, close];
    else if (f.lang === "") lastUntagged = [i + 1, close];
    i = close;
  }
  const range = lastTagged ?? lastUntagged;
  if (!range) return null;
  // The block's text is its lines, each with its newline (the closer's own line is not part of it).
  const code = lines.slice(range[0], range[1]).map((l) => `${l}\n`).join("");
  return code.trim() !== "" ? code.trimEnd() + "\n" : null;
}
