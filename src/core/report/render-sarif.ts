/**
 * `report --format sarif`: harmful skills and harmful sections as SARIF 2.1.0 results on their SKILL.md lines, so
 * GitHub code scanning annotates the lines that cost accuracy. A skill significantly harmful after Holm (badge
 * "harmful") is an error on its `name:` line; a section whose removal repairs significantly more tasks than it breaks
 * is an error on its line range after Holm across the skill's sections, a warning before adjustment only. Each message
 * gives the effect (RAE for a skill, the section's contribution for a section), its interval and the p-value.
 *
 * Pure: the caller passes how to read a file. When the SKILL.md on disk is not the version evaluated (its content
 * hash differs), the lines are still those of the evaluated version and the message says so.
 */
import { frame } from "../skills/frontmatter.js";
import { skillContentHash } from "../skills/hash.js";
import { sarifLog, sarifUri, type SarifResultInput, type SarifRule } from "../../shared/sarif.js";
import { interval, pValue, signed } from "./format.js";
import type { Evaluation, Report, SkillResult } from "./schema.js";
import type { SectionResult } from "./sections-schema.js";

export interface SarifOptions {
  /** Results' paths are relative to this folder (the repository root). */
  root: string;
  /** The text of a skill file, or undefined when it cannot be read (the result then points at line 1). */
  readText?: (file: string) => string | undefined;
  toolVersion: string;
  /** Path separator of the files' paths (tests of Windows paths). */
  sep?: string;
}

export const REPORT_SARIF_RULES: SarifRule[] = [
  {
    id: "harmful-skill",
    shortDescription: "The skill is significantly harmful: where it was retrieved, it harmed more tasks than it rescued (Holm-adjusted p ≤ alpha).",
    help: "Open the report's harmed tasks to see what the skill makes the model do; run `skill-following ablate` to find the sections responsible, then fix or remove them.",
    defaultLevel: "error",
  },
  {
    id: "harmful-section",
    shortDescription: "Removing this section repaired significantly more tasks than it broke (Holm-adjusted across the skill's sections).",
    help: "Rewrite or remove the section, then evaluate the skill again.",
    defaultLevel: "error",
  },
  {
    id: "harmful-section-unadjusted",
    shortDescription: "Removing this section repaired more tasks than it broke, significant before the Holm adjustment only.",
    help: "Treat as a lead, not a finding: evaluate on more tasks before changing the section.",
    defaultLevel: "warning",
  },
];

interface Located {
  uri: string;
  text: string | undefined;
  changed: boolean;
}

function locate(s: SkillResult, o: SarifOptions): Located | undefined {
  if (!s.file) return undefined;
  const text = o.readText?.(s.file);
  const evaluated = s.ablation?.contentHash ?? s.contentHash;
  return { uri: sarifUri(s.file, o.root, o.sep), text, changed: text !== undefined && skillContentHash(text) !== evaluated };
}

/** The `name:` line of the frontmatter (the skill as a whole), else line 1. */
function nameRegion(text: string | undefined) {
  if (text !== undefined) {
    const f = frame(text);
    for (let i = 1; i < f.close; i++) {
      const l = f.lines[i] ?? "";
      if (/^name\s*:/.test(l)) return { startLine: i + 1, startColumn: 1, endLine: i + 1, endColumn: l.length + 1 };
    }
  }
  return { startLine: 1, startColumn: 1, endLine: 1, endColumn: 4 };
}

function sectionRegion(x: SectionResult, text: string | undefined) {
  const lines = text === undefined ? undefined : frame(text).lines;
  const endLine = Math.max(x.startLine, x.endLine);
  const last = lines?.[endLine - 1];
  return { startLine: x.startLine, startColumn: 1, endLine, ...(last === undefined ? {} : { endColumn: last.length + 1 }) };
}

const context = (e: Evaluation) => `model ${e.model}, task set ${e.taskSet}`;
const changedNote = (l: Located) => (l.changed ? " SKILL.md has changed since this run: the lines are those of the version evaluated." : "");

function skillResult(e: Evaluation, s: SkillResult, l: Located): SarifResultInput {
  const t = s.table;
  const message =
    `Skill ${s.name} is harmful: RAE ${signed(t.effect)} ${interval(t.ci)}, p (Holm) ${pValue(s.pHolm)}; ` +
    `where it was retrieved (${t.n} tasks) it harmed ${t.harmed} and rescued ${t.rescued} (${context(e)}, alpha ${e.alpha}).${changedNote(l)}`;
  return {
    ruleId: "harmful-skill",
    level: "error",
    message,
    uri: l.uri,
    region: nameRegion(l.changed ? undefined : l.text),
    properties: { skill: s.name, contentHash: s.contentHash, rae: t.effect, ci: t.ci, pHolm: s.pHolm, harmedTasks: s.harmedTasks },
  };
}

function sectionResult(e: Evaluation, s: SkillResult, x: SectionResult, l: Located): SarifResultInput {
  const t = x.table;
  const adjusted = x.verdict === "harms";
  const message =
    `Section "${x.heading}" of ${s.name} harms: effect ${signed(t.effect)} ${interval(t.ci)} (accuracy with the section minus without it), ` +
    `${adjusted ? `p (Holm) ${pValue(x.pHolm)}` : `p ${pValue(t.pMid)} before Holm (${pValue(x.pHolm)} after)`}; removing it repaired ${t.repaired} and broke ${t.broken} of ${t.n} tasks ` +
    `(${context(e)}).${changedNote(l)}`;
  return {
    ruleId: adjusted ? "harmful-section" : "harmful-section-unadjusted",
    level: adjusted ? "error" : "warning",
    message,
    uri: l.uri,
    region: sectionRegion(x, l.changed ? undefined : l.text),
    properties: { skill: s.name, section: x.id, effect: t.effect, ci: t.ci, pMid: t.pMid, pHolm: x.pHolm, repairedTasks: x.repairedTasks },
  };
}

export function renderSarif(report: Report, o: SarifOptions): string {
  const results: SarifResultInput[] = [];
  for (const e of report.evaluations) {
    for (const s of e.skills) {
      const harmfulSections = s.sections.filter((x) => x.verdict === "harms" || x.verdict === "harms-unadjusted");
      if (s.badge !== "harmful" && harmfulSections.length === 0) continue;
      const l = locate(s, o);
      if (!l) continue;
      if (s.badge === "harmful") results.push(skillResult(e, s, l));
      for (const x of harmfulSections) results.push(sectionResult(e, s, x, l));
    }
  }
  return `${JSON.stringify(sarifLog({ name: "skill-following", version: o.toolVersion }, REPORT_SARIF_RULES, results), null, 2)}\n`;
}
