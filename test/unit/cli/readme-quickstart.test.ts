import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { loadTaskSet } from "../../../src/core/tasks/index.js";
import type { PythonFunctionTask } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { FAKE_KEY, repoRoot, runCli, spawnCollect, type JsonEvaluation } from "./harness.js";

/**
 * The README's quick start, verbatim: its main-job command is run against the scripted server. The scripted model
 * follows the sample tasks' tags: on `helps:<skill>` tasks it loads that skill and gets the answer right (wrong
 * without it); on `harmed-by:<skill>` tasks it loads that skill and gets it wrong (right without it).
 */
const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const quickStart = /<!-- quickstart -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
const mainLine = quickStart.split("\n").find((l) => l.includes("npm start")) ?? "";

let server: ScriptedServer;
const home = mkdtempSync(path.join(os.tmpdir(), "sf-quickstart-"));

before(async () => {
  const set = await loadTaskSet(path.join(repoRoot, "samples/python-basics.jsonl"));
  const plans = new Map<string, TaskPlan>();
  for (const t of set.tasks as PythonFunctionTask[]) {
    const right = pythonAnswer(t.canonicalSolution);
    const wrong = pythonAnswer(`def ${t.entryPoint}(*args, **kwargs):\n    return None`);
    const harmedBy = t.tags?.find((x) => x.startsWith("harmed-by:"))?.slice("harmed-by:".length);
    const helps = t.tags?.find((x) => x.startsWith("helps:"))?.slice("helps:".length);
    if (harmedBy) plans.set(t.prompt.trim(), { disabled: right, enabled: [{ loadSkill: harmedBy }, { answer: wrong }] });
    else if (helps) plans.set(t.prompt.trim(), { disabled: wrong, enabled: [{ loadSkill: helps }, { answer: right }] });
    else plans.set(t.prompt.trim(), { disabled: right, enabled: [{ answer: right }] });
  }
  server = await startScriptedServer({ script: taskPlanScript((text) => [...plans].find(([k]) => text.startsWith(k))?.[1]) });
});
after(async () => {
  await server?.close();
});

it("the README's set-up is two commands: the main job and the tests", () => {
  const lines = quickStart.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  assert.equal(lines.length, 2, quickStart);
  assert.match(lines[0]!, /^npm ci && npm start\b/);
  assert.match(lines[1]!, /^npm ci && npm test\b/);
});

it("the quick start's main job runs verbatim and shows the harmful example skill harming tasks", async () => {
  // CI has already run `npm ci`; run the rest of the line exactly as written.
  const command = mainLine.replace(/#.*$/, "").replace(/^npm ci && /, "").trim();
  assert.equal(command, "npm start");
  const result = await spawnCollect("sh", ["-c", command], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", HOME: home, OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: server.url, SKILL_FOLLOWING_MODEL: "scripted", SKILL_FOLLOWING_DIR: path.join(home, "sf") },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /RAE/);
  assert.match(result.stdout, /run file: /);
  const runs = readdirSync(path.join(home, "sf", "runs"));
  assert.equal(runs.length, 1);

  const rep = await runCli(["report", path.join(home, "sf", "runs", runs[0]!), "--format", "json"], { cwd: home, baseUrl: server.url });
  assert.equal(rep.code, 0, rep.stderr);
  const e = (JSON.parse(rep.stdout) as { evaluations: JsonEvaluation[] }).evaluations[0]!;
  const tidy = e.skills.find((s) => s.name === "tidy-list-outputs")!;
  assert.ok(tidy.harmedTasks.length >= 1, "the deliberately harmful skill harms tasks");
  assert.ok(tidy.table.harmed > tidy.table.rescued);
  const helped = e.skills.filter((s) => s.name !== "tidy-list-outputs" && s.rescuedTasks.length > 0);
  assert.ok(helped.length >= 3, "helpful skills rescue tasks");
  assert.equal(e.overall.n, 43);
});
