import { interval, pLabel, raeSummary, signed } from "../shared/format.js";
import type { SkillResult } from "./report-view-model.js";

/**
 * The words of an evaluated skill's CodeLens and diagnostic, without `vscode`, so a unit test holds them to the same
 * number formats as the report and the exports (the one formatter in src/shared/format.ts).
 */

/** `RAE −0.12 [−0.25, 0.01] · 3 rescued · 7 harmed · gpt-4o-mini on math-word` (+ ` · stale` after an edit). */
export function lensTitle(result: Pick<SkillResult, "rae" | "low" | "high" | "rescued" | "harmed"> & Partial<Pick<SkillResult, "model" | "taskSet">>, stale: boolean): string {
  const what = result.model && result.taskSet ? ` \u00b7 ${result.model} on ${result.taskSet}` : "";
  return `${raeSummary(result)}${what}${stale ? " \u00b7 stale" : ""}`;
}

export type VerdictKind = "harmful" | "harms" | "helps";

/** Which verdict a result gets, if any: more harmed than rescued (significant after Holm: harmful), or the reverse. */
export function verdictKind(result: Pick<SkillResult, "harmed" | "rescued" | "flag">): VerdictKind | undefined {
  if (result.harmed > result.rescued) return result.flag === "harmful" ? "harmful" : "harms";
  if (result.rescued > result.harmed) return "helps";
  return undefined;
}

/**
 * The diagnostic's message: what the skill did where it was retrieved, the numbers, where they come from, and, when
 * the verdict depends on the multiplicity family, the note that says so (the report shows the same note).
 */
export function verdictMessage(result: SkillResult, stale: boolean, extra = ""): string | undefined {
  const kind = verdictKind(result);
  if (!kind) return undefined;
  const numbers = `RAE ${signed(result.rae)} ${interval(result.low, result.high)}, n = ${result.n}${result.pHolm === null ? "" : `, ${pLabel(result.pHolm, "Holm p")}`}`;
  const where = `on ${result.taskSet} with ${result.model}${stale ? " (stale: the skill changed since; re-evaluate)" : ""}`;
  const note = result.note ? ` Verdict: ${result.note}.` : "";
  if (kind === "helps") return `This skill rescued ${result.rescued} tasks and harmed ${result.harmed} where it was retrieved (${numbers}) ${where}.${note}`;
  const lead = kind === "harmful" ? "Significantly harmful after Holm correction: this" : "This";
  return `${lead} skill harmed ${result.harmed} tasks and rescued ${result.rescued} where it was retrieved (${numbers}) ${where}.${note}${extra}`;
}
