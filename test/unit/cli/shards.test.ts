import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { selectShard, shardOf } from "../../../src/core/runs/shard.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import type { Task } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { expectedTables, mathScenario, writeScenarioSkills, writeScenarioTasks } from "../reliability/math-scenario.js";
import { runCli, tempWorkspace } from "./harness.js";

/** A report without what names the run rather than its results (ids, times). */
function results(json: string): unknown {
  const report = JSON.parse(json) as { evaluations: Array<Record<string, unknown>> };
  return { ...report, evaluations: report.evaluations.map(({ runIds: _r, createdAt: _c, ...e }) => e) };
}

describe("shards: run --shard k/n, merge, report over shards", () => {
  let server: ScriptedServer;
  let ws: string;
  const scenario = mathScenario({ n: 40, seed: 11 });
  const run = (args: string[]) => runCli(args, { cwd: ws, baseUrl: server.url });
  const base = (tasks = "tasks.jsonl", model = "scripted-model") => ["run", "--skills", "lib", "--tasks", tasks, "--model", model, "--concurrency", "4"];

  before(async () => {
    server = await startScriptedServer({ script: scenario.script });
    ws = tempWorkspace();
    writeScenarioSkills(path.join(ws, "lib"));
    writeScenarioTasks(scenario, path.join(ws, "tasks.jsonl"));
  });
  after(async () => {
    await server?.close();
  });

  it("a task's shard depends only on its id and n: not on order, not on the other tasks", () => {
    const tasks = scenario.taskSet.tasks;
    const reversed = [...tasks].reverse();
    const fewer = tasks.filter((_, i) => i % 3 !== 0);
    for (let k = 1; k <= 3; k++) {
      const ids = (ts: readonly Task[]) => new Set(selectShard(ts, { index: k, count: 3 }).tasks.map((t) => t.id));
      const all = ids(tasks);
      assert.deepEqual(ids(reversed), all);
      assert.deepEqual(ids(fewer), new Set([...all].filter((id) => fewer.some((t) => t.id === id))));
    }
    // Every task is in exactly one shard, and the split is not degenerate.
    const sizes = [1, 2, 3].map((k) => selectShard(tasks, { index: k, count: 3 }).tasks.length);
    assert.equal(sizes.reduce((a, b) => a + b, 0), 40);
    assert.ok(sizes.every((s) => s >= 6), `shard sizes ${sizes.join(", ")}`);
    assert.equal(shardOf("synthetic/0", 3), shardOf("synthetic/0", 3));
  });

  it("3 shards merged give the unsharded run's report, field by field; report over the shard files too", async () => {
    const whole = await run([...base(), "--out", "runs/whole.jsonl", "--cache-dir", "cache-whole"]);
    assert.equal(whole.code, 0, whole.stderr);
    for (const k of [1, 2, 3]) {
      const r = await run([...base(), "--shard", `${k}/3`, "--out", `runs/shard-${k}.jsonl`, "--cache-dir", `cache-${k}`]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`shard ${k}/3`));
    }
    const headers = await Promise.all([1, 2, 3].map(async (k) => (await readRunFile(path.join(ws, `runs/shard-${k}.jsonl`))).header));
    assert.deepEqual(headers.map((h) => h.shard?.index), [1, 2, 3]);
    assert.ok(headers.every((h) => h.shard?.count === 3 && h.shard.total === 40));

    const merged = await run(["merge", "runs/shard-3.jsonl", "runs/shard-1.jsonl", "runs/shard-2.jsonl", "--out", "runs/merged.jsonl"]);
    assert.equal(merged.code, 0, merged.stderr);
    const m = await readRunFile(path.join(ws, "runs/merged.jsonl"));
    const w = await readRunFile(path.join(ws, "runs/whole.jsonl"));
    assert.deepEqual(m.header.taskIds, w.header.taskIds, "merged tasks in the unsharded order");
    assert.equal(m.header.shard, undefined);
    assert.equal(m.records.length, 80);

    const reportOf = async (...files: string[]) => {
      const r = await run(["report", ...files, "--format", "json"]);
      assert.equal(r.code, 0, r.stderr);
      return r;
    };
    const wholeReport = results((await reportOf("runs/whole.jsonl")).stdout);
    assert.deepEqual(results((await reportOf("runs/merged.jsonl")).stdout), wholeReport);
    assert.deepEqual(results((await reportOf("runs/shard-2.jsonl", "runs/shard-1.jsonl", "runs/shard-3.jsonl")).stdout), wholeReport);

    // And the report is the scripted truth, not merely equal to itself.
    const e = (wholeReport as { evaluations: Array<{ overall: Record<string, number> }> }).evaluations[0]!;
    const x = expectedTables(scenario).overall;
    assert.deepEqual({ n: e.overall.n, rescued: e.overall.rescued, harmed: e.overall.harmed, bothPass: e.overall.bothPass, bothFail: e.overall.bothFail }, x);

    // A missing shard in `report` is a warning, and its tasks are not in the report.
    const partial = await reportOf("runs/shard-1.jsonl", "runs/shard-3.jsonl");
    assert.match(partial.stderr, /shard 2\/3 of this run is missing; the report covers \d+ of its 40 tasks/);
  });

  it("merge refuses what is not one run cut in n, with the file, the field and both values", async () => {
    const other = await run([...base("tasks.jsonl", "other-model"), "--shard", "2/3", "--out", "runs/other-2.jsonl", "--cache-dir", "cache-o"]);
    assert.equal(other.code, 0, other.stderr);
    const byModel = await run(["merge", "runs/shard-1.jsonl", "runs/other-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/bad.jsonl"]);
    assert.equal(byModel.code, 2);
    assert.match(byModel.stderr, /other-2\.jsonl: cannot merge with .*shard-1\.jsonl: the model differs \("other-model" here, "scripted-model" in shard-1\.jsonl\)/);

    const fewer = readFileSync(path.join(ws, "tasks.jsonl"), "utf8").split("\n").filter(Boolean).slice(0, 39).join("\n") + "\n";
    writeFileSync(path.join(ws, "tasks-39.jsonl"), fewer);
    const changed = await run([...base("tasks-39.jsonl"), "--shard", "2/3", "--out", "runs/tasks39-2.jsonl", "--cache-dir", "cache-2"]);
    assert.equal(changed.code, 0, changed.stderr);
    const byTasks = await run(["merge", "runs/shard-1.jsonl", "runs/tasks39-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/bad.jsonl"]);
    assert.equal(byTasks.code, 2);
    assert.match(byTasks.stderr, /tasks39-2\.jsonl: cannot merge with .*shard-1\.jsonl: the task set hash differs \("[0-9a-f]{64}" here, "[0-9a-f]{64}" in shard-1\.jsonl\)/);

    const missing = await run(["merge", "runs/shard-1.jsonl", "runs/shard-3.jsonl", "--out", "runs/bad.jsonl"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing shard 2\/3: merging needs all 3 shard files of the run \(got 1\/3, 3\/3\)/);
    const twice = await run(["merge", "runs/shard-1.jsonl", "runs/shard-1.jsonl", "runs/shard-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/bad.jsonl"]);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /shard-1\.jsonl: named twice/);
    const unsharded = await run(["merge", "runs/whole.jsonl", "runs/shard-2.jsonl", "--out", "runs/bad.jsonl"]);
    assert.equal(unsharded.code, 2);
    assert.match(unsharded.stderr, /whole\.jsonl: not a shard run file/);
    const exists = await run(["merge", "runs/shard-1.jsonl", "runs/shard-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/merged.jsonl"]);
    assert.equal(exists.code, 2);
    assert.match(exists.stderr, /merged\.jsonl already exists/);
    assert.equal(existsSync(path.join(ws, "runs/bad.jsonl")), false, "a refused merge writes nothing");
  });

  it("merge refuses a second record of one run (a flipped verdict, an identical copy), naming both files and lines", async () => {
    const lines = readFileSync(path.join(ws, "runs/shard-2.jsonl"), "utf8").split("\n").filter(Boolean);
    const at = lines.findIndex((l, i) => i > 0 && (JSON.parse(l) as { condition: string }).condition === "enabled");
    const original = JSON.parse(lines[at]!) as { taskId: string; verdict: { pass: boolean } };
    const flipped = JSON.stringify({ ...original, verdict: { ...original.verdict, pass: !original.verdict.pass } });
    writeFileSync(path.join(ws, "runs/forged-2.jsonl"), [...lines, flipped].join("\n") + "\n");
    const forged = await run(["merge", "runs/shard-1.jsonl", "runs/forged-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/forged.jsonl"]);
    assert.equal(forged.code, 2, forged.stderr);
    const line = lines.length + 1;
    const pass = (p: boolean) => (p ? "pass" : "fail");
    assert.ok(
      forged.stderr.includes(
        `forged-2.jsonl:${line}: a second record of the run ${original.taskId} (enabled, sample 0), a different record (verdict ${pass(original.verdict.pass)} at ${path.join(ws, "runs/forged-2.jsonl")}:${at + 1}, ${pass(!original.verdict.pass)} at ${path.join(ws, "runs/forged-2.jsonl")}:${line}) of the one at ${path.join(ws, "runs/forged-2.jsonl")}:${at + 1}; merge refuses to choose between them`,
      ),
      forged.stderr,
    );
    assert.match(forged.stderr, /Delete the record you do not trust, or run that shard again, then merge again/);
    assert.equal(existsSync(path.join(ws, "runs/forged.jsonl")), false, "a refused merge writes nothing");

    // An identical copy is refused too: run never writes one, so it is a hand-joined file; the error says it is identical.
    writeFileSync(path.join(ws, "runs/copied-2.jsonl"), [...lines, lines[at]!].join("\n") + "\n");
    const copied = await run(["merge", "runs/shard-1.jsonl", "runs/copied-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/copied.jsonl"]);
    assert.equal(copied.code, 2, copied.stderr);
    assert.match(copied.stderr, new RegExp(`copied-2\\.jsonl:${line}: a second record of the run .*, an identical copy of the one at .*copied-2\\.jsonl:${at + 1}`));

    // A record carrying another run's key is refused as well (a key is what reading a run file deduplicates on).
    const rekeyed = JSON.parse(lines[at]!) as { key: string; sample: number };
    writeFileSync(path.join(ws, "runs/rekeyed-2.jsonl"), [...lines.slice(0, at), JSON.stringify({ ...rekeyed, sample: 1 }), ...lines.slice(at + 1)].join("\n") + "\n");
    const rekey = await run(["merge", "runs/shard-1.jsonl", "runs/rekeyed-2.jsonl", "runs/shard-3.jsonl", "--out", "runs/rekeyed.jsonl"]);
    assert.equal(rekey.code, 2, rekey.stderr);
    assert.match(rekey.stderr, /rekeyed-2\.jsonl: the record of .* \(enabled, sample 1\) carries the key of another run/);
  });

  it("early stopping is refused with shards, with the reason; ablate refuses a shard file", async () => {
    const r = await run([...base(), "--shard", "1/3", "--stop-when", "decided", "--out", "runs/never.jsonl"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /early stopping cannot run in shards: the stopping rule decides on the whole task set in one pre-registered order/);
    assert.equal(existsSync(path.join(ws, "runs/never.jsonl")), false);
    for (const bad of ["0/3", "4/3", "3", "a/b"]) {
      const b = await run([...base(), "--shard", bad, "--out", "runs/never.jsonl"]);
      assert.equal(b.code, 2);
      assert.match(b.stderr, /is not k\/n with 1 ≤ k ≤ n/);
    }
    const a = await run(["ablate", "runs/shard-2.jsonl", "--skill", "carry-digits", "--dry-run"]);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /shard 2\/3 of a run; merge the 3 shard files first/);
  });
});
