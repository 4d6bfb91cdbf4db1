import type { Finding } from "./types.js";

/**
 * Every `Finding.code` the skills module emits, with its severity and whether the skill is skipped.
 * The codes are a stable contract: diagnostics, CLI output and tests refer to them by id.
 * "skips" means the file yields no Skill (it cannot be offered to an agent); everything else loads.
 */
export const SKILL_FINDING_CODES = {
  "read-error": { severity: "error", skips: true, doc: "The file or folder could not be read (permissions, vanished)." },
  "path-not-found": { severity: "error", skips: true, doc: "A configured skills path does not exist." },
  "no-skill-file": { severity: "warning", skips: true, doc: "A path holds no SKILL.md (neither itself nor in a sub-folder)." },
  "nested-skill": { severity: "warning", skips: true, doc: "A SKILL.md two folders deep (<root>/<group>/<name>/SKILL.md); agents only look one level down." },
  "file-too-large": { severity: "error", skips: true, doc: "SKILL.md is larger than the 1 MB cap." },
  "binary-file": { severity: "error", skips: true, doc: "The file contains NUL bytes or is UTF-16; save it as UTF-8 text." },
  "encoding": { severity: "error", skips: true, doc: "The file is not valid UTF-8; the finding points at the first bad byte." },
  "file-name-case": { severity: "warning", skips: false, doc: "The skill file is not spelled exactly `SKILL.md`." },
  "bom": { severity: "info", skips: false, doc: "The file starts with a UTF-8 byte-order mark (harmless; dropped)." },
  "frontmatter-missing": { severity: "error", skips: true, doc: "The file does not start with a `---` frontmatter block." },
  "frontmatter-unterminated": { severity: "error", skips: true, doc: "The frontmatter has no closing `---` line." },
  "frontmatter-too-large": { severity: "error", skips: true, doc: "The frontmatter is larger than 64 KB (the fields the format defines fit in 3 KB)." },
  "frontmatter-not-mapping": { severity: "error", skips: true, doc: "The frontmatter is not a YAML mapping of keys to values." },
  "yaml-syntax": { severity: "error", skips: true, doc: "The frontmatter is not valid YAML (duplicate keys and nesting over 100 levels included)." },
  "yaml-warning": { severity: "warning", skips: false, doc: "The YAML parser warns about the frontmatter." },
  "name-missing": { severity: "error", skips: true, doc: "No `name` field, or it is empty or not a string." },
  "name-unsafe": { severity: "error", skips: true, doc: "The name contains a path separator or `..`." },
  "name-length": { severity: "error", skips: false, doc: "The name is longer than 64 characters." },
  "name-format": { severity: "error", skips: false, doc: "The name uses characters other than a-z, 0-9 and `-`, or a leading, trailing or double hyphen." },
  "name-folder-mismatch": { severity: "warning", skips: false, doc: "The name differs from the skill's folder name." },
  "duplicate-name": { severity: "error", skips: true, doc: "Another scanned skill already has this name; the later one is skipped." },
  "description-missing": { severity: "error", skips: true, doc: "No `description` field, or it is empty or not a string." },
  "description-too-long": { severity: "error", skips: false, doc: "The description is longer than 1024 characters." },
  "description-angle-brackets": { severity: "error", skips: false, doc: "The description contains `<` or `>` (skill-creator's quick_validate.py rejects it; Claude.ai refuses XML tags in frontmatter)." },
  "compatibility-too-long": { severity: "error", skips: false, doc: "`compatibility` is longer than 500 characters." },
  "field-not-string": { severity: "warning", skips: false, doc: "`name` or `description` is a YAML number or boolean; it loads as typed, but skill-creator's quick_validate.py requires a string." },
  "field-type": { severity: "warning", skips: false, doc: "An optional field has the wrong type (license, compatibility, metadata, allowed-tools); it is ignored." },
  "unknown-field": { severity: "info", skips: false, doc: "A frontmatter key the Agent Skills format does not define." },
  "body-empty": { severity: "warning", skips: false, doc: "Nothing after the frontmatter: the agent gets no instructions when it loads the skill." },
  "body-long": { severity: "info", skips: false, doc: "The body is over 500 lines or 5000 words; consider moving detail into referenced files." },
} as const satisfies Record<string, { severity: Finding["severity"]; skips: boolean; doc: string }>;

export type SkillFindingCode = keyof typeof SKILL_FINDING_CODES;

/** Builds a finding whose severity comes from the code table, so the two can never drift apart. */
export function finding(
  code: SkillFindingCode,
  file: string,
  message: string,
  at: { line: number; column: number; endLine?: number; endColumn?: number } = { line: 1, column: 1 },
): Finding {
  return { file, ...at, severity: SKILL_FINDING_CODES[code].severity, code, message };
}
