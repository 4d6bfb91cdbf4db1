/**
 * How deeply a JSON (or JSONC) text nests, found in one linear, non-recursive pass, so that no parser and no
 * validator downstream recurses as deep as the input asks. jsonc-parser's `parseTree`, `JSON.stringify` and zod
 * recurse once per level: a 20 KB evals.json nested 10,000 deep ended the CLI with "Maximum call stack size
 * exceeded". Every reader of files we do not write ourselves (evals, trigger sets, run files) checks this first.
 *
 * The limit is 64: the deepest file we read is a run record (record → transcript → message → toolCalls → call, 5
 * levels); an evals.json needs 4. 64 leaves more than ten times that, and it stays far below the depth where the
 * recursive consumers overflow (several hundred levels once they run inside a deep call stack of their own).
 */

/** Deepest nesting of JSON arrays and objects read from a file. */
export const MAX_JSON_NESTING = 64;

/**
 * The offset of the first `[` or `{` that opens level `limit + 1`, or undefined when the text nests at most `limit`
 * deep. Brackets inside strings (escapes respected) and comments (`//`, `/* *\/`) do not count; a text that is not
 * JSON gets an answer all the same, and the parser reports its syntax afterwards.
 */
export function firstTooDeep(text: string, limit = MAX_JSON_NESTING): number | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        // jsonc-parser ends an unterminated string at a line break, and so does this count.
        else if (s === 0x22 || s === 0x0a || s === 0x0d) break;
      }
    } else if (c === 0x2f /* / */ && text.charCodeAt(i + 1) === 0x2f) {
      for (i += 2; i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d; i++);
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return i;
    } else if ((c === 0x5d /* ] */ || c === 0x7d) /* } */ && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

/** 1-based line and column of an offset (LF line breaks; a CR before it stays in the column count, as jsonc-parser's). */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** The message for a text nested past the limit (the fix included), as every reader words it. */
export function tooDeepMessage(limit = MAX_JSON_NESTING): string {
  return `nested deeper than ${limit} levels; the file is not read: flatten it (the formats need at most 6 levels)`;
}
