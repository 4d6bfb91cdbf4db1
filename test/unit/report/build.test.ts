import { test } from "node:test";
import assert from "node:assert/strict";
import { buildReport, ReportSchema, renderJson, type Evaluation } from "../../../src/core/report/index.js";
import { header, pair, rec } from "./fixtures.js";

const only = (runs: Parameters<typeof buildReport>[0], opts?: Parameters<typeof buildReport>[1]): Evaluation => {
  const r = buildReport(runs, opts);
  assert.equal(r.evaluations.length, 1);
  return r.evaluations[0]!;
};

test("JSON follows the issue-2 contract exactly and validates against ReportSchema", () => {
  const records = [...pair("t1", false, true, ["alpha"]), ...pair("t2", true, false, ["alpha", "beta"]), ...pair("t3", true, true), ...pair("t4", false, false)];
  const report = buildReport([{ header: header({ taskIds: ["t1", "t2", "t3", "t4"] }, ["alpha", "beta", "gamma"]), records }]);
  const json = JSON.parse(renderJson(report));
  ReportSchema.parse(json);
  const e = json.evaluations[0];
  for (const k of ["model", "taskSet", "mode", "samples", "overall", "retrieved", "notRetrieved", "lift", "skills"]) assert.ok(k in e, k);
  for (const t of [e.overall, e.retrieved, e.notRetrieved, e.skills[0].table]) {
    for (const k of ["n", "bothPass", "rescued", "harmed", "bothFail", "effect", "pMid", "pExact", "ci"]) assert.ok(k in t, k);
  }
  for (const k of ["name", "contentHash", "table", "pHolm", "rescuedTasks", "harmedTasks"]) assert.ok(k in e.skills[0], k);
  assert.equal(e.model, "model-one");
  assert.equal(e.taskSet, "synthetic");
  assert.equal(e.mode, "catalog");
  assert.equal(e.samples, 1);
  assert.deepEqual([e.overall.n, e.overall.bothPass, e.overall.rescued, e.overall.harmed, e.overall.bothFail], [4, 1, 1, 1, 1]);
  assert.equal(e.overall.effect, 0);
  assert.deepEqual([e.retrieved.n, e.retrieved.rescued, e.retrieved.harmed], [2, 1, 1]);
  assert.deepEqual([e.notRetrieved.n, e.notRetrieved.bothPass, e.notRetrieved.bothFail], [2, 1, 1]);
  // lift = acc+(R) − acc+(not R) = 1/2 − 1/2
  assert.equal(e.lift, 0);
  const alpha = e.skills.find((s: { name: string }) => s.name === "alpha");
  assert.deepEqual([alpha.table.n, alpha.rescuedTasks, alpha.harmedTasks], [2, ["t1"], ["t2"]]);
  const beta = e.skills.find((s: { name: string }) => s.name === "beta");
  assert.deepEqual([beta.table.n, beta.table.harmed, beta.rescuedTasks, beta.harmedTasks], [1, 1, [], ["t2"]]);
  // A library skill never returned: n = 0, effect/p/CI null (never 0), not in the Holm family.
  const gamma = e.skills.find((s: { name: string }) => s.name === "gamma");
  assert.deepEqual([gamma.table.n, gamma.table.effect, gamma.table.pMid, gamma.table.ci, gamma.pHolm, gamma.badge], [0, null, null, null, null, "not-retrieved"]);
});

test("incomplete tasks (one side missing) are left out of every table and counted", () => {
  const records = [...pair("t1", false, true, ["alpha"]), rec("t2", "enabled", false, ["alpha"]), rec("t3", "disabled", true)];
  const e = only([{ header: header({ taskIds: ["t1", "t2", "t3", "t4"] }, ["alpha"]), records }]);
  assert.deepEqual(e.tasks, { planned: 4, complete: 1, incomplete: 3, incompleteIds: ["t2", "t3", "t4"] });
  assert.equal(e.overall!.n, 1);
  assert.equal(e.retrieved.n, 1);
  assert.equal(e.skills[0]!.table.n, 1);
  assert.deepEqual(e.pairs, [{ taskId: "t1", outcome: "rescued", retrieved: true }]);
});

