import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Report } from "../core/report/schema.js";
import { skillContentHash } from "../core/skills/hash.js";
import type { Stale } from "../shared/report-view.js";

/**
 * Whether a report still shows the latest about its skill: no, when the SKILL.md changed since the run (its content
 * hash differs), or when a newer run of the same skill exists (the last one the CodeLens shows). No `vscode` import:
 * the extension passes in where the latest run of a skill is.
 */
export function reportStaleness(report: Report, runFiles: readonly string[], latestRunOf: (skillFile: string) => string | undefined): Stale | undefined {
  if (runFiles.length !== 1) return undefined;
  const skills = (report.evaluations[0]?.skills ?? []).filter((s) => s.inLibrary && s.file);
  if (skills.length === 0) return undefined;
  const single = skills.length === 1 ? path.resolve(skills[0]!.file!) : undefined;
  const changed = skills.filter((s) => {
    const file = path.resolve(s.file!);
    if (!existsSync(file)) return false;
    return skillContentHash(readFileSync(file, "utf8")) !== s.contentHash;
  });
  const latest = single ? latestRunOf(single) : undefined;
  const newer = latest && path.resolve(latest) !== path.resolve(runFiles[0]!) && existsSync(latest) ? latest : undefined;
  if (changed.length === 0 && !newer) return undefined;
  const reasons: string[] = [];
  if (newer) reasons.push(`a newer run of ${skills[0]!.name} exists`);
  if (changed.length > 0) reasons.push(`${changed.map((s) => s.name).join(", ")} changed since this run`);
  return {
    reason: `${reasons.join("; ")}.`,
    ...(newer ? { latestRunFile: newer } : {}),
    ...(single ? { skillFile: single } : {}),
  };
}
