import type { Finding } from "../core/skills/types.js";

/**
 * The YAML parser's messages ("Nested mappings are not allowed in compact mappings") as plain sentences that say
 * where and what to do, for the diagnostics of a SKILL.md's frontmatter. No `vscode` import: tested under plain node.
 * A message not listed keeps the parser's words, still after the plain lead and the position.
 */
const PLAIN: [RegExp, string][] = [
  [/^Nested mappings are not allowed in compact mappings/, "a value contains \u201c: \u201d, which YAML reads as a second key; put the value in double quotes"],
  [/^Map keys must be unique/, "this key appears twice; keep one of them"],
  [/^Implicit keys need to be on a single line/, "a line was expected to be a \u201ckey: value\u201d pair; check the indentation and quotes above it"],
  [/^Implicit map keys need to be followed by map values/, "this line is not a \u201ckey: value\u201d pair; add the colon or quote the text"],
  [/^Flow sequence in block collection must be sufficiently indented and end with a \]/, "a list that starts with \u201c[\u201d is not closed with \u201c]\u201d; close it or quote the value"],
  [/^Flow map in block collection must be sufficiently indented and end with a \}/, "a map that starts with \u201c{\u201d is not closed with \u201c}\u201d; close it or quote the value"],
  [/^Missing closing "quote/, "a double quote is opened and never closed; close it on the same value"],
  [/^Missing closing 'quote/, "a single quote is opened and never closed; close it on the same value"],
  [/^Tabs are not allowed as indentation/, "YAML indentation must be spaces, not tabs"],
  [/^All mapping items must start at the same column/, "the keys of the frontmatter must start at the same column; fix the indentation"],
];

/** `Line 3, column 14: the frontmatter is not valid YAML: a value contains “: ” …` for yaml-syntax / yaml-warning findings. */
export function plainYamlMessage(f: Pick<Finding, "code" | "message" | "line" | "column">): string {
  if (f.code !== "yaml-syntax" && f.code !== "yaml-warning") return f.message;
  const raw = f.message.replace(/^YAML (error|warning):\s*/, "").replace(/\s+at line \d+, column \d+:?\s*$/, "");
  const plain = PLAIN.find(([re]) => re.test(raw))?.[1];
  const what = plain ?? `the parser says \u201c${raw.replace(/[.:]\s*$/, "")}\u201d`;
  const lead = f.code === "yaml-syntax" ? "the frontmatter is not valid YAML" : "the frontmatter's YAML is questionable";
  return `Line ${f.line}, column ${f.column}: ${lead}: ${what}.`;
}