test("empty subsets give null effects, p-values and intervals; lift null when a group is empty", () => {
  const e = only([{ header: header({ taskIds: ["t1", "t2"] }), records: [...pair("t1", true, true), ...pair("t2", false, true)] }]);
  assert.equal(e.retrieved.n, 0);
  assert.equal(e.retrieved.effect, null);
  assert.equal(e.retrieved.pMid, null);
  assert.equal(e.retrieved.ci, null);
  assert.equal(e.lift, null);
  assert.equal(e.metrics.RAE, null);
  assert.equal(e.overall!.effect, 0.5);
  const none = buildReport([]);
  assert.deepEqual(none.evaluations, []);
});

test("runs with the same model, task-set hash and mode merge; a later record with the same key wins", () => {
  const h1 = header({ taskIds: ["t1", "t2"], runId: "r1" }, ["alpha"]);
  const h2 = header({ taskIds: ["t2", "t3"], runId: "r2" }, ["alpha"]);
  const first = [...pair("t1", false, true, ["alpha"]), ...pair("t2", true, true, ["alpha"])];
  // The second run re-ran t2's enabled side (now failing: harmed) and added t3.
  const second = [rec("t2", "enabled", false, ["alpha"]), ...pair("t3", false, false)];
  const e = only([{ header: h1, records: first }, { header: h2, records: second }]);
  assert.deepEqual(e.runIds, ["r1", "r2"]);
  assert.equal(e.overall!.n, 3);
  assert.deepEqual([e.overall!.rescued, e.overall!.harmed, e.overall!.bothFail, e.overall!.bothPass], [1, 1, 1, 0]);
  assert.deepEqual(e.skills[0]!.harmedTasks, ["t2"]);
  // A different model, or a different mode, is its own evaluation.
  const other = buildReport([
    { header: h1, records: first },
    { header: header({ taskIds: ["t1"], model: { id: "m-2", name: "model-two" } }), records: pair("t1", true, true) },
    { header: header({ taskIds: ["t1"], mode: "search" }), records: pair("t1", true, true) },
  ]);
  assert.deepEqual(other.evaluations.map((x) => [x.model, x.mode]), [["model-one", "catalog"], ["model-two", "catalog"], ["model-one", "search"]]);
});

test("per-skill Holm/BH and badges: a clearly harmful skill is flagged, a small one is 'too few discordant pairs'", () => {
  const records = [];
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    ids.push(`h${i}`);
    records.push(...pair(`h${i}`, true, i >= 18, ["bad-skill"])); // 18 harmed, 2 both pass
  }
  for (let i = 0; i < 3; i++) {
    ids.push(`g${i}`);
    records.push(...pair(`g${i}`, false, true, ["tiny-skill"])); // 3 rescued only
  }
  const e = only([{ header: header({ taskIds: ids }, ["bad-skill", "tiny-skill"]), records }]);
  const bad = e.skills.find((s) => s.name === "bad-skill")!;
  const tiny = e.skills.find((s) => s.name === "tiny-skill")!;
  assert.equal(bad.badge, "harmful");
  assert.ok(bad.pHolm! < 1e-4);
  assert.equal(tiny.badge, "inconclusive");
  assert.equal(tiny.table.tooFewDiscordant, true);
  // Holm over a family of two: the smaller p doubles.
  assert.ok(Math.abs(bad.pHolm! - Math.min(1, 2 * bad.table.pMid!)) < 1e-15);
  assert.ok(bad.pBH! <= bad.pHolm!);
});

test("an edited skill merged across runs: one entry per content hash, the older one marked stale", () => {
  const h1 = header({ taskIds: ["t1", "t2"], runId: "r1" }, ["alpha"]);
  const h2 = header({ taskIds: ["t1", "t2"], runId: "r2" }, []);
  h2.skills = [{ name: "alpha", contentHash: "new-hash", file: "skills/alpha/SKILL.md", description: "edited" }];
  const rerun = rec("t2", "enabled", true, []);
  rerun.retrieved = [{ name: "alpha", contentHash: "new-hash" }];
  const e = only([{ header: h1, records: [...pair("t1", false, true, ["alpha"]), ...pair("t2", true, false, ["alpha"])] }, { header: h2, records: [rerun] }]);
  const entries = e.skills.filter((s) => s.name === "alpha");
  assert.equal(entries.length, 2);
  const old = entries.find((s) => s.contentHash !== "new-hash")!;
  const cur = entries.find((s) => s.contentHash === "new-hash")!;
  assert.equal(old.stale, true);
  assert.equal(cur.stale, false);
  assert.deepEqual([old.rescuedTasks, old.harmedTasks], [["t1"], []]);
  // t2 re-ran with the edited skill and now passes both ways.
  assert.deepEqual([cur.table.n, cur.table.bothPass], [1, 1]);
});
