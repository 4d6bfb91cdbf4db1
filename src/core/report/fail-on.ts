import type { Report } from "./schema.js";

export type FailOnMode = "harmful" | "any-harm";

/**
 * The `report --fail-on` gate. "harmful": some skill is significantly harmful after Holm at alpha (adjusted p ≤
 * alpha, more harmed than rescued). "any-harm": any skill, or the retrieved subset, harmed more tasks than it rescued.
 */
export function failOn(report: Report, mode: FailOnMode, alpha = 0.05): boolean {
  for (const e of report.evaluations) {
    if (mode === "harmful") {
      if (e.skills.some((s) => s.pHolm !== null && s.pHolm <= alpha && s.table.harmed > s.table.rescued)) return true;
    } else {
      if (e.retrieved.harmed > e.retrieved.rescued) return true;
      if (e.skills.some((s) => s.table.harmed > s.table.rescued)) return true;
    }
  }
  return false;
}
