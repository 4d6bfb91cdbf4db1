/**
 * `lint`: the editor's checks of a skill library, for CI. SKILL.md files get parseSkill's findings (the diagnostics
 * VS Code shows) and the quick fixes that resolve them; each loadable skill's evals/evals.json gets the located
 * issues the skill-evals loader reports. Nothing here calls a model or runs code.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { SKILL_FINDING_CODES, scanSkills, type Finding, type Skill, type SkillFindingCode } from "../core/skills/index.js";
import { skillFixes, type SkillFix } from "../core/skills/fixes.js";
import { SKILL_RULES, type RuleSource } from "../core/skills/rules.js";
import { EVALS_FILE, NOT_APPLIED, checkSkillEvalsFile } from "../core/tasks/skill-evals.js";
import type { TaskLoadIssue } from "../core/tasks/schema.js";

export type Severity = Finding["severity"];

/** One rule `lint` applies: a SKILL.md finding code or an evals.json check. */
export interface LintRule {
  id: string;
  severity: Severity;
  description: string;
  help: string;
  sources: (RuleSource | EvalsRuleSource)[];
}

type EvalsRuleSource = "skill-creator references/schemas.md" | "Agent Skills evals guide" | "agent-skills-eval src/skill.ts" | "skill-following";

/** The evals.json checks (src/core/tasks/evals-file.ts, skill-evals.ts), by what their messages say. */
export const EVALS_RULES = {
  "evals-syntax": {
    severity: "error",
    description: "evals/evals.json cannot be read as JSON (syntax, encoding, size).",
    help: "Fix the JSON at the position given (no comments, no trailing commas; UTF-8; at most 4 MB).",
    sources: ["skill-following"],
  },
  "evals-schema": {
    severity: "error",
    description: "A field of evals/evals.json is missing, unknown or of the wrong type; that case (or the file) is skipped.",
    help: 'Follow skill-creator\'s shape: {"skill_name", "evals": [{"id", "prompt", "expected_output", "files", "expectations"}]} (or "assertions").',
    sources: ["skill-creator references/schemas.md", "Agent Skills evals guide"],
  },
  "evals-duplicate-id": {
    severity: "error",
    description: "Two eval cases share an id; the later one is skipped.",
    help: "Give every case its own id.",
    sources: ["skill-following"],
  },
  "evals-file-ref": {
    severity: "error",
    description: "A case's files entry is absolute, leaves the skill folder, or does not exist; the case is skipped.",
    help: "List files relative to the skill folder (e.g. evals/files/input.txt) and add them.",
    sources: ["skill-creator references/schemas.md", "skill-following"],
  },
  "evals-attachment-size": {
    severity: "warning",
    description: "An attached file is over the size cap; it is listed by name and size, not inlined.",
    help: "Attach a smaller file (64 KB per file, 256 KB per case are inlined).",
    sources: ["skill-following"],
  },
  "evals-not-applied": {
    severity: "info",
    description: "A field of agent-skills-eval (defaults, or a case's params, tools, tool_assertions, runtime_checks, …) is read but not applied by this tool; the cases still load.",
    help: "Nothing to fix for agent-skills-eval; here every task runs with the run's model settings and the skill tools only. Keep the field if you also run agent-skills-eval.",
    sources: ["agent-skills-eval src/skill.ts"],
  },
  "evals-skill-name": {
    severity: "warning",
    description: "skill_name differs from the skill's frontmatter name.",
    help: "Set skill_name to the skill's name (or remove it).",
    sources: ["skill-creator references/schemas.md"],
  },
} as const satisfies Record<string, Omit<LintRule, "id">>;
export type EvalsRuleId = keyof typeof EVALS_RULES;

/** Every rule, SKILL.md codes first: `tool.driver.rules` and `--format json`'s rule list. */
export function lintRules(): LintRule[] {
  const skill = (Object.keys(SKILL_FINDING_CODES) as SkillFindingCode[]).map((id) => ({
    id,
    severity: SKILL_FINDING_CODES[id].severity,
    description: SKILL_FINDING_CODES[id].doc,
    help: SKILL_RULES[id].help,
    sources: SKILL_RULES[id].sources,
  }));
  const evals = (Object.keys(EVALS_RULES) as EvalsRuleId[]).map((id) => ({ id, ...EVALS_RULES[id], sources: [...EVALS_RULES[id].sources] }));
  return [...skill, ...evals];
}

