import { interval, pLabel, signed } from "../shared/format.js";
import type { SkillResult } from "./report-view-model.js";
import { scopeOf } from "./result-configs.js";

/**
 * The words of an evaluated skill's CodeLens and diagnostic, without `vscode`, so a unit test holds them to the same
 * number formats as the report and the exports (the one formatter in src/shared/format.ts).
 */

/** `n task` / `n tasks`. */
export function tasks(n: number): string {
  return `${n} ${n === 1 ? "task" : "tasks"}`;
}

/** `RAE −0.12 [−0.25, 0.01]`, `RAE −0.12` without an interval, `RAE n/a` (never `RAE n/a n/a`). */
export function raeText(r: Pick<SkillResult, "rae" | "low" | "high">): string {
  const ci = interval(r.low, r.high);
  return r.rae === null || r.rae === undefined || !Number.isFinite(r.rae) ? "RAE n/a" : `RAE ${signed(r.rae)}${ci === interval(null, null) ? "" : ` ${ci}`}`;
}

type LensResult = Pick<SkillResult, "rae" | "low" | "high" | "rescued" | "harmed"> & Partial<Pick<SkillResult, "model" | "taskSet" | "librarySize" | "libraryHash" | "n">>;

/** Which configuration a result is about: `gpt-4o-mini on math-word`, `… in a library of 3 skills`. */
export function configLabel(r: Partial<Pick<SkillResult, "model" | "taskSet" | "librarySize" | "libraryHash">>): string {
  const lib = scopeOf(r) === "skill" ? "" : ` in a library of ${r.librarySize} skills`;
  return `${r.model ?? "?"} on ${r.taskSet ?? "?"}${lib}`;
}

/** `RAE −0.12 [−0.25, 0.01] · 3 rescued · 7 harmed · gpt-4o-mini on math-word` (+ ` · stale` after an edit). */
export function lensTitle(result: LensResult, stale: boolean): string {
  const what = result.model && result.taskSet ? ` \u00b7 ${configLabel(result)}` : "";
  const numbers = result.n === 0 ? "not retrieved" : `${raeText(result)} \u00b7 ${result.rescued} rescued \u00b7 ${result.harmed} harmed`;
  return `${numbers}${what}${stale ? " \u00b7 stale" : ""}`;
}

/** One word for a result's verdict, for the `also:` line: harmful, harms, helps, inconclusive, not retrieved. */
export function verdictWord(r: Pick<SkillResult, "harmed" | "rescued" | "flag" | "n">): string {
  if (r.n === 0) return "not retrieved";
  const kind = verdictKind(r);
  if (kind === "harmful") return "significantly harmful";
  if (kind === "harms") return `harmed ${r.harmed}, rescued ${r.rescued} (not significant)`;
  if (kind === "helps") return `rescued ${r.rescued}, harmed ${r.harmed}`;
  return "inconclusive";
}

/** `also: gpt-4o on math-word in a library of 3 skills — inconclusive; …` (the first three), or "". */
export function alsoText(others: readonly SkillResult[], max = 3): string {
  if (others.length === 0) return "";
  const shown = others.slice(0, max).map((r) => `${configLabel(r)} \u2014 ${verdictWord(r)}`);
  const more = others.length > max ? `; ${others.length - max} more in the Skill Following view` : "";
  return `also: ${shown.join("; ")}${more}`;
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
export function verdictMessage(result: SkillResult, stale: boolean, extra = "", others: readonly SkillResult[] = []): string | undefined {
  const kind = verdictKind(result);
  if (!kind) return undefined;
  const also = others.length > 0 ? ` A${alsoText(others).slice(1)}.` : "";
  const numbers = `${raeText(result)}, n = ${result.n}${result.pHolm === null ? "" : `, ${pLabel(result.pHolm, "Holm p")}`}`;
  const lib = scopeOf(result) === "skill" ? "" : ` in a library of ${result.librarySize} skills`;
  const where = `on ${result.taskSet} with ${result.model}${lib}${stale ? " (stale: the skill changed since; re-evaluate)" : ""}`;
  const note = result.note ? ` Verdict: ${result.note}.` : "";
  if (kind === "helps") return `This skill rescued ${tasks(result.rescued)} and harmed ${result.harmed} where it was retrieved (${numbers}) ${where}.${note}${also}`;
  const lead = kind === "harmful" ? "Significantly harmful after Holm correction: this" : "This";
  return `${lead} skill harmed ${tasks(result.harmed)} and rescued ${result.rescued} where it was retrieved (${numbers}) ${where}.${note}${extra}${also}`;
}
