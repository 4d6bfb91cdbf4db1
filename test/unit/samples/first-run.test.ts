import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { MathAnswerTask, PythonFunctionTask, Task } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { bySubstring, boxedAnswer, pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { repoRoot, runCli, type JsonEvaluation } from "../cli/harness.js";

/**
 * The first run a newcomer makes: the shipped skill library on a built-in task set, through the real CLI,
 * against the scripted model server. The script makes the deliberately harmful skills do what their
 * counter-example metadata says (break the tasks tagged harmed-by), and the helpful ones rescue a few tasks,
 * so the report must show both paths with exactly these task ids.
 */

const skillsDir = path.join(repoRoot, "skills");
const mathFile = path.join(repoRoot, "samples/math-word.jsonl");
const pythonFile = path.join(repoRoot, "samples/python-basics.jsonl");

function readTasks<T extends Task>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

const tagged = (t: Task, tag: string) => (t.tags ?? []).includes(tag);

async function report(ws: string, runFile: string, baseUrl: string): Promise<JsonEvaluation> {
  const rep = await runCli(["report", runFile, "--format", "json"], { cwd: ws, baseUrl });
  assert.equal(rep.code, 0, rep.stderr);
  const evaluations = (JSON.parse(rep.stdout) as { evaluations: JsonEvaluation[] }).evaluations;
  assert.equal(evaluations.length, 1);
  return evaluations[0]!;
}

function skill(e: JsonEvaluation, name: string) {
  const s = e.skills.find((x) => x.name === name);
  assert.ok(s, `no entry for ${name} in the report; skills: ${e.skills.map((x) => x.name).join(", ")}`);
  return { ...s, rescuedTasks: [...s.rescuedTasks].sort(), harmedTasks: [...s.harmedTasks].sort() };
}

describe("first run: example skills on the built-in math set (scripted model)", () => {
  const tasks = readTasks<MathAnswerTask>(mathFile);
  const harmedIds = tasks.filter((t) => tagged(t, "harmed-by:round-money-whole-units")).map((t) => t.id).sort();
  // A realistic slip each helpful skill is written to catch, and the wrong answer the model gives without it.
  const rescues: Record<string, { skill: string; wrong: string }> = {
    "math-train-minutes": { skill: "word-problem-units", wrong: "1800" },
    "math-of-the-rest": { skill: "fraction-arithmetic", wrong: "50" },
    "math-how-many-more": { skill: "final-answer-check", wrong: "144" },
    // The harmful skill still "rescues" one task: the agent re-reads a money question after loading it.
    "math-bike-savings": { skill: "round-money-whole-units", wrong: "90" },
  };
  let server: ScriptedServer;
  let ws: string;
  before(async () => {
    const table: Record<string, TaskPlan> = {};
    for (const t of tasks) {
      const right = boxedAnswer(t.answer);
      let plan: TaskPlan = { disabled: right, enabled: [{ answer: right }] };
      if (harmedIds.includes(t.id)) {
        plan = { disabled: right, enabled: [{ loadSkill: "round-money-whole-units" }, { answer: boxedAnswer(String(Math.round(Number(t.answer)))) }] };
      } else if (rescues[t.id]) {
        plan = { disabled: boxedAnswer(rescues[t.id]!.wrong), enabled: [{ loadSkill: rescues[t.id]!.skill }, { answer: right }] };
      } else if (t.id === "math-ages-future") {
        plan = { disabled: boxedAnswer("12"), enabled: [{ loadSkill: "final-answer-check" }, { answer: boxedAnswer("12") }] };
      }
      table[t.prompt] = plan;
    }
    server = await startScriptedServer({ script: taskPlanScript(bySubstring(table)) });
    ws = mkdtempSync(path.join(os.tmpdir(), "sf-first-run-"));
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("reports the counter-example's harmed tasks and the helpful skills' rescues", async () => {
    const run = await runCli(["run", "--skills", skillsDir, "--tasks", mathFile, "--model", "scripted-model", "--out", "runs/math.jsonl"], { cwd: ws, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /run file: .*math\.jsonl/);

    const e = await report(ws, "runs/math.jsonl", server.url);
    assert.equal(e.overall.n, tasks.length);
    assert.equal(e.overall.harmed, harmedIds.length);
    assert.equal(e.overall.rescued, Object.keys(rescues).length);
    assert.equal(e.overall.bothFail, 1);
    // Retrieval happened on the harmed, rescued and both-fail tasks only.
    assert.equal(e.retrieved.n, harmedIds.length + Object.keys(rescues).length + 1);

    const money = skill(e, "round-money-whole-units");
    assert.deepEqual(money.harmedTasks, harmedIds);
    assert.deepEqual(money.rescuedTasks, ["math-bike-savings"]);
    assert.ok(money.table.effect !== null && money.table.effect < 0, "the counter-example must come out harmful");
    assert.deepEqual(skill(e, "word-problem-units").rescuedTasks, ["math-train-minutes"]);
    assert.deepEqual(skill(e, "fraction-arithmetic").rescuedTasks, ["math-of-the-rest"]);
    const check = skill(e, "final-answer-check");
    assert.deepEqual(check.rescuedTasks, ["math-how-many-more"]);
    assert.equal(check.table.bothFail, 1);
    // A skill never loaded counts no tasks (the report may list it with an empty table).
    assert.equal(e.skills.find((s) => s.name === "tidy-list-outputs")?.table.n ?? 0, 0);
  });
});

describe("first run: example skills on the built-in python set (scripted model, sandbox grading)", () => {
  const limit = 12;
  const tasks = readTasks<PythonFunctionTask>(pythonFile).slice(0, limit);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const need = (id: string) => {
    const t = byId.get(id);
    assert.ok(t, `${id} must be among the first ${limit} python samples`);
    return t;
  };
  // What an agent writes after following tidy-list-outputs: its usual function, then the list "tidied".
  const tidied = (t: PythonFunctionTask, body = t.canonicalSolution) =>
    pythonAnswer(`${body}\n_untidy = ${t.entryPoint}\n\ndef ${t.entryPoint}(*args):\n    r = _untidy(*args)\n    return sorted(set(r)) if isinstance(r, list) else r\n`);
  const harmed = ["py-unique-in-order", "py-evens-in-order", "py-interleave", "py-long-words"];
  const wrongs: Record<string, { skill: string; code: string }> = {
    "py-safe-average": { skill: "python-edge-cases", code: "def safe_average(nums):\n    return sum(nums) / len(nums)" },
    "py-last-digit": { skill: "python-edge-cases", code: "def last_digit(n):\n    return n % 10" },
    "py-flatten": { skill: "recursion-to-iteration", code: "def flatten(nested):\n    return nested" },
  };
  let server: ScriptedServer;
  let ws: string;
  before(async () => {
    const table: Record<string, TaskPlan> = {};
    for (const t of tasks) {
      const right = pythonAnswer(t.canonicalSolution);
      let plan: TaskPlan = { disabled: right, enabled: [{ answer: right }] };
      if (harmed.includes(t.id)) plan = { disabled: right, enabled: [{ loadSkill: "tidy-list-outputs" }, { answer: tidied(t) }] };
      else if (wrongs[t.id]) plan = { disabled: pythonAnswer(wrongs[t.id]!.code), enabled: [{ loadSkill: wrongs[t.id]!.skill }, { answer: right }] };
      else if (t.id === "py-common-sorted") {
        // Without the skill the model keeps repeats in input order; sorting and de-duplicating happens to fix it.
        const naive = "def common_sorted(a, b):\n    return [x for x in a if x in b]";
        plan = { disabled: pythonAnswer(naive), enabled: [{ loadSkill: "tidy-list-outputs" }, { answer: tidied(t, naive) }] };
      }
      table[t.prompt] = plan;
    }
    for (const id of [...harmed, ...Object.keys(wrongs), "py-common-sorted"]) need(id);
    server = await startScriptedServer({ script: taskPlanScript(bySubstring(table)) });
    ws = mkdtempSync(path.join(os.tmpdir(), "sf-first-run-"));
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("tidy-list-outputs harms the order-preserving tasks and rescues the one that wants sorted output", async () => {
    const run = await runCli(
      ["run", "--skills", skillsDir, "--tasks", pythonFile, "--limit", String(limit), "--model", "scripted-model", "--out", "runs/py.jsonl", "--concurrency", "4"],
      { cwd: ws, baseUrl: server.url },
    );
    assert.equal(run.code, 0, run.stderr);
    const e = await report(ws, "runs/py.jsonl", server.url);
    assert.equal(e.overall.n, limit);
    assert.equal(e.overall.harmed, harmed.length);
    assert.equal(e.overall.rescued, Object.keys(wrongs).length + 1);
    const tidy = skill(e, "tidy-list-outputs");
    assert.deepEqual(tidy.harmedTasks, [...harmed].sort());
    assert.deepEqual(tidy.rescuedTasks, ["py-common-sorted"]);
    assert.ok(tidy.table.effect !== null && tidy.table.effect < 0);
    assert.deepEqual(skill(e, "python-edge-cases").rescuedTasks, ["py-last-digit", "py-safe-average"]);
    assert.deepEqual(skill(e, "recursion-to-iteration").rescuedTasks, ["py-flatten"]);
  });
});
