import { test } from "node:test";
import assert from "node:assert/strict";
import { buildReport, failOn, ReportSchema, renderText } from "../../../src/core/report/index.js";
import { mixtureEValues, repeatedSamples } from "../../../src/core/stats/index.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { header, pair, rec } from "./fixtures.js";

test("RAE-only design: overall/notRetrieved not estimable (null), RAE from the paired subset, lift from enabled runs, savings expected vs actual", () => {
  const ids = Array.from({ length: 10 }, (_, i) => `t${i}`);
  const records: RunRecord[] = [
    ...pair("t0", false, true, ["s"]),
    ...pair("t1", false, true, ["s"]),
    ...pair("t2", true, false, ["s"]),
    ...pair("t3", true, true, ["s"]),
    rec("t4", "enabled", true, ["s"]), // retrieved, disabled side still missing → incomplete
  ];
  for (let i = 5; i < 10; i++) records.push(rec(`t${i}`, "enabled", i < 6)); // not retrieved: no disabled by design
  const report = buildReport([{ header: header({ taskIds: ids, design: "rae-only" }, ["s"]), records }]);
  ReportSchema.parse(report);
  const e = report.evaluations[0]!;
  assert.equal(e.design, "rae-only");
  assert.match(e.definitions.tables, /only the retrieved table \(RAE\) is estimable/);
  assert.equal(e.overall, null);
  assert.equal(e.notRetrieved, null);
  assert.equal(e.metrics.OAE, null);
  assert.equal(e.metrics.NRAE, null);
  assert.equal(e.metrics.selectionTerm, null);
  assert.deepEqual([e.retrieved.n, e.retrieved.rescued, e.retrieved.harmed], [4, 2, 1]);
  assert.equal(e.retrieved.effect, 0.25);
  assert.deepEqual(e.tasks, { planned: 10, complete: 9, incomplete: 1, incompleteIds: ["t4"] });
  // Lift from enabled runs of all 10 tasks: acc+(R) = 4/5 (t0,t1,t3,t4 pass), acc+(not R) = 1/5.
  assert.ok(Math.abs(e.lift! - 0.6) < 1e-15, `lift ${e.lift}`);
  // r = 5/10; OAE under A0 = r·RAE.
  assert.equal(e.metrics.retrievalRate, 0.5);
  assert.equal(e.metrics.oaeUnderA0, 0.125);
  // 9 runs done (4 pairs + t4 enabled + 5 enabled... = 8 + 1 + 5 = 14) of 20 for the full design.
  assert.equal(e.costs.runs, 14);
  assert.equal(e.costs.fullDesignRuns, 20);
  assert.ok(Math.abs(e.costs.actualSaving! - 0.3) < 1e-15);
  assert.equal(e.costs.raeOnlyExpectedSaving, 0.25);
  assert.equal(e.noise.floor, null);
  assert.match(renderText(report), /not estimable/);
});

test("k > 1: tables pair sample 0, 'retrieved' means any enabled sample, paired t over all samples is reported with an A/A floor", () => {
  const k = 3;
  // per task: enabled passes, disabled passes, which enabled sample retrieves
  const plan: Array<[string, number, number, number | null]> = [
    ["a", 3, 1, 0],
    ["b", 2, 2, 1], // only sample 1 retrieves: still a retrieved task
    ["c", 0, 2, 0],
    ["d", 1, 1, null],
    ["e", 3, 0, 2],
  ];
  const records: RunRecord[] = [];
  for (const [id, sp, sm, retrievedAt] of plan) {
    for (let s = 0; s < k; s++) {
      records.push(rec(id, "enabled", s < sp, s === retrievedAt ? ["s"] : [], s));
      records.push(rec(id, "disabled", s < sm, [], s));
    }
  }
  const e = buildReport([{ header: header({ taskIds: plan.map((p) => p[0]), params: { samples: k, maxTurns: 6 } }, ["s"]), records }]).evaluations[0]!;
  assert.equal(e.samples, 3);
  assert.match(e.definitions.tables, /sample 0/);
  assert.match(e.definitions.retrieved, /any of its enabled runs/);
  // Sample 0: a (1,1) both pass; b (1,1); c (0,1) harmed; d (1,1) not retrieved; e (1,0) rescued.
  assert.deepEqual([e.retrieved.n, e.retrieved.bothPass, e.retrieved.rescued, e.retrieved.harmed], [4, 2, 1, 1]);
  assert.equal(e.notRetrieved!.n, 1);
  const want = repeatedSamples([3, 2, 0, 3], k, [1, 2, 2, 0], k);
  assert.ok(e.repeated);
  assert.ok(Math.abs(e.repeated.retrieved.deltaHat! - want.deltaHat!) < 1e-15);
  assert.deepEqual(e.repeated.retrieved.ci, want.ci);
  assert.equal(e.repeated.retrieved.tasks, 4);
  assert.equal(e.repeated.overall!.tasks, 5);
  // A/A floor: mean over tasks of 2·s(k − s)/(k(k − 1)) for disabled passes [1, 2, 2, 1, 0].
  const q = [1, 2, 2, 1, 0].map((s) => (2 * s * (k - s)) / (k * (k - 1)));
  assert.ok(Math.abs(e.noise.floor! - q.reduce((x, y) => x + y, 0) / 5) < 1e-15);
  const row = e.taskRows.find((r) => r.taskId === "c")!;
  assert.equal(row.passRateEnabled, 0);
  assert.ok(Math.abs(row.passRateDisabled! - 2 / 3) < 1e-15);
});

