import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { buildReport } from "../../../src/core/report/build.js";
import { evaluate, type EvaluationDeps } from "../../../src/core/runs/evaluate.js";
import { inControlSample } from "../../../src/core/runs/plan.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { RUN_SETTING_KEYS, type RunSettingsInput } from "../../../src/core/settings.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { mathTask, skill } from "./helpers.js";

const skills = [skill("units", "Convert units before adding quantities.", "Convert everything to the same unit first."), skill("rounding", "Round money to whole units.", "Always round to whole dollars.")];

/** 20 math tasks: tasks 0-9 retrieve; among them 0-5 are harmed and 6 rescued; 10-19 never retrieve, 10 rescued. */
function scenario(n = 20) {
  const tasks = Array.from({ length: n }, (_, i) => mathTask(`q${i}`, `Question number ${i}: what is ${i} + 1?`, String(i + 1)));
  const plan = (i: number): TaskPlan => {
    const right = boxedAnswer(String(i + 1));
    const wrong = boxedAnswer(String(i + 2));
    if (i < 6) return { disabled: right, enabled: [{ loadSkill: "rounding" }, { answer: wrong }] };
    if (i === 6) return { disabled: wrong, enabled: [{ loadSkill: "units" }, { answer: right }] };
    if (i < 10) return { disabled: right, enabled: [{ loadSkill: "units" }, { answer: right }] };
    if (i === 10) return { disabled: wrong, enabled: [{ answer: right }] };
    return { disabled: right, enabled: [{ answer: right }] };
  };
  const script = taskPlanScript((text) => {
    const m = /Question number (\d+):/.exec(text);
    return m ? plan(Number(m[1])) : undefined;
  });
  const taskSet: TaskSet = { name: "synthetic-math", format: "native", file: "synthetic.jsonl", hash: "h1", tasks, issues: [] };
  return { tasks, script, taskSet };
}

