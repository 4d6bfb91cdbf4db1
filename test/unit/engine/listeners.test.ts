/**
 * A run's abort signal has a bounded listener limit (issue 11: no setMaxListeners(0)): a full evaluation stays under
 * it, and a grader that forgets one listener per answer passes it, so node warns instead of keeping every job alive.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { evaluate, type EvaluationDeps } from "../../../src/core/runs/evaluate.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript } from "../../support/scripts.js";
import { mathTask, skill } from "./helpers.js";

const N = 40;
const tasks = Array.from({ length: N }, (_, i) => mathTask(`l${i}`, `Listener question ${i}: what is ${i} + 1?`, String(i + 1)));
const taskSet: TaskSet = { name: "listeners", format: "native", file: "listeners.jsonl", hash: "h-listeners", tasks, issues: [] };

describe("the run signal's listener limit", () => {
  let server: ScriptedServer;
  let dir: string;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => void warnings.push(w);

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "sf-listeners-"));
    server = await startScriptedServer({
      script: taskPlanScript((text) => {
        const m = /Listener question (\d+):/.exec(text);
        if (!m) return undefined;
        const right = boxedAnswer(String(Number(m[1]) + 1));
        return { disabled: right, enabled: [{ loadSkill: "units" }, { answer: right }] };
      }),
    });
    process.on("warning", onWarning);
  });
  after(async () => {
    process.off("warning", onWarning);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (grader: EvaluationDeps["grader"], name: string) =>
    evaluate(
      { mode: "catalog", design: "paired", samples: 1, temperature: 0, concurrency: 4 },
      {
        skills: [skill("units", "Convert units first.", "Convert.")],
        taskSet,
        client: createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 1, maxBackoffMs: 2 }),
        model: "m",
        grader,
        runFile: path.join(dir, `${name}.jsonl`),
        resume: false,
      },
    );
  const maxListenerWarnings = () => warnings.filter((w) => w.name === "MaxListenersExceededWarning");

  it(`${2 * N} runs at concurrency 4 stay under the limit`, async () => {
    const grader = createGrader();
    try {
      const r = await run(grader, "clean");
      assert.equal(r.records.length, 2 * N);
      assert.ok(r.records.every((x) => x.verdict.pass));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(maxListenerWarnings(), []);
    } finally {
      await grader.dispose();
    }
  });

  it("a grader that leaks one listener per answer is caught by the limit", async () => {
    const inner = createGrader();
    const leaky: EvaluationDeps["grader"] = {
      prepare: (t) => inner.prepare(t),
      grade: (task, answer, options) => {
        options?.signal?.addEventListener("abort", () => {});
        return inner.grade(task, answer, options);
      },
    };
    try {
      await run(leaky, "leaky");
      await new Promise((resolve) => setImmediate(resolve));
      const caught = maxListenerWarnings();
      assert.equal(caught.length, 1, "node warned once for the run's signal");
      assert.match(caught[0]!.message, /abort listeners added to \[AbortSignal\]/);
    } finally {
      await inner.dispose();
    }
  });
});
