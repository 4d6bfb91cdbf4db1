/**
 * JUnit XML: one test case per task pair (harmed = failure, incomplete = skipped), one suite per evaluation, plus
 * one case per skill that fails when the skill is significantly harmful after Holm. CI systems show these natively.
 */
import type { Evaluation, Report } from "./schema.js";
import { escapeXml as x, pValue, signed, title } from "./format.js";

function suite(e: Evaluation): string {
  const reasons = new Map(e.taskRows.map((r) => [r.taskId, r]));
  const cls = `skill-following.${e.taskSet}`;
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const p of e.pairs) {
    const name = `${p.taskId}${p.retrieved ? " [retrieved]" : ""}`;
    if (p.outcome === "harmed") {
      failures++;
      const r = reasons.get(p.taskId);
      const detail = r
        ? `skills: ${r.retrieved.map((s) => s.name).join(", ") || "none"}\nenabled: ${r.enabledReason}\ndisabled: ${r.disabledReason}`
        : "";
      cases.push(`    <testcase classname="${x(cls)}" name="${x(name)}"><failure type="harmed" message="${x(`harmed: passes without skills, fails with them`)}">${x(detail)}</failure></testcase>`);
    } else {
      cases.push(`    <testcase classname="${x(cls)}" name="${x(name)}"><system-out>${x(p.outcome)}</system-out></testcase>`);
    }
  }
  for (const id of e.tasks.incompleteIds) {
    skipped++;
    cases.push(`    <testcase classname="${x(cls)}" name="${x(id)}"><skipped message="incomplete: one condition has no finished run"/></testcase>`);
  }
  for (const s of e.skills) {
    const significant = s.pHolm !== null && s.pHolm <= e.alpha && s.table.harmed > s.table.rescued;
    const name = `skill ${s.name}: RAE ${signed(s.table.effect)}, Holm p ${pValue(s.pHolm)}`;
    if (significant) {
      failures++;
      cases.push(`    <testcase classname="${x(`${cls}.skills`)}" name="${x(name)}"><failure type="harmful-skill" message="${x(`${s.name} is significantly harmful after Holm at alpha ${e.alpha}`)}">${x(`harmed: ${s.harmedTasks.join(", ")}`)}</failure></testcase>`);
    } else {
      cases.push(`    <testcase classname="${x(`${cls}.skills`)}" name="${x(name)}"/>`);
    }
  }
  return `  <testsuite name="${x(title(e))}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}">\n${cases.join("\n")}\n  </testsuite>`;
}

export function renderJUnit(report: Report): string {
  const suites = report.evaluations.map(suite);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="skill-following">\n${suites.join("\n")}\n</testsuites>\n`;
}
