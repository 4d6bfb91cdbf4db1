/**
 * The run header records the isolation the run really used. The hosts used to ask the grader about the file's
 * first `limit` tasks, while the engine shuffles before it limits: on a mixed task file, `--limit 1 --stop-when
 * decided` recorded "no sandbox" for a run whose one task was Python (and the other way round). The engine now
 * derives the sandbox from its final task list; this runs the real CLI both ways.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { seededShuffle } from "../../../src/core/runs/plan.js";
import { RunHeaderSchema } from "../../../src/core/runs/types.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, bySubstring, pythonAnswer, taskPlanScript } from "../../support/scripts.js";
import { runCli, tempWorkspace } from "./harness.js";

const python = { id: "add", kind: "python-function", prompt: "Write add(a, b).", entryPoint: "add", canonicalSolution: "def add(a, b):\n    return a + b\n", tests: { base: [[1, 2]], plus: [] } };
const math = (i: number) => ({ id: `m${i}`, kind: "math-answer", prompt: `What is ${i} + ${i}?`, answer: String(2 * i) });

/** A shuffle seed whose first task is of `kind` while the file's first task is not. */
function seedPutting(kind: string, tasks: { id: string; kind: string }[]): number {
  assert.notEqual(tasks[0]!.kind, kind, "the file must start with the other kind");
  for (let seed = 1; seed < 1000; seed++) if (seededShuffle(tasks, seed)[0]!.kind === kind) return seed;
  throw new Error(`no seed puts a ${kind} task first`);
}

describe("run header: the sandbox of the tasks actually run (--limit 1 --stop-when decided, mixed task file)", () => {
  let server: ScriptedServer;
  let ws: string;
  const script = taskPlanScript(
    bySubstring({
      "Write add(a, b)": { disabled: pythonAnswer(python.canonicalSolution), enabled: [{ answer: pythonAnswer(python.canonicalSolution) }] },
      "What is": { disabled: boxedAnswer("0"), enabled: [{ answer: boxedAnswer("0") }] },
    }),
  );
  before(async () => {
    server = await startScriptedServer({ script });
    ws = tempWorkspace();
  });
  after(async () => {
    await server?.close();
  });

  async function header(tasks: object[], seed: number, name: string) {
    const file = path.join(ws, `${name}.jsonl`);
    writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join("\n") + "\n");
    const out = path.join(ws, "runs", `${name}.jsonl`);
    const run = await runCli(
      ["run", "--skills", "skills", "--tasks", file, "--model", "scripted-model", "--limit", "1", "--stop-when", "decided", "--shuffle-seed", String(seed), "--out", out],
      { cwd: ws, baseUrl: server.url },
    );
    assert.equal(run.code, 0, run.stderr);
    return RunHeaderSchema.parse(JSON.parse(readFileSync(out, "utf8").split("\n")[0]!));
  }

  it("records a sandbox when the one task run is Python, though the file starts with math", async () => {
    const tasks = [math(1), math(2), math(3), python];
    const h = await header(tasks, seedPutting("python-function", tasks), "python-first");
    assert.deepEqual(h.taskIds, ["add"]);
    assert.notEqual(h.sandbox.isolation, "none", JSON.stringify(h.sandbox));
    // No --python: the default, auto, records the runtime it chose and why (which one depends on this machine).
    const [, chosen] = /^auto: (cpython|pyodide) \(.+?\); /.exec(h.sandbox.detail ?? "") ?? [];
    assert.ok(chosen, `the detail names the runtime auto chose: ${h.sandbox.detail}`);
    assert.equal(h.sandbox.isolation === "native-confined", chosen === "cpython", JSON.stringify(h.sandbox));
  });

  it("records no sandbox when the one task run is math, though the file starts with Python", async () => {
    const tasks = [python, math(1), math(2), math(3)];
    const h = await header(tasks, seedPutting("math-answer", tasks), "math-first");
    assert.match(h.taskIds[0]!, /^m\d$/);
    assert.deepEqual(h.sandbox, { isolation: "none" });
  });
});
