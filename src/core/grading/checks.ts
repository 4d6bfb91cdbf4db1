import type { CheckType, ExpectationResult } from "../../shared/vocabulary/index.js";

/** A deterministic assertion of a skill eval (`{type, value}`; regex may carry flags). */
export interface Check {
  type: CheckType;
  value: string;
  name?: string;
  flags?: string;
}

/** How a check reads in results: its name, else the check itself. */
export function checkText(c: Check): string {
  if (c.name) return c.name;
  if (c.type === "json_valid") return "the output is valid JSON";
  return `${c.type} ${JSON.stringify(c.value)}${c.type === "regex" && c.flags ? ` (flags ${c.flags})` : ""}`;
}

const shown = (s: string, n = 80) => JSON.stringify(s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Line number (1-based) of a character offset. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function excerpt(text: string, at: number, length: number): string {
  const start = Math.max(0, at - 20);
  return shown(text.slice(start, Math.min(text.length, at + length + 20)).replace(/\s+/g, " "), 100);
}

/**
 * Runs one check on the final output. Never throws: a check that cannot run (a regex the loader let through but this
 * engine refuses) fails with the reason as its evidence.
 */
export function runCheck(c: Check, output: string): ExpectationResult {
  const text = checkText(c);
  const result = (passed: boolean, evidence: string): ExpectationResult => ({ text, passed, evidence, check: c.type });
  switch (c.type) {
    case "contains":
    case "icontains":
    case "not_contains": {
      const hay = c.type === "icontains" ? output.toLowerCase() : output;
      const needle = c.type === "icontains" ? c.value.toLowerCase() : c.value;
      const at = hay.indexOf(needle);
      const found = at >= 0 ? `found at line ${lineOf(output, at)}: ${excerpt(output, at, needle.length)}` : `not found in the output (${output.length} characters)`;
      return result(c.type === "not_contains" ? at < 0 : at >= 0, found);
    }
    case "regex": {
      let re: RegExp;
      try {
        // g and y make a RegExp stateful (lastIndex); one test per output needs neither.
        re = new RegExp(c.value, (c.flags ?? "").replace(/[gy]/g, ""));
      } catch (e) {
        return result(false, `the regular expression does not compile here: ${(e as Error).message}`);
      }
      const m = re.exec(output);
      return m ? result(true, `matched ${shown(m[0])} at line ${lineOf(output, m.index)}`) : result(false, `no match in the output (${output.length} characters)`);
    }
    case "equals": {
      const ok = output.trim() === c.value.trim();
      return result(ok, ok ? "the output equals the value (ignoring leading and trailing whitespace)" : `the output is ${shown(output.trim())}`);
    }
    case "json_valid": {
      const body = unfence(output.trim());
      try {
        JSON.parse(body);
        return result(true, `parses as JSON (${body.length} characters)`);
      } catch (e) {
        return result(false, `not valid JSON: ${(e as Error).message}`);
      }
    }
  }
}

/** The content of an output that is one fenced block and nothing else (```json … ```); otherwise the output itself. */
function unfence(text: string): string {
  const m = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1$/.exec(text);
  return m ? m[2]! : text;
}
