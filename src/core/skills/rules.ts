import type { SkillFindingCode } from "./codes.js";

/**
 * Where each SKILL.md rule comes from, and how to fix what it finds: what `lint` prints as help and puts in SARIF's
 * `tool.driver.rules`. The sources are the Agent Skills specification (https://agentskills.io/specification) and
 * Anthropic's skill-creator validator (`skills/skill-creator/scripts/quick_validate.py` in anthropics/skills);
 * "skill-following" marks checks of our own (file safety, advice). A rule of both sources names both.
 *
 * quick_validate.py, rule by rule, and the code that covers it:
 *   SKILL.md exists (exact spelling) ............ no-skill-file, file-name-case
 *   starts with `---`, `---` … `---` block ........ frontmatter-missing, frontmatter-unterminated
 *   YAML parses, is a dictionary .................. yaml-syntax, frontmatter-not-mapping
 *   only the six allowed keys ..................... unknown-field (info here: Claude Code and Copilot define more keys)
 *   name and description present, strings ......... name-missing, description-missing, field-not-string
 *   name kebab-case, no edge/double hyphen, ≤ 64 .. name-format, name-length
 *   description without `<` `>`, ≤ 1024 ........... description-angle-brackets, description-too-long
 *   compatibility a string, ≤ 500 ................. field-type, compatibility-too-long
 * The specification adds: name matches its folder (name-folder-mismatch), metadata a string map and allowed-tools a
 * list (field-type), and the advice to keep the body under 500 lines / 5000 tokens (body-long).
 */
export type RuleSource = "agentskills.io specification" | "skill-creator quick_validate.py" | "skill-following";

const SPEC: RuleSource = "agentskills.io specification";
const QV: RuleSource = "skill-creator quick_validate.py";
const OURS: RuleSource = "skill-following";

export interface SkillRule {
  sources: RuleSource[];
  /** How to fix it, one sentence (SARIF `help`). */
  help: string;
}

export const SKILL_RULES: Record<SkillFindingCode, SkillRule> = {
  "read-error": { sources: [OURS], help: "Check the file's permissions; it must be readable." },
  "path-not-found": { sources: [OURS], help: "Fix the path, or create the skills folder." },
  "no-skill-file": { sources: [SPEC, QV], help: "A skill is a folder holding SKILL.md: add one, or remove the folder from the paths." },
  "nested-skill": { sources: [SPEC], help: "Move the skill folder up so it sits directly in the skills folder (<root>/<name>/SKILL.md)." },
  "file-too-large": { sources: [OURS], help: "Move reference material into separate files next to SKILL.md and link them from the body." },
  "binary-file": { sources: [OURS], help: "Save SKILL.md as UTF-8 text." },
  encoding: { sources: [OURS], help: "Save SKILL.md as UTF-8 text." },
  "file-name-case": { sources: [SPEC, QV], help: "Rename the file to exactly SKILL.md (case-sensitive file systems miss other spellings)." },
  bom: { sources: [OURS], help: "Save the file as UTF-8 without a byte-order mark." },
  "frontmatter-missing": { sources: [SPEC, QV], help: "Start the file with `---`, then `name:` and `description:` lines, then `---`." },
  "frontmatter-unterminated": { sources: [SPEC, QV], help: "Add a `---` line after the last frontmatter key." },
  "frontmatter-too-large": { sources: [OURS], help: "Keep only the format's fields in the frontmatter; move the rest into the body." },
  "frontmatter-not-mapping": { sources: [SPEC, QV], help: "Write the frontmatter as `key: value` lines." },
  "yaml-syntax": { sources: [SPEC, QV], help: "Fix the YAML; a description holding `: ` or ` #` must be quoted (the quick fix does it)." },
  "yaml-warning": { sources: [OURS], help: "Follow the YAML parser's advice; other parsers may read the value differently." },
  "name-missing": { sources: [SPEC, QV], help: "Add `name:` with the folder's name (lowercase a-z, 0-9, hyphens)." },
  "name-unsafe": { sources: [SPEC, OURS], help: "Use only a-z, 0-9 and hyphens in the name." },
  "name-length": { sources: [SPEC, QV], help: "Shorten the name to at most 64 characters (and rename the folder to match)." },
  "name-format": { sources: [SPEC, QV], help: "Use lowercase a-z, 0-9 and single hyphens, not at the start or end (the quick fix sets the folder's name)." },
  "name-folder-mismatch": { sources: [SPEC], help: "Make the name and the folder name the same (the quick fix sets the name to the folder's)." },
  "duplicate-name": { sources: [OURS], help: "Rename one of the skills (folder and name:); agents load only one of them." },
  "description-missing": { sources: [SPEC, QV], help: "Add `description:` saying what the skill does and when to use it." },
  "description-too-long": { sources: [SPEC, QV], help: "Shorten the description to at most 1024 characters; move detail into the body." },
  "description-angle-brackets": { sources: [QV], help: "Remove `<` and `>` from the description: write the words (\"returns\", \"less than\") instead." },
  "compatibility-too-long": { sources: [SPEC, QV], help: "Shorten `compatibility` to at most 500 characters." },
  "field-not-string": { sources: [QV], help: "Quote the value so YAML reads it as a string (name: \"2024\")." },
  "field-type": { sources: [SPEC, QV], help: "Give the field the type the format defines (license, compatibility: string; metadata: string map; allowed-tools: list)." },
  "unknown-field": { sources: [SPEC, QV], help: "Remove the key or fix its spelling (quick_validate.py rejects keys other than name, description, license, compatibility, metadata, allowed-tools)." },
  "body-empty": { sources: [OURS], help: "Write the instructions the agent follows after the closing `---`." },
  "body-long": { sources: [SPEC], help: "Keep SKILL.md under 500 lines; move detail into referenced files." },
};
