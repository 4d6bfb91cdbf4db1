import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader, type EngineGrader } from "../../../src/core/grading/index.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { listenerBound } from "../../../src/core/signals.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript } from "../../support/scripts.js";
import { mathTask, skill } from "./helpers.js";

// The evaluation signal's listener limit is bounded by the concurrency (not switched off), so a listener that
// outlives its job shows as Node's MaxListenersExceededWarning long before it costs memory.
const skills = [skill("units", "Convert units before adding quantities.", "Convert everything to the same unit first.")];
const tasks = Array.from({ length: 40 }, (_, i) => mathTask(`q${i}`, `Question number ${i}: what is ${i} + 1?`, String(i + 1)));
const taskSet: TaskSet = { name: "listeners", format: "native", file: "listeners.jsonl", hash: "h-listeners", tasks, issues: [] };
const script = taskPlanScript((text) => {
  const m = /Question number (\d+):/.exec(text);
  if (!m) return undefined;
  const right = boxedAnswer(String(Number(m[1]) + 1));
  return Number(m[1]) % 2 === 0 ? { disabled: right, enabled: [{ loadSkill: "units" }, { answer: right }] } : { disabled: right, enabled: [{ answer: right }] };
});

describe("evaluation signal listeners", () => {
  let server: ScriptedServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-listeners-"));
  const grader = createGrader();
  let n = 0;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => {
    if (w.name === "MaxListenersExceededWarning") warnings.push(w);
  };

  before(async () => {
    server = await startScriptedServer({ script });
    process.on("warning", onWarning);
  });
  after(async () => {
    process.off("warning", onWarning);
    await server.close();
    await grader.dispose();
  });

  const run = (g: EngineGrader) =>
    evaluate(
      { mode: "catalog", design: "paired", concurrency: 4, responseCache: false },
      {
        skills,
        taskSet,
        client: createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }),
        model: "m",
        grader: g,
        runFile: path.join(dir, `run-${n++}.jsonl`),
        resume: false,
      },
    );

  it("80 runs at concurrency 4 raise no listener warning", async () => {
    warnings.length = 0;
    const result = await run(grader);
    assert.equal(result.records.length, 80);
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.map((w) => w.message), []);
  });

  it("a grader that leaks one abort listener per answer is caught by the bound", async () => {
    warnings.length = 0;
    const leaky: EngineGrader = {
      ...grader,
      grade: (task, answer, options) => {
        options?.signal?.addEventListener("abort", () => {});
        return grader.grade(task, answer, options);
      },
    };
    const result = await run(leaky);
    assert.equal(result.records.length, 80);
    await new Promise((r) => setImmediate(r));
    assert.ok(80 > listenerBound(4), "the run leaks more listeners than the bound allows");
    assert.equal(warnings.length, 1, "Node warns once per signal when the bound is passed");
    assert.match(warnings[0]!.message, /abort listeners added to \[AbortSignal\]/);
  });
});
