/**
 * Deterministic final-answer extraction from a model's math answer: the last `\boxed{…}` (or `\fbox{…}`)
 * with balanced braces, else the last `Answer:` (or GSM8K-style `#### N`) line, else the last number.
 * Returns null when the text has none of these.
 */
export function extractMathAnswer(text: string): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed;
  const line = lastAnswerLine(text);
  if (line !== null) return line;
  return lastNumber(text);
}

/** Content of the last well-formed `\boxed{…}` / `\fbox{…}` / `\boxed 5`; escaped braces `\{ \}` do not count. */
export function lastBoxed(text: string): string | null {
  const re = /\\(?:boxed|fbox)(?![A-Za-z])/g;
  const starts: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) starts.push(m.index + m[0].length);
  if (starts.length === 0) return null;
  // One pass matches every brace pair, so many unclosed boxes cannot make the search quadratic.
  const closeOf = new Map<number, number>();
  const open: number[] = [];
  for (let j = 0; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") j++;
    else if (c === "{") open.push(j);
    else if (c === "}") {
      const o = open.pop();
      if (o !== undefined) closeOf.set(o, j);
    }
  }
  // From the last occurrence backwards: an unterminated last box should not hide a good earlier one.
  for (let k = starts.length - 1; k >= 0; k--) {
    let i = starts[k] as number;
    while (text[i] === " ") i++;
    if (text[i] !== "{") {
      // `\boxed 5`: one token up to whitespace or `$`.
      const tok = /^[^\s$]+/.exec(text.slice(i, i + 200))?.[0];
      if (tok) return tok;
      continue;
    }
    const close = closeOf.get(i);
    if (close === undefined) continue;
    const inner = text.slice(i + 1, close).trim();
    if (inner !== "") return inner;
  }
  return null;
}

const ANSWER_LINE = /(?:^|[^A-Za-z])(?:final\s+)?answer\s*(?:is\s*)?[:：]\s*(.*)$/i;
const HASHES_LINE = /^\s*####\s*(.+)$/;

/** The last `Answer: X` / `**Final Answer:** X` / `#### X` line; a bare `Answer:` takes the next non-empty line. */
export function lastAnswerLine(text: string): string | null {
  const lines = text.split(/\r\n|\r|\n/);
  // From the end backwards, `next` is the first non-empty line after line k: one pass, where searching forward
  // from every bare `Answer:` line would be quadratic (a reply of 100k of them took 72 s).
  let next: string | undefined;
  for (let k = lines.length - 1; k >= 0; k--) {
    const raw = lines[k] as string;
    const line = raw.replace(/\*\*|__/g, "");
    const m = ANSWER_LINE.exec(line) ?? HASHES_LINE.exec(line);
    if (m) {
      let value = cleanAnswer(m[1] ?? "");
      if (value === "") value = cleanAnswer(next ?? "");
      if (value !== "") return value;
    }
    if (raw.trim() !== "") next = raw;
  }
  return null;
}

function cleanAnswer(s: string): string {
  let v = stripBackticks(s.trim().replace(/\.$/, "")).trim();
  // `$x$`, `\(x\)`, `\[x\]` around the whole answer.
  const wrapped = /^\$\$?([\s\S]*?)\$?\$$/.exec(v) ?? /^\\\(([\s\S]*)\\\)$/.exec(v) ?? /^\\\[([\s\S]*)\\\]$/.exec(v);
  if (wrapped) v = (wrapped[1] ?? "").trim();
  return v.replace(/\.$/, "").trim();
}

/** `s` without its leading and trailing backticks; a loop, since /`+$/ rescans a long inner run at every backtick. */
function stripBackticks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) === 0x60) a++;
  while (b > a && s.charCodeAt(b - 1) === 0x60) b--;
  return s.slice(a, b);
}

const NUMBER = /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?|-?\.\d+/g;

/** The last number in the text (thousands commas removed), e.g. the `18` of a GSM8K worked solution. */
export function lastNumber(text: string): string | null {
  let last: string | null = null;
  for (const m of text.matchAll(NUMBER)) last = m[0];
  return last === null ? null : last.replace(/,/g, "");
}
