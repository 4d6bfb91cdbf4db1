/**
 * Lossless JSON for EvalPlus inputs. The files are written by Python's `json.dumps`, so they contain
 * integers beyond 2^53 (Mbpp/77, HumanEval/34 ...), floats with an integral value (`5.0`, `1e+20`) and the
 * non-standard tokens `Infinity`, `-Infinity`, `NaN` (Mbpp/404). `JSON.parse` rejects the latter and turns
 * the others into JS numbers that Python would then see as different values or types (`5.0` -> int `5`).
 *
 * `parseJsonLossless` keeps every such number token as a marker string (`PY_NUMBER_PREFIX + token`);
 * `stringifyJsonLossless` writes the marker back as the raw token, producing JSON that Python's
 * `json.loads` reads into exactly the values EvalPlus uses. Marker strings survive ordinary JSON round trips
 * (run files, caches), so a task keeps its exact inputs wherever it travels.
 */
export const PY_NUMBER_PREFIX = "\u0000pynum:";

const NUMBER = /-?(?:Infinity|NaN|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/y;

/** Whether a number token would lose its Python value or type in a JS number. */
function needsMarker(token: string): boolean {
  if (token.endsWith("Infinity") || token.endsWith("NaN")) return true;
  const value = Number(token);
  if (/[.eE]/.test(token)) return Number.isInteger(value); // a float JS would print as an int
  return !Number.isSafeInteger(value);
}

/** Parses one JSON text (one JSONL line) without losing Python number semantics. Throws SyntaxError like JSON.parse. */
export function parseJsonLossless(text: string): unknown {
  // Fast path: nothing that can need a marker.
  if (!/Infinity|NaN|\d{16}|\d\.\d*[eE]|\d[eE]|\.0\b|\.0[eE,\]}\s]/.test(text)) return JSON.parse(text);
  let out = "";
  let last = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip a string literal, honouring escapes.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x49 /* I */ || c === 0x4e /* N */) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m) {
        const token = m[0];
        if (needsMarker(token)) {
          out += text.slice(last, i) + JSON.stringify(PY_NUMBER_PREFIX + token);
          last = i + token.length;
        }
        i += token.length;
        continue;
      }
    }
    i++;
  }
  return JSON.parse(out + text.slice(last));
}

/** JSON text for Python's `json.loads`: marker strings become their raw number tokens again. */
export function stringifyJsonLossless(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" && v.startsWith(PY_NUMBER_PREFIX) ? `${MARK_OPEN}${v.slice(PY_NUMBER_PREFIX.length)}${MARK_CLOSE}` : v)).replace(
    MARK_RE,
    (_m, token: string) => token,
  );
}
// Private-use delimiters that JSON.stringify leaves unescaped, so the raw token can be spliced in afterwards.
const MARK_OPEN = "\uE000\uE001";
const MARK_CLOSE = "\uE001\uE000";
const MARK_RE = /"\uE000\uE001([^"\uE001]*)\uE001\uE000"/g;
