/**
 * Reliability, batch mode: the CLI is SIGKILLed while its first batch is in flight at the provider, then resumed.
 * The resumed process re-attaches to that batch (it creates no second batch for that turn, uploads nothing again),
 * loses nothing (every request is answered exactly once by the model), and ends with the synchronous run's report.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { runCli, runFileLines, startCli, tempDir } from "./cli-process.js";
import { expectedCalls, mathScenario, writeScenarioSkills, writeScenarioTasks } from "./math-scenario.js";

const KEY = "sk-test-batch-crash-0000";

/** A report without what names the run or the endpoint rather than its results. */
function results(json: string): unknown {
  const report = JSON.parse(json) as { evaluations: Array<Record<string, unknown>> };
  return report.evaluations.map(({ runIds: _r, createdAt: _c, modelId: _m, ...e }) => e);
}

describe("reliability: SIGKILL while a batch is in flight, then --resume", () => {
  const scenario = mathScenario({ n: 20, seed: 44 });
  const rounds = Math.max(...scenario.tasks.map((t) => t.plan.enabled.length));
  let ws: string;
  let sync: ScriptedServer;
  let batch: ScriptedServer;

  before(async () => {
    ws = tempDir("sf-rel-batch-");
    writeScenarioSkills(path.join(ws, "skills"));
    writeScenarioTasks(scenario, path.join(ws, "tasks.jsonl"));
    sync = await startScriptedServer({ script: scenario.script });
    // The first batch stays in progress until the test releases it.
    batch = await startScriptedServer({ script: scenario.script, batches: { behave: ({ index }) => (index === 0 ? { hold: true } : {}) } });
  });
  after(async () => {
    await sync?.close();
    await batch?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("re-attaches to the batch in flight, creates no new batch for that turn, and loses nothing", async () => {
    const args = (out: string, cache: string, extra: string[] = []) => ["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--out", out, "--cache-dir", cache, ...extra];
    const straight = await runCli(args("runs/sync.jsonl", "cache-sync"), { cwd: ws, apiKey: KEY, baseUrl: sync.url });
    assert.equal(straight.code, 0, straight.stderr);
    const syncReport = await runCli(["report", "runs/sync.jsonl", "--format", "json"], { cwd: ws, apiKey: KEY });

    const env = { cwd: ws, apiKey: KEY, baseUrl: batch.url, extraEnv: { SKILL_FOLLOWING_BATCH_POLL_MS: "20" } };
    const first = startCli(args("runs/batch.jsonl", "cache-batch", ["--batch"]), env);
    // Killed once the batch is at the provider and the process is polling it.
    const polled = await batch.batch.waitFor((e) => e.type === "poll" && e.batch.index === 0 && e.batch.polls >= 2);
    const held = (polled as { batch: { id: string; input_file_id: string; polls: number } }).batch;
    first.child.kill("SIGKILL");
    const killed = await first.done;
    assert.equal(killed.signal, "SIGKILL");
    const journal = readFileSync(path.join(ws, "runs/batch.batch-journal"), "utf8");
    assert.match(journal, new RegExp(`"type":"created","round":"[^"]+","batchId":"${held.id}"`));
    assert.equal(runFileLines(path.join(ws, "runs/batch.jsonl")).length, 1, "only the header: every run was waiting for the batch");
    const uploads = batch.batch.uploads;
    const callsAtKill = batch.calls;
    assert.equal(callsAtKill, 0, "the held batch answered nothing yet");

    const pollsAtKill = held.polls;
    const second = startCli(args("runs/batch.jsonl", "cache-batch", ["--batch", "--resume"]), env);
    // Released only once the new process polls the same batch: it has re-attached rather than sent the turn again.
    await batch.batch.waitFor((e) => e.type === "poll" && e.batch.id === held.id && e.batch.polls > pollsAtKill);
    batch.batch.release(held.id);
    const resumed = await second.done;
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /re-attaching to 1 batch round/);
    // Progress shows each batch's state and counts.
    assert.match(resumed.stderr, /\d+\/\d+ runs · .* · batch batch_\d+ (validating|in_progress|finalizing|completed) \d+\/\d+/);

    assert.equal(batch.batch.batches.filter((b) => b.input_file_id === held.input_file_id).length, 1, "no second batch for the first turn");
    assert.equal(batch.batch.creates, rounds, "one batch per turn in all");
    assert.equal(batch.batch.uploads - uploads, rounds - 1, "the first turn was not uploaded again");
    assert.equal(batch.calls, expectedCalls(scenario), "every request answered exactly once");
    const lines = runFileLines(path.join(ws, "runs/batch.jsonl"));
    assert.equal(lines.filter((l) => l.type === "run").length, 2 * scenario.tasks.length);
    assert.equal((lines[0] as { pricing?: string }).pricing, "batch");
    const batchReport = await runCli(["report", "runs/batch.jsonl", "--format", "json"], { cwd: ws, apiKey: KEY });
    assert.deepEqual(results(batchReport.stdout), results(syncReport.stdout));
  });
});