test("failOn: 'harmful' needs Holm significance; 'any-harm' fires on any skill or the retrieved subset with harmed > rescued", () => {
  const mild = buildReport([{ header: header({ taskIds: ["a", "b", "c"] }, ["s"]), records: [...pair("a", true, false, ["s"]), ...pair("b", true, false, ["s"]), ...pair("c", false, true, ["s"])] }]);
  assert.equal(failOn(mild, "harmful", 0.05), false);
  assert.equal(failOn(mild, "any-harm", 0.05), true);
  const records: RunRecord[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    ids.push(`t${i}`);
    records.push(...pair(`t${i}`, true, false, ["s"]));
  }
  const bad = buildReport([{ header: header({ taskIds: ids }, ["s"]), records }]);
  assert.equal(failOn(bad, "harmful", 0.05), true);
  // Holm p for 12 harmed of 12 is 2^-12 ≈ 0.00024: not significant at alpha 1e-4.
  assert.equal(failOn(bad, "harmful", 1e-4), false);
  const good = buildReport([{ header: header({ taskIds: ["a"] }, ["s"]), records: pair("a", false, true, ["s"]) }]);
  assert.equal(failOn(good, "any-harm"), false);
  assert.equal(failOn(good, "harmful"), false);
});

test("stopping: the report replays the monitor in the recorded order and states the reason and the anytime-valid interval", () => {
  // 30 retrieved discordant pairs, the golden mixture sequence (helpful decided at pair 28), then 2 concordant.
  const seq = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1];
  const ids: string[] = [];
  const records: RunRecord[] = [];
  seq.forEach((x, i) => {
    ids.push(`t${i}`);
    records.push(...pair(`t${i}`, !x, !!x, ["s"]));
  });
  const h = header({ taskIds: ids, stopWhen: "decided", shuffleSeed: 7 }, ["s"]);
  const e = buildReport([{ header: h, records, stops: [{ type: "stop", reason: "decided: helpful (E_help ≥ 40)", at: "2026-11-29T12:00:02.000Z", tasksDone: 30 }] }]).evaluations[0]!;
  assert.ok(e.stopping);
  assert.equal(e.stopping.rule, "decided");
  assert.equal(e.stopping.reason, "decided: helpful (E_help ≥ 40)");
  assert.equal(e.stopping.decided, "helpful");
  assert.equal(e.stopping.threshold, 40);
  assert.equal(e.stopping.tasksObserved, 30);
  const S = seq.filter((x) => x).length;
  assert.equal(e.stopping.eHelp, mixtureEValues(S, 30 - S).eHelpful);
  assert.ok(e.stopping.cs[0] > -1 && e.stopping.cs[1] <= 1 && e.stopping.cs[0] < e.retrieved.effect! && e.retrieved.effect! < e.stopping.cs[1]);
  // No stop rule and no stop records: no stopping block at all.
  assert.equal(buildReport([{ header: header({ taskIds: ["a"] }), records: pair("a", true, true) }]).evaluations[0]!.stopping, null);
});
