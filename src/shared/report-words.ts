import { signed } from "./format.js";
import type { ReportView } from "./report-view.js";

/** Report words the webview shows, without the DOM, so plain-node tests hold them. */

/** The lift's parts with each one's value: `difficulty gap −0.10 + RAE −0.25 − NRAE 0.00` (the terms add up to it). */
export function liftParts(h: Pick<ReportView["headline"], "selectionTerm" | "rae" | "nrae">): string {
  return `difficulty gap ${signed(h.selectionTerm)} + RAE ${signed(h.rae.value)} \u2212 NRAE ${signed(h.nrae.value)}`;
}

/** Which run failed in a flip list: the enabled one (skills loaded) for harmed tasks, the disabled one for rescued. */
export function failingSideLabel(list: "harmed" | "rescued"): string {
  return list === "harmed" ? "With skills, failed: " : "Without skills, failed: ";
}