describe("evaluate()", () => {
  let server: ScriptedServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-eval-"));
  const grader = createGrader();
  const { script, taskSet } = scenario();
  let n = 0;

  before(async () => {
    server = await startScriptedServer({ script });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  /** One call of evaluate(settings, deps), with this scenario's defaults; `extra` may set either. */
  const run = (extra: RunSettingsInput & Partial<EvaluationDeps> = {}) => {
    const settings: Record<string, unknown> = { mode: "catalog", design: "paired", samples: 1, temperature: 0, concurrency: 4 };
    const deps: EvaluationDeps = {
      skills,
      taskSet,
      client: createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }),
      model: "m",
      grader,
      runFile: path.join(dir, `run-${n++}.jsonl`),
      resume: false,
    };
    for (const [k, v] of Object.entries(extra)) {
      if ((RUN_SETTING_KEYS as string[]).includes(k)) settings[k] = v;
      else (deps as unknown as Record<string, unknown>)[k] = v;
    }
    return evaluate(settings, deps);
  };

  it("paired design: 2n runs, each key once, verdicts as scripted", async () => {
    server.reset();
    const progress: number[] = [];
    const result = await run({ onProgress: (p) => progress.push(p.done) });
    assert.equal(result.records.length, 40);
    assert.equal(result.failedRuns, 0);
    assert.equal(server.calls, 20 + 10 + 10 + 10); // disabled 20, enabled 10 one-turn + 10 two-turn
    const back = await readRunFile(result.runFile);
    assert.equal(new Set(back.records.map((r) => r.key)).size, 40);
    const harmed = back.records.filter((r) => r.condition === "enabled" && !r.verdict.pass).map((r) => r.taskId).sort();
    assert.deepEqual(harmed, ["q0", "q1", "q2", "q3", "q4", "q5"]);
    const e0 = back.records.find((r) => r.taskId === "q0" && r.condition === "enabled")!;
    assert.deepEqual(e0.retrieved.map((s) => s.name), ["rounding"]);
    assert.match(e0.verdict.reason, /expected 1.*got 2|2.*1/);
    assert.equal(progress.at(-1), 40);
  });

  it("RAE-only design: n + n_cond runs, disabled runs only where the enabled run retrieved", async () => {
    server.reset();
    const result = await run({ design: "rae-only" });
    assert.equal(result.records.length, 20 + 10);
    const disabled = result.records.filter((r) => r.condition === "disabled").map((r) => r.taskId).sort();
    assert.deepEqual(disabled, Array.from({ length: 10 }, (_, i) => `q${i}`).sort());
    assert.equal(server.calls, 10 + 10 + 10 + 10);
  });

  it("RAE-only with a control sample: the sampled tasks run both conditions; NRAE comes from the sample's non-retrieved pairs", async () => {
    server.reset();
    const control = { q: 0.5, seed: 7 };
    const sampled = taskSet.tasks.map((t) => t.id).filter((id) => inControlSample(id, control));
    const sampledNotRetrieved = sampled.filter((id) => Number(id.slice(1)) >= 10);
    assert.ok(sampledNotRetrieved.length >= 2 && sampledNotRetrieved.length <= 8, `a seed with a useful sample (${sampled.join(", ")})`);
    const result = await run({ design: "rae-only", raeOnlyControl: control.q, shuffleSeed: control.seed });
    assert.deepEqual(result.header.control, control);
    const disabled = new Set(result.records.filter((r) => r.condition === "disabled").map((r) => r.taskId));
    const retrievedIds = Array.from({ length: 10 }, (_, i) => `q${i}`);
    assert.deepEqual([...disabled].sort(), [...new Set([...retrievedIds, ...sampled])].sort(), "every retrieved task plus the sample, nothing else");
    assert.equal(result.records.length, 20 + disabled.size);
    const report = buildReport([{ header: result.header, records: result.records, stops: [] }]);
    const e = report.evaluations[0]!;
    assert.equal(e.overall, null, "OAE stays not estimable");
    assert.equal(e.retrieved.n, 10);
    assert.equal(e.notRetrieved?.n, sampledNotRetrieved.length);
    // q10 is the only non-retrieved task whose outcome flips (rescued); the rest pass both ways.
    const rescued = sampledNotRetrieved.includes("q10") ? 1 : 0;
    assert.equal(e.notRetrieved?.rescued, rescued);
    assert.equal(e.metrics.NRAE, rescued / sampledNotRetrieved.length);
    assert.match(e.definitions.tables, /control sample.*50%/);
    assert.match(e.noise.floorSource, /control sample/);
    // §8: expected saving (1 − r)·k₋/(k₊ + k₋)·(1 − q) with r = 0.5, k = 1.
    assert.equal(e.costs.raeOnlyExpectedSaving, 0.5 * 0.5 * 0.5);
  });

  it("a control sample is fixed by the seed before any run, and needs the RAE-only design", async () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `task-${i}`);
    const a = ids.filter((id) => inControlSample(id, { q: 0.2, seed: 1 }));
    assert.deepEqual(a, ids.filter((id) => inControlSample(id, { q: 0.2, seed: 1 })), "deterministic");
    assert.ok(Math.abs(a.length / ids.length - 0.2) < 0.03, `about q of the tasks (${a.length})`);
    assert.notDeepEqual(a, ids.filter((id) => inControlSample(id, { q: 0.2, seed: 2 })), "another seed, another sample");
    assert.ok(a.every((id) => inControlSample(id, { q: 0.4, seed: 1 })), "a larger q keeps the smaller sample (nested)");
    await assert.rejects(run({ raeOnlyControl: 0.5 }), /needs the RAE-only design/);
  });

  it("cancelling keeps finished runs; resuming completes with identical verdicts and no duplicates", async () => {
    server.reset();
    const controller = new AbortController();
    const runFile = path.join(dir, "cancel.jsonl");
    const first = await run({
      runFile,
      concurrency: 2,
      signal: controller.signal,
      onRecord: () => {
        if (!controller.signal.aborted) controller.abort();
      },
    });
    assert.equal(first.stopReason, "cancelled");
    const kept = (await readRunFile(runFile)).records.length;
    assert.ok(kept >= 1 && kept < 40, `kept ${kept}`);
    const resumed = await run({ runFile, resume: true });
    assert.equal(resumed.stopReason, undefined);
    const back = await readRunFile(runFile);
    assert.equal(back.records.length, 40);
    assert.equal(new Set(back.records.map((r) => r.key)).size, 40);
    const lines = readFileSync(runFile, "utf8").trim().split("\n");
    assert.equal(lines.length, 41, "header + 40 records, nothing written twice");
  });

  it("resume starts afresh when the run was killed before its header line was complete", async () => {
    for (const content of ["", '{"type":"header","formatVer']) {
      const runFile = path.join(dir, `headerless-${content.length}.jsonl`);
      writeFileSync(runFile, content);
      const result = await run({ runFile, resume: true, limit: 2 });
      assert.equal(result.records.length, 4);
      assert.equal((await readRunFile(runFile)).records.length, 4);
    }
  });

  it("resume refuses a run file made with another model", async () => {
    const runFile = path.join(dir, "other-model.jsonl");
    await run({ runFile, limit: 2 });
    await assert.rejects(run({ runFile, resume: true, model: "other" }), /cannot resume: the model changed/);
  });

  it("--stop-when decided stops once harm on retrieved tasks is decided and records why", async () => {
    // 60 tasks whose retrieved pairs are all harmed.
    const big = scenario(60);
    const all = big.tasks.map((t, i) => ({ ...t, id: `h${i}` }));
    const harmScript = taskPlanScript(() => ({ disabled: boxedAnswer("1"), enabled: [{ loadSkill: "rounding" }, { answer: boxedAnswer("0") }] }));
    const s2 = await startScriptedServer({ script: harmScript });
    try {
      const tasks = all.map((t) => ({ ...t, answer: "1" }));
      const result = await run({
        taskSet: { ...big.taskSet, hash: "h60", tasks },
        client: createOpenAIClient({ baseURL: s2.url, apiKey: "sk-test", model: "m" }),
        stopWhen: "decided",
        shuffleSeed: 7,
        concurrency: 2,
      });
      assert.match(result.stopReason ?? "", /^decided: harmful after \d+ retrieved task pairs/);
      const back = await readRunFile(result.runFile);
      assert.equal(back.stops.length, 1);
      assert.equal(back.header.stopWhen, "decided");
      assert.equal(back.header.shuffleSeed, 7);
      const pairs = new Set(back.records.map((r) => r.taskId)).size;
      assert.ok(pairs < 60, `stopped after ${pairs} tasks`);
      // With every pair harmed, E_harm = (2^(n+1) − 1)/(n+1): 31.9 at n = 7, 56.8 at n = 8, threshold 2/α = 40.
      assert.match(result.stopReason!, /after 8 retrieved task pairs \(0 rescued, 8 harmed/);
    } finally {
      await s2.close();
    }
  });

  it("an authentication error stops the whole evaluation at once", async () => {
    const s401 = await startScriptedServer({ script, requireKey: "sk-right" });
    try {
      await assert.rejects(
        run({ client: createOpenAIClient({ baseURL: s401.url, apiKey: "sk-wrong", model: "m" }) }),
        (err: Error & { status?: number }) => err.status === 401,
      );
      assert.equal(s401.calls, 0);
    } finally {
      await s401.close();
    }
  });
});
