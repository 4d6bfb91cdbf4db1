// test-requires: shared-data
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildReport, renderHtml, ReportSchema } from "../../../src/core/report/index.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { header, pair } from "./fixtures.js";

// CommonJS output: __dirname is test/unit/report.
const repoRoot = path.resolve(__dirname, "../../..");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const golden: any = JSON.parse(readFileSync(path.resolve(repoRoot, "../shared/data/stats-golden.json"), "utf8"));

test("paradox: retrieval on easy tasks, harm where retrieved → positive lift, negative RAE, flag and explanation", () => {
  const records: RunRecord[] = [];
  const ids: string[] = [];
  const add = (prefix: string, count: number, yMinus: boolean, yPlus: boolean, skills: string[]) => {
    for (let i = 0; i < count; i++) {
      ids.push(`${prefix}${i}`);
      records.push(...pair(`${prefix}${i}`, yMinus, yPlus, skills));
    }
  };
  // 40 easy tasks trigger retrieval: 30 pass either way, 10 pass only without skills (harmed).
  add("easy-pass-", 30, true, true, ["style-guide"]);
  add("easy-harmed-", 10, true, false, ["style-guide"]);
  // 60 hard tasks never retrieve: 12 pass, 48 fail, no effect.
  add("hard-pass-", 12, true, true, []);
  add("hard-fail-", 48, false, false, []);
  const report = buildReport([{ header: header({ taskIds: ids }, ["style-guide"]), records }]);
  ReportSchema.parse(report);
  const e = report.evaluations[0]!;
  // lift = 30/40 − 12/60 = 0.55 > 0; RAE = −10/40 < 0.
  assert.ok(Math.abs(e.lift! - 0.55) < 1e-15, `lift ${e.lift}`);
  assert.equal(e.retrieved.effect, -0.25);
  assert.equal(e.metrics.RAE, -0.25);
  assert.equal(e.metrics.NRAE, 0);
  assert.equal(e.metrics.paradox, true);
  assert.match(e.metrics.paradoxExplanation!, /hurt/);
  // Decomposition: lift = selection term + RAE − NRAE; selection = acc−(R) − acc−(not R) = 1 − 0.2.
  assert.ok(Math.abs(e.metrics.selectionTerm! - 0.8) < 1e-15);
  assert.ok(Math.abs(e.metrics.selectionTerm! + e.metrics.RAE! - e.metrics.NRAE! - e.lift!) < 1e-15);
  assert.equal(e.skills[0]!.badge, "harmful");
  // The only skill is returned exactly on the retrieved tasks, so its lift is the evaluation's and it shows the paradox.
  assert.ok(Math.abs(e.skills[0]!.lift! - 0.55) < 1e-15);
  assert.equal(e.skills[0]!.paradox, true);
  // The HTML figure draws it in a shaded disagreement quadrant.
  const html = renderHtml(report);
  assert.match(html, /<svg [^>]*role="img"/);
  assert.match(html, /<circle [^>]*fill="#c0392b"/);
  // And the control: same tasks without harm → no paradox.
  const calm = buildReport([{ header: header({ taskIds: ["a", "b"] }, ["s"]), records: [...pair("a", true, true, ["s"]), ...pair("b", false, false)] }]);
  assert.equal(calm.evaluations[0]!.metrics.paradox, false);
  assert.equal(calm.evaluations[0]!.metrics.paradoxExplanation, null);
});

test("per_skill golden block reproduced through buildReport from synthetic run records", () => {
  const ps = golden.per_skill;
  const records: RunRecord[] = [];
  const ids: string[] = [];
  for (const t of ps.tasks as Array<{ task: number; y_minus: number; y_plus: number; skills: string[] }>) {
    const id = `task-${t.task}`;
    ids.push(id);
    records.push(...pair(id, t.y_minus === 1, t.y_plus === 1, t.skills));
  }
  const names = (ps.per_skill as Array<{ skill: string }>).map((s) => s.skill);
  for (const [exact, holmKey, bhKey] of [[false, "midp_holm", "midp_fdr_bh"], [true, "exact_holm", "exact_fdr_bh"]] as const) {
    const e = buildReport([{ header: header({ taskIds: ids }, names), records }], { exact }).evaluations[0]!;
    ps.per_skill.forEach((g: { skill: string; n: number; a: number; b: number; c: number; d: number; RAE: number; mcnemar_exact_p: number; mid_p: number; tango: [number, number] }, i: number) => {
      const s = e.skills.find((x) => x.name === g.skill)!;
      assert.deepEqual([s.table.n, s.table.bothPass, s.table.rescued, s.table.harmed, s.table.bothFail], [g.n, g.a, g.b, g.c, g.d], g.skill);
      assert.ok(Math.abs(s.table.effect! - g.RAE) <= 1e-15, `${g.skill} RAE`);
      assert.ok(Math.abs(s.table.pExact! - g.mcnemar_exact_p) <= 1e-10 * g.mcnemar_exact_p, `${g.skill} exact`);
      assert.ok(Math.abs(s.table.pMid! - g.mid_p) <= 1e-10 * g.mid_p, `${g.skill} mid`);
      assert.ok(Math.abs(s.table.ci![0] - g.tango[0]) <= 1e-9 && Math.abs(s.table.ci![1] - g.tango[1]) <= 1e-9, `${g.skill} tango`);
      const wantHolm = ps.adjustments[holmKey].adjusted[i];
      const wantBh = ps.adjustments[bhKey].adjusted[i];
      assert.ok(Math.abs(s.pHolm! - wantHolm) <= 1e-10 * wantHolm, `${g.skill} ${holmKey}`);
      assert.ok(Math.abs(s.pBH! - wantBh) <= 1e-10 * wantBh, `${g.skill} ${bhKey}`);
      const rejected = ps.adjustments[holmKey].reject[i];
      assert.equal(s.badge === "helpful" || s.badge === "harmful", rejected, `${g.skill} badge`);
      // Rescued/harmed lists agree with the counts.
      assert.equal(s.rescuedTasks.length, g.b);
      assert.equal(s.harmedTasks.length, g.c);
    });
  }
});
