import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { DEFAULT_SKILL_ROOTS, findSkillRoots } from "../core/skills/index.js";
import { TOOL_VERSION } from "../core/version.js";
import { sarifLog, sarifUri, type SarifLevel } from "../shared/sarif.js";
import { counted } from "../shared/format.js";
import { choice, parse } from "./args.js";
import { countBySeverity, lintRules, lintSkills, type LintFinding, type LintResult, type Severity } from "./lint.js";

export const LINT_USAGE = `usage: skill-following lint [<skills-dir|skill-dir|SKILL.md>...] [--format text|json|sarif] [--out <file>]
Checks SKILL.md files (the editor's rules: Agent Skills specification and skill-creator's quick_validate.py) and each
skill's evals/evals.json, without calling a model. Default paths: ${DEFAULT_SKILL_ROOTS.join(", ")} under the current folder.
sarif is SARIF 2.1.0 with paths relative to the current folder (upload it to GitHub code scanning).
Exit codes: 0 clean or warnings only; 1 errors found; 2 bad input (a path that does not exist, an unknown option).`;

const options = {
  format: { type: "string" },
  out: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

const FORMATS = ["text", "json", "sarif"] as const;

export async function lintCommand(argv: string[], logger: Logger, cwd = process.cwd()): Promise<number> {
  const { values, positionals } = parse(argv, options, LINT_USAGE, "lint");
  const format = choice(values.format, "--format", FORMATS, "text");
  for (const p of positionals) {
    if (!existsSync(path.resolve(cwd, p))) throw new InputError(`${p}: no such file or folder`, { hint: "skill-following lint takes skills folders, skill folders or SKILL.md files." });
  }
  // An evals/evals.json names its skill: the skill folder is linted (its SKILL.md and its evals).
  const paths = positionals.length > 0 ? positionals.map((p) => skillOf(path.resolve(cwd, p))) : findSkillRoots(cwd);
  if (paths.length === 0) throw new InputError(`no skills folder here (${DEFAULT_SKILL_ROOTS.join(", ")}): name the folders to lint`, { hint: "skill-following lint <skills-folder>" });
  const result = await lintSkills(paths);
  const output = { text: renderLintText, json: renderLintJson, sarif: renderLintSarif }[format](result, cwd);
  if (values.out) {
    try {
      mkdirSync(path.dirname(path.resolve(cwd, values.out)), { recursive: true });
      writeFileSync(path.resolve(cwd, values.out), output);
    } catch (e) {
      throw new InputError(`${values.out}: cannot write: ${(e as Error).message}; choose another --out`, { file: values.out, cause: e });
    }
    logger.info(`wrote ${values.out}`);
  } else {
    process.stdout.write(output);
  }
  const counts = countBySeverity(result.findings);
  if (format !== "text" || values.out) logger.info(summary(result, counts));
  return counts.error > 0 ? 1 : 0;
}

function skillOf(abs: string): string {
  return /(^|[\\/])evals[\\/]evals\.json$/i.test(abs) ? path.dirname(path.dirname(abs)) : abs;
}

function summary(result: LintResult, c: Record<Severity, number>): string {
  return `${counted(result.files, "file")} (${counted(result.skills, "skill")}): ${counted(c.error, "error")}, ${counted(c.warning, "warning")}, ${counted(c.info, "note")}`;
}

const rel = (file: string, cwd: string) => {
  const r = path.relative(cwd, file);
  return r.startsWith("..") || path.isAbsolute(r) ? file : r;
};

/** `file:line:column: severity code: message`, then each quick fix; a summary line last. */
export function renderLintText(result: LintResult, cwd: string): string {
  const lines: string[] = [];
  for (const f of result.findings) {
    lines.push(`${rel(f.file, cwd)}:${f.line}:${f.column}: ${f.severity} ${f.code}: ${f.message}`);
    for (const fix of f.fixes) lines.push(`  quick fix: ${fix.title}`);
  }
  lines.push(summary(result, countBySeverity(result.findings)));
  return `${lines.join("\n")}\n`;
}

export function renderLintJson(result: LintResult, cwd: string): string {
  const rules = new Map(lintRules().map((r) => [r.id, r]));
  const findings = result.findings.map((f) => ({
    file: rel(f.file, cwd),
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    severity: f.severity,
    code: f.code,
    message: f.message,
    help: rules.get(f.code)?.help,
    sources: rules.get(f.code)?.sources ?? [],
    fixes: f.fixes.map((x) => ({ title: x.title, edits: x.edits })),
  }));
  return `${JSON.stringify({ tool: "skill-following", version: TOOL_VERSION, files: result.files, skills: result.skills, summary: countBySeverity(result.findings), findings }, null, 2)}\n`;
}

const LEVEL: Record<Severity, SarifLevel> = { error: "error", warning: "warning", info: "note" };

export function renderLintSarif(result: LintResult, cwd: string): string {
  const rules = lintRules().map((r) => ({ id: r.id, shortDescription: r.description, help: r.help, defaultLevel: LEVEL[r.severity], sources: r.sources }));
  const results = result.findings.map((f: LintFinding) => ({
    ruleId: f.code,
    level: LEVEL[f.severity],
    message: f.message,
    uri: sarifUri(f.file, cwd, path.sep),
    region: { startLine: f.line, startColumn: f.column, endLine: f.endLine ?? f.line, endColumn: f.endColumn ?? f.column },
    fixes: f.fixes.map((x) => ({
      description: x.title,
      replacements: x.edits.map((e) => ({ region: { startLine: e.line + 1, startColumn: e.start + 1, endLine: e.line + 1, endColumn: e.end + 1 }, text: e.text })),
    })),
  }));
  return `${JSON.stringify(sarifLog({ name: "skill-following", version: TOOL_VERSION }, rules, results), null, 2)}\n`;
}
