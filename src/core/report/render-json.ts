import type { Report } from "./schema.js";

/** The JSON contract of `report --format json` (issue 2): `{ "evaluations": [ ... ] }` plus additive fields. */
export function renderJson(report: Report): string {
  return JSON.stringify(report, null, 2);
}