/** A finding with the fixes that would resolve it (0-based edits, end exclusive, as skillFixes gives them). */
export interface LintFinding extends Finding {
  fixes: SkillFix[];
}

export interface LintResult {
  findings: LintFinding[];
  /** SKILL.md files read and evals.json files checked. */
  files: number;
  skills: number;
}

/** Which evals rule an issue's message belongs to (the loader's messages are its contract: skill-evals.ts). */
export function evalsRuleOf(message: string): EvalsRuleId {
  if (/^not valid JSON|^the file is empty|^cannot read|^not UTF-8|over the \d+-byte limit/.test(message)) return "evals-syntax";
  if (message.startsWith("duplicate eval id")) return "evals-duplicate-id";
  if (/^files\[\d+\].*listed by name and size only/.test(message)) return "evals-attachment-size";
  if (/^files\[\d+\]/.test(message)) return "evals-file-ref";
  if (message.startsWith("skill_name ")) return "evals-skill-name";
  if (message.startsWith(NOT_APPLIED)) return "evals-not-applied";
  return "evals-schema";
}

function evalsFinding(issue: TaskLoadIssue): LintFinding {
  const code = evalsRuleOf(issue.message);
  return { file: issue.file, line: issue.line, column: issue.column ?? 1, severity: EVALS_RULES[code].severity, code, message: issue.message, fixes: [] };
}

/** Lints skills folders, skill folders or SKILL.md files (as `run --skills` takes them). Paths must exist. */
export async function lintSkills(paths: string[]): Promise<LintResult> {
  const scan = await scanSkills(paths);
  const texts = new Map<string, string | undefined>();
  const textOf = (file: string) => {
    if (!texts.has(file)) {
      try {
        texts.set(file, statSync(file).isFile() ? readFileSync(file, "utf8") : undefined);
      } catch {
        texts.set(file, undefined);
      }
    }
    return texts.get(file);
  };
  const findings: LintFinding[] = scan.findings.map((f) => {
    const text = textOf(f.file);
    const fixes = text === undefined ? [] : skillFixes(f.file, text).filter((x) => x.fixes.includes(f.code as SkillFindingCode));
    return { ...withEnd(f, text), fixes };
  });
  // A skill whose SKILL.md does not load still has its evals checked, under its folder's name.
  const owners = new Map<string, Pick<Skill, "name" | "dir">>(scan.skills.map((s) => [s.dir, s]));
  for (const f of scan.findings) {
    const dir = path.dirname(path.resolve(f.file));
    if (/^skill\.md$/i.test(path.basename(f.file)) && !owners.has(dir)) owners.set(dir, { name: path.basename(dir), dir });
  }
  let evalsFiles = 0;
  for (const skill of owners.values()) {
    const file = path.join(skill.dir, EVALS_FILE);
    if (!existsSync(file)) continue;
    evalsFiles++;
    for (const issue of checkSkillEvalsFile(skill, file)) findings.push({ ...withEnd(evalsFinding(issue), textOf(file)), fixes: [] });
  }
  const skillFiles = new Set(scan.findings.map((f) => f.file).filter((f) => /skill\.md$/i.test(f)));
  for (const s of scan.skills) skillFiles.add(s.file);
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { findings, files: skillFiles.size + evalsFiles, skills: scan.skills.length };
}

/** A finding without an end is given the end of its start line, so every region (and annotation) has one. */
function withEnd<F extends Finding>(f: F, text: string | undefined): F {
  if (f.endLine !== undefined && f.endColumn !== undefined) return f;
  const line = text === undefined ? undefined : lineAt(text, f.line);
  const endColumn = line === undefined ? f.column : Math.max(f.column, line.length + 1);
  return { ...f, endLine: f.line, endColumn };
}

/** The 1-based line `n` of a text (CRLF, CR and LF each one break, as the parser counts them). */
function lineAt(text: string, n: number): string | undefined {
  return text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)[n - 1];
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const c: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) c[f.severity]++;
  return c;
}
