/**
 * Progress that says what happens: the phase a run waits on (starting the sandbox, computing expected outputs k/n,
 * model calls, checking answers), elapsed time and an ETA from an injected clock, tokens, the running RAE with its
 * n; and the one line both hosts print for it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { evaluate, type EvaluationProgress } from "../../../src/core/runs/evaluate.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { estimateEta, progressLine } from "../../../src/shared/progress.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { mathTask, pythonTask, skill } from "./helpers.js";

const skills = [skill("rounding", "Round money answers to whole units.", "Always round.")];

describe("progress of an evaluation", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-progress-"));
  let server: ScriptedServer;
  let clock = 0;
  const tasks = Array.from({ length: 10 }, (_, i) => mathTask(`q${i}`, `[q${i}] What is ${i} + 1?`, String(i + 1)));
  const py = [pythonTask("p0", "inc", "def inc(x):\n    return x + 1\n", [[1], [2]]), pythonTask("p1", "dbl", "def dbl(x):\n    return 2 * x\n", [[3]])];

  before(async () => {
    const plans = (t: { id: string; prompt: string }, answer: string, retrieved: boolean): [string, TaskPlan] => [
      t.prompt,
      { disabled: answer, enabled: retrieved ? [{ loadSkill: "rounding" }, { answer }] : [{ answer }] },
    ];
    const table = Object.fromEntries([
      // q0–q3 retrieve; q0 is harmed (the enabled answer is wrong), the rest pass both ways.
      ...tasks.map((t, i) => plans(t, boxedAnswer(String(i + 1)), i < 4)),
      ...py.map((t) => plans(t, pythonAnswer(t.canonicalSolution), false)),
    ]);
    table[tasks[0]!.prompt] = { disabled: boxedAnswer("1"), enabled: [{ loadSkill: "rounding" }, { answer: boxedAnswer("7") }] };
    // Every model call moves the injected clock by 2 s: elapsed time and the ETA follow from the calls alone.
    const base = taskPlanScript((user) => Object.entries(table).find(([prompt]) => user.includes(prompt))?.[1]);
    server = await startScriptedServer({
      script: (req, ctx) => {
        clock += 2000;
        return base(req, ctx);
      },
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = () => createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 });

  it("math tasks: model calls in flight, tokens, the running RAE with its n, elapsed time and an ETA from the clock", async () => {
    clock = 0;
    const seen: EvaluationProgress[] = [];
    const grader = createGrader();
    const set: TaskSet = { name: "math", format: "native", file: "m.jsonl", hash: "h", tasks, issues: [] } as unknown as TaskSet;
    const result = await evaluate(
      { concurrency: 1 },
      { skills, taskSet: set, client: client(), model: "m", grader, runFile: path.join(dir, "math.jsonl"), resume: false, now: () => clock, progressIntervalMs: 0, onProgress: (p) => seen.push(p) },
    );
    await grader.dispose();
    assert.equal(result.failedRuns, 0, result.lastError);
    const last = seen.at(-1)!;
    assert.equal(last.done, 20);
    assert.equal(last.phase, "done");
    assert.equal(last.expected, null, "no python tasks: no expected outputs to compute");
    assert.ok(seen.some((p) => p.phase === "model-calls" && p.modelCalls.inFlight === 1), "model calls in flight are reported");
    assert.equal(last.modelCalls.done, server.calls);
    assert.equal(last.elapsedMs, 2000 * server.calls, "elapsed time is the injected clock's");
    assert.equal(last.tokens, result.records.reduce((n, r) => n + r.tokens.prompt + r.tokens.completion, 0));
    assert.ok(last.tokens > 0);
    assert.equal(last.runningRaeN, 4);
    assert.equal(last.runningRae, -0.25);
    // No ETA from fewer than 5 runs; afterwards it is the remaining runs at this session's own pace.
    assert.ok(seen.filter((p) => p.done < 5).every((p) => p.etaMs === null));
    const mid = seen.find((p) => p.done === 10)!;
    assert.equal(mid.etaMs, (10 * mid.elapsedMs) / 10);
    assert.match(progressLine(mid), /^10\/20 runs · .+ · \d+ retrievals? · running RAE [−+]?\d\.\d\d \(n \d\) · [\d.]+k? tokens · \d+:\d\d elapsed, about \d+:\d\d left$/);
  });

  it("python tasks: starting the sandbox and computing expected outputs k/n come before answers are checked", async () => {
    const seen: EvaluationProgress[] = [];
    const grader = createGrader({ cacheDir: path.join(dir, "expected") });
    const set: TaskSet = { name: "py", format: "native", file: "p.jsonl", hash: "hp", tasks: py, issues: [] } as unknown as TaskSet;
    await evaluate(
      { concurrency: 2 },
      // The heartbeat (real time) reports the sandbox's phases, which no model call or check marks.
      { skills, taskSet: set, client: client(), model: "m", grader, runFile: path.join(dir, "py.jsonl"), resume: false, now: () => clock, progressIntervalMs: 10, onProgress: (p) => seen.push(p) },
    );
    await grader.dispose();
    const phases = [...new Set(seen.map((p) => p.phase))];
    assert.equal(phases[0], "starting-sandbox", `phases: ${phases.join(" → ")}`);
    assert.ok(seen.some((p) => p.phase === "expected-outputs" && p.expected!.total === 2), `phases: ${phases.join(" → ")}`);
    assert.deepEqual(seen.at(-1)!.expected, { done: 2, total: 2 });
    assert.ok(seen.some((p) => p.checking > 0), "answers being checked are counted");
    assert.match(progressLine(seen.find((p) => p.phase === "starting-sandbox")!), /· starting the sandbox ·/);
    assert.match(progressLine(seen.find((p) => p.phase === "expected-outputs")!), /· computing expected outputs [01]\/2 ·/);
  });

  it("formats one line the same in both hosts", () => {
    const p: EvaluationProgress = {
      done: 12,
      total: 86,
      retrievals: 3,
      runningRae: -0.25,
      runningRaeN: 4,
      phase: "model-calls",
      modelCalls: { done: 20, inFlight: 4 },
      checking: 0,
      expected: null,
      tokens: 12_345,
      elapsedMs: 42_000,
      etaMs: estimateEta(12, 74, 42_000),
    };
    assert.equal(progressLine(p), "12/86 runs · model calls (4 in flight) · 3 retrievals · running RAE \u22120.25 (n 4) · 12.3k tokens · 0:42 elapsed, about 4:19 left");
    assert.equal(estimateEta(4, 10, 60_000), null, "fewer than 5 runs: no estimate");
    assert.equal(estimateEta(10, 0, 60_000), 0);
  });
});
