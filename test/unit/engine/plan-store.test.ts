import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Planner, seededShuffle } from "../../../src/core/runs/plan.js";
import { RunWriter, readRunFile } from "../../../src/core/runs/store.js";
import { runKey, type RunRecord } from "../../../src/core/runs/types.js";
import type { Condition } from "../../../src/shared/vocabulary/index.js";
import { header as makeHeader, rec } from "../report/fixtures.js";
import { mathTask } from "./helpers.js";

const tasks = ["a", "b", "c"].map((id) => mathTask(id, `task ${id}`, "1"));

/** A finished run in the argument order the planner tests read best. */
function record(taskId: string, condition: Condition, sample: number, retrieved: string[] = [], pass = true): RunRecord {
  return rec(taskId, condition, pass, retrieved, sample);
}

const header = makeHeader({ runId: "r", taskIds: ["a", "b", "c"] });

describe("planner", () => {
  it("paired design: 2 runs per task and sample, enabled next to disabled", () => {
    const p = new Planner(tasks, 2, "paired", []);
    const jobs = p.initialJobs();
    assert.equal(jobs.length, 12);
    assert.equal(p.plannedTotal(), 12);
    assert.deepEqual(jobs.slice(0, 4).map((j) => `${j.task.id}:${j.condition}:${j.sample}`), ["a:enabled:0", "a:enabled:1", "a:disabled:0", "a:disabled:1"]);
  });

  it("RAE-only design: disabled runs only after all enabled samples of a task and only if one retrieved", () => {
    const p = new Planner(tasks, 2, "rae-only", []);
    assert.deepEqual(p.initialJobs().map((j) => j.condition), Array(6).fill("enabled"));
    assert.equal(p.plannedTotal(), 6);
    assert.deepEqual(p.onFinished(record("a", "enabled", 0, ["s"])), [], "not before every enabled sample is in");
    const unlocked = p.onFinished(record("a", "enabled", 1));
    assert.deepEqual(unlocked.map((j) => `${j.task.id}:${j.condition}:${j.sample}`), ["a:disabled:0", "a:disabled:1"]);
    assert.deepEqual(p.onFinished(record("b", "enabled", 0)), []);
    assert.deepEqual(p.onFinished(record("b", "enabled", 1)), [], "no retrieval, no disabled runs");
    assert.equal(p.plannedTotal(), 8);
  });

  it("resume: completed keys are never planned again", () => {
    const p = new Planner(tasks, 1, "paired", [record("a", "enabled", 0), record("b", "disabled", 0)]);
    assert.deepEqual(p.initialJobs().map((j) => j.key), [runKey("a", "disabled", 0), runKey("b", "enabled", 0), runKey("c", "enabled", 0), runKey("c", "disabled", 0)]);
  });

  it("RAE-only resume: a retrieving task whose enabled run is done gets its disabled run planned", () => {
    const p = new Planner(tasks, 1, "rae-only", [record("a", "enabled", 0, ["s"])]);
    assert.deepEqual(p.initialJobs().map((j) => j.key), [runKey("a", "disabled", 0), runKey("b", "enabled", 0), runKey("c", "enabled", 0)]);
  });

  it("seeded shuffle is a reproducible permutation", () => {
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const a = seededShuffle(xs, 42);
    assert.deepEqual(a, seededShuffle(xs, 42));
    assert.notDeepEqual(a, seededShuffle(xs, 43));
    assert.notDeepEqual(a, xs);
    assert.deepEqual([...a].sort((x, y) => x - y), xs);
  });
});

describe("run file", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-store-"));

  it("round-trips header and records", async () => {
    const file = path.join(dir, "a.jsonl");
    const w = RunWriter.create(file, header);
    w.write(record("a", "enabled", 0, ["s"]));
    w.write(record("a", "disabled", 0, [], false));
    w.write({ type: "stop", reason: "decided: harmful", at: new Date(0).toISOString(), tasksDone: 1 });
    w.close();
    const back = await readRunFile(file);
    assert.equal(back.header.runId, "r");
    assert.equal(back.records.length, 2);
    assert.equal(back.stops[0]!.reason, "decided: harmful");
    assert.deepEqual(back.warnings, []);
  });

  it("refuses to overwrite an existing run file", () => {
    const file = path.join(dir, "exists.jsonl");
    writeFileSync(file, "");
    assert.throws(() => RunWriter.create(file, header), /EEXIST/);
  });

  it("a torn last line is ignored with a warning and cut before appending", async () => {
    const file = path.join(dir, "torn.jsonl");
    const w = RunWriter.create(file, header);
    w.write(record("a", "enabled", 0));
    w.close();
    appendFileSync(file, JSON.stringify(record("a", "disabled", 0)).slice(0, 40));
    const torn = await readRunFile(file);
    assert.equal(torn.records.length, 1);
    assert.equal(torn.warnings.length, 1);
    assert.match(torn.warnings[0]!, /torn\.jsonl:3: torn last line ignored/);

    const w2 = RunWriter.append(file);
    w2.write(record("a", "disabled", 0));
    w2.close();
    const fixed = await readRunFile(file);
    assert.deepEqual(fixed.records.map((r) => r.key), [runKey("a", "enabled", 0), runKey("a", "disabled", 0)]);
    assert.deepEqual(fixed.warnings, []);
    assert.equal(readFileSync(file, "utf8").split("\n").length, 4);
  });

  it("a bad middle line is skipped with a located warning; a bad header is an error", async () => {
    const file = path.join(dir, "bad.jsonl");
    writeFileSync(file, [JSON.stringify(header), "{oops", JSON.stringify({ type: "run", key: 1 }), JSON.stringify(record("b", "enabled", 0)), ""].join("\n"));
    const back = await readRunFile(file);
    assert.equal(back.records.length, 1);
    assert.match(back.warnings[0]!, /bad\.jsonl:2: not valid JSON/);
    assert.match(back.warnings[1]!, /bad\.jsonl:3: invalid run record/);

    const notRun = path.join(dir, "notrun.jsonl");
    writeFileSync(notRun, `${JSON.stringify({ task_id: "Mbpp/2" })}\n`);
    await assert.rejects(readRunFile(notRun), /notrun\.jsonl:1: not a Skill Following run file header/);
  });

  it("reads through the capped line reader: an over-long line is skipped with a warning, the rest still loads", async () => {
    const file = path.join(dir, "long.jsonl");
    const huge = record("x", "enabled", 0);
    huge.transcript = [{ role: "assistant", content: "y".repeat(10_000) }];
    writeFileSync(file, [JSON.stringify(header), JSON.stringify(huge), JSON.stringify(record("b", "enabled", 0)), ""].join("\n"));
    const back = await readRunFile(file, { maxLineBytes: 4096 });
    assert.deepEqual(back.records.map((r) => r.taskId), ["b"]);
    assert.equal(back.warnings.length, 1);
    assert.match(back.warnings[0]!, /long\.jsonl:2: line is \d+ bytes, over the 4096-byte line limit; skipped/);
    // An over-long torn tail is still a torn tail.
    appendFileSync(file, JSON.stringify(huge));
    const torn = await readRunFile(file, { maxLineBytes: 4096 });
    assert.match(torn.warnings.at(-1)!, /long\.jsonl:4: torn last line ignored/);
  });
});
