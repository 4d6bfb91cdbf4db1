/**
 * A library's own evals end to end against the scripted server, which answers the agent and the judge over real
 * HTTP. The outcomes are fixed by the scenario (test/support/skill-evals-scenario.ts); every number below is worked
 * out by hand from that table:
 *
 *   task                  enabled loads         enabled   disabled   outcome     expectations E / D
 *   release-notes/1       release-notes (+ref)  pass      fail       rescued     2/2 · 1/2
 *   release-notes/2       release-notes         pass      pass       both pass   2/2 · 2/2
 *   release-notes/3 (nm)  release-notes         fail      pass       harmed      0/1 · 1/1
 *   csv-report/sum        csv-report            pass      fail       rescued     1/1 · 0/1
 *   csv-report/empty      —                     fail      fail       both fail   0/1 · 0/1
 *   csv-report/mean       release-notes         fail      pass       harmed      0/2 · 2/2
 *   commit-style/1        commit-style          pass      pass       both pass   2/2 · 2/2
 *   commit-style/2        commit-style, csv     pass      fail       rescued     1/1 · 0/1
 *   commit-style/trigger-1, -2 (nm): enabled only, both load commit-style.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { buildReport } from "../../../src/core/report/build.js";
import { planAblation, runAblation, type AblateOptions } from "../../../src/core/runs/ablate.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { mcnemarMidP, tangoInterval } from "../../../src/core/stats/index.js";
import { loadSkillEvals, loadTriggerEvals, withTriggerTasks } from "../../../src/core/tasks/index.js";
import { TRANSPORT_FAULTS, startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { SKILL_MARKERS, agentScript, writeLibrary } from "../../support/skill-evals-scenario.js";
import { isJudgeRequest, readJudgeAsk, tagJudge, withJudge } from "../../support/scripts.js";

const root = mkdtempSync(path.join(os.tmpdir(), "sf-skill-evals-"));
const { skillsDir, triggerFile } = writeLibrary(root);
const cacheDir = path.join(root, "cache");

describe("skill evals end to end", () => {
  let server: ScriptedServer;
  const grader = createGrader();
  let n = 0;

  before(async () => {
    server = await startScriptedServer({ script: withJudge(agentScript, tagJudge) });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  const run = async () => {
    const scan = await scanSkills([skillsDir]);
    const base = loadSkillEvals(scan.skills);
    const triggers = loadTriggerEvals(triggerFile, scan.skills);
    const taskSet = withTriggerTasks(base, triggers.tasks, triggerFile, triggers.issues);
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cacheDir });
    const runFile = path.join(root, `run-${n++}.jsonl`);
    const result = await evaluate({ mode: "catalog", concurrency: 2 }, { skills: scan.skills, taskSet, client, model: "m", grader, runFile, resume: false });
    return { result, taskSet, runFile };
  };

  it("gives the rescued and harmed lists, RAE with interval and p, pass rates, triggering and the matrix of the table above", async () => {
    server.reset();
    const { result, taskSet } = await run();
    assert.equal(result.failedRuns, 0, result.lastError);
    assert.equal(taskSet.tasks.length, 10);
    // Agent turns: enabled 21 (3+2+2+2+1+2+2+3+2+2), disabled 8; judge: 5 judged tasks × 2 outputs.
    assert.equal(server.calls, 21 + 8 + 10);
    const e = buildReport([{ header: result.header, records: result.records }]).evaluations[0]!;

    assert.equal(e.tasks.planned, 8, "trigger cases are not pairs");
    assert.deepEqual(e.tasks.incompleteIds, []);
    assert.deepEqual([e.overall!.n, e.overall!.rescued, e.overall!.harmed, e.overall!.bothPass, e.overall!.bothFail], [8, 3, 2, 2, 1]);
    const r = e.retrieved;
    assert.deepEqual([r.n, r.rescued, r.harmed, r.bothPass, r.bothFail], [7, 3, 2, 2, 0]);
    assert.equal(r.effect, 1 / 7);
    // Mid-p of 3 vs 2 discordant: 2·(P(X<2) + ½P(X=2)), X ~ Bin(5, ½) = 2·(6/32 + 5/64·2) = 22/32.
    assert.equal(r.pMid, 22 / 32);
    assert.equal(r.pMid, mcnemarMidP(3, 2));
    assert.deepEqual(r.ci, tangoInterval(3, 2, 7, 0.05));

    const skill = (name: string) => e.skills.find((s) => s.name === name)!;
    const rn = skill("release-notes");
    assert.deepEqual(rn.rescuedTasks, ["release-notes/1"]);
    // Task order is the skills' order (by name), then each file's order.
    assert.deepEqual(rn.harmedTasks, ["csv-report/mean", "release-notes/3"]);
    assert.equal(rn.table.effect, -1 / 4);
    assert.equal(rn.table.pMid, 0.625); // 1 vs 2: 2·(1/8 + ½·3/8)
    assert.deepEqual(skill("csv-report").rescuedTasks, ["commit-style/2", "csv-report/sum"]);
    assert.deepEqual(skill("commit-style").rescuedTasks, ["commit-style/2"]);
    assert.equal(skill("commit-style").table.effect, 1 / 2);

    assert.deepEqual(e.expectations, { enabled: { passed: 8, total: 12, rate: 8 / 12 }, disabled: { passed: 8, total: 12, rate: 8 / 12 } });
    assert.deepEqual(rn.ownExpectations, { enabled: { passed: 4, total: 5, rate: 4 / 5 }, disabled: { passed: 4, total: 5, rate: 4 / 5 } });
    assert.deepEqual(skill("csv-report").ownExpectations?.enabled, { passed: 1, total: 4, rate: 1 / 4 });
    assert.deepEqual(skill("commit-style").ownExpectations?.disabled, { passed: 2, total: 3, rate: 2 / 3 });

    assert.deepEqual(rn.trigger, { ownEvals: { n: 2, loaded: 2 }, otherEvals: { n: 7, loaded: 1 }, nearMiss: { n: 1, loaded: 1 } });
    assert.deepEqual(skill("csv-report").trigger, { ownEvals: { n: 3, loaded: 1 }, otherEvals: { n: 7, loaded: 1 }, nearMiss: { n: 0, loaded: 0 } });
    assert.deepEqual(skill("commit-style").trigger, { ownEvals: { n: 3, loaded: 3 }, otherEvals: { n: 6, loaded: 0 }, nearMiss: { n: 1, loaded: 1 } });
    // Own evals where loaded: release-notes/1 rescued, /2 both pass; csv-report/sum rescued; commit-style/1 both pass, /2 rescued.
    assert.deepEqual([rn.ownEvals!.n, rn.ownEvals!.rescued, rn.ownEvals!.harmed, rn.ownEvals!.effect], [2, 1, 0, 1 / 2]);
    assert.deepEqual(rn.ownEvals!.rescuedTasks, ["release-notes/1"]);
    assert.deepEqual([skill("csv-report").ownEvals!.n, skill("csv-report").ownEvals!.effect], [1, 1]);
    assert.deepEqual([skill("commit-style").ownEvals!.n, skill("commit-style").ownEvals!.effect], [2, 1 / 2]);

    assert.deepEqual(e.triggerMatrix, {
      skills: ["commit-style", "csv-report", "release-notes"],
      owners: ["commit-style", "csv-report", "release-notes"],
      loaded: [
        [3, 0, 0],
        [1, 1, 0],
        [0, 1, 2],
      ],
      n: [
        [3, 3, 2],
        [3, 3, 2],
        [3, 3, 2],
      ],
    });
    assert.deepEqual(e.judge && { model: e.judge.model, repeats: e.judge.repeats, agreement: e.judge.agreement, kappa: e.judge.kappa, unstablePairs: e.judge.unstablePairs }, {
      model: "m",
      repeats: 1,
      agreement: null,
      kappa: null,
      unstablePairs: [],
    });
  });

  it("records the judge's evidence per expectation and the files read", async () => {
    const { result } = await run();
    const rec = (id: string, c: string) => result.records.find((r) => r.taskId === id && r.condition === c)!;
    assert.deepEqual(rec("release-notes/1", "enabled").filesRead, [{ skill: "release-notes", path: "references/style.md" }]);
    assert.equal(rec("release-notes/1", "enabled").retrieved.length, 1);
    assert.deepEqual(rec("release-notes/1", "disabled").verdict.expectations, [
      { text: "Groups the changes by kind [grouped]", passed: true, evidence: "[grouped]" },
      { text: 'contains "## Breaking changes"', passed: false, evidence: "not found in the output (67 characters)", check: "contains" },
    ]);
    assert.equal(rec("csv-report/mean", "disabled").verdict.expectations?.[0]?.check, "json_valid");
    // Read back from the file: the record carries the same.
    const file = await readRunFile(result.runFile);
    assert.deepEqual(file.records.find((r) => r.key === rec("release-notes/1", "disabled").key)?.verdict.expectations, rec("release-notes/1", "disabled").verdict.expectations);
  });

  it("keeps the judge blind: no condition, skill text, tool call or other run's output in any judge request", async () => {
    server.reset();
    await run(); // all cached: nothing is asked again
    assert.equal(server.calls, 0);
    server.reset();
    const fresh = path.join(root, "blind-cache");
    const scan = await scanSkills([skillsDir]);
    const taskSet = loadSkillEvals(scan.skills);
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5 }), { dir: fresh });
    const result = await readRunFile((await evaluate({ mode: "catalog" }, { skills: scan.skills, taskSet, client, model: "m", grader, runFile: path.join(root, "blind.jsonl"), resume: false })).runFile);
    const judged = server.requests.filter(isJudgeRequest);
    assert.equal(judged.length, 10);
    for (const req of judged) {
      const text = JSON.stringify(req);
      assert.equal(req.temperature, 0);
      assert.equal(req.tools, undefined);
      assert.equal(req.messages.length, 2);
      for (const marker of SKILL_MARKERS) assert.ok(!text.includes(marker), `skill text ${marker} in a judge request`);
      for (const word of ["enabled", "disabled", "load_skill", "read_skill_file", "with_skill", "without"]) assert.ok(!text.includes(word), `${word} in a judge request`);
      const ask = readJudgeAsk(req, 0);
      // Exactly one output of its task: the one graded, never the other condition's.
      const outputs = result.records.filter((r) => ask.userText.includes(r.answer ?? "\u0000") && r.answer);
      const own = outputs.filter((r) => r.answer === ask.response);
      assert.equal(own.length, 1, `graded output: ${ask.response}`);
      assert.deepEqual(outputs.filter((r) => r.answer !== ask.response && !ask.response.includes(r.answer!)), []);
    }
    // The attached git log is shown to the judge (it is part of the request), under its path.
    assert.ok(judged.some((r) => readJudgeAsk(r, 0).userText.includes("### evals/files/git-log.txt")));
  });

  it("Find What Harms runs on a skill's own evals: ablated outputs are graded by the same judge", async () => {
    const { result, taskSet } = await run();
    const scan = await scanSkills([skillsDir]);
    const target = scan.skills.find((s) => s.name === "release-notes")!;
    const o: AblateOptions = {
      run: { file: result.runFile, header: result.header, records: (await readRunFile(result.runFile)).records },
      skills: scan.skills,
      skillName: "release-notes",
      skillText: readFileSync(target.file, "utf8"),
      taskSet,
      client: createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5 }), { dir: cacheDir }),
      grader,
      concurrency: 2,
      resume: false,
      control: 1,
      out: path.join(root, "rn.ablation.jsonl"),
    };
    server.reset();
    const ablated = await runAblation(await planAblation(o), o);
    assert.equal(ablated.failedRuns, 0, ablated.lastError);
    assert.ok(ablated.records.length > 0);
    assert.ok(ablated.records.every((r) => r.verdict.expectations !== undefined), "graded as skill evals");
    // Without the section the answers are the same (the script ignores the text), so every grading is a cache hit.
    assert.equal(server.requests.filter(isJudgeRequest).length, 0);
  });

  it("editing a referenced file re-issues only the calls after it was read", async () => {
    const style = path.join(skillsDir, "release-notes", "references", "style.md");
    const before = readFileSync(style, "utf8");
    try {
      writeFileSync(style, `${before}Also: one line per change.\n`);
      server.reset();
      const { result } = await run();
      assert.equal(result.failedRuns, 0);
      // Only release-notes/1's enabled run read the file: its turn after the read is asked again; the answer is the
      // same, so its grading comes from the cache.
      assert.equal(server.calls, 1);
      const last = server.requests[0]!;
      assert.ok(JSON.stringify(last).includes("one line per change"));
    } finally {
      writeFileSync(style, before);
    }
  });
});

describe("skill evals: transport faults on agent and judge calls", () => {
  it("30% faults (429, 500, 503, resets, cut streams, malformed bodies): the same report as a clean run", async () => {
    const kinds = TRANSPORT_FAULTS.filter((k) => k !== "stall");
    const faulty = await startScriptedServer({ script: withJudge(agentScript, tagJudge), faults: { rate: 0.3, seed: 7, kinds } });
    const clean = await startScriptedServer({ script: withJudge(agentScript, tagJudge) });
    const grader = createGrader();
    try {
      const dir = mkdtempSync(path.join(os.tmpdir(), "sf-skill-evals-faults-"));
      const lib = writeLibrary(dir);
      const reportOf = async (server: ScriptedServer, name: string) => {
        const scan = await scanSkills([lib.skillsDir]);
        const client = createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 1, maxBackoffMs: 5, maxRetries: 12 });
        const r = await evaluate({ mode: "catalog", concurrency: 2 }, { skills: scan.skills, taskSet: loadSkillEvals(scan.skills), client, model: "m", grader, runFile: path.join(dir, `${name}.jsonl`), resume: false });
        assert.equal(r.failedRuns, 0, r.lastError);
        const e = buildReport([await readRunFile(r.runFile)]).evaluations[0]!;
        return JSON.stringify({ skills: e.skills, triggerMatrix: e.triggerMatrix, expectations: e.expectations, retrieved: e.retrieved });
      };
      assert.equal(await reportOf(faulty, "faulty"), await reportOf(clean, "clean"));
      assert.ok(Object.keys(faulty.faultsInjected).length >= 4, JSON.stringify(faulty.faultsInjected));
      assert.ok(faulty.requests.some(isJudgeRequest));
    } finally {
      await Promise.all([faulty.close(), clean.close(), grader.dispose()]);
    }
  });
});

describe("skill evals: what a failure leaves", () => {
  let server: ScriptedServer;
  let judgeWorks = false;
  const grader = createGrader();
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-skill-evals-fail-"));
  const lib = writeLibrary(dir);
  const cache = path.join(dir, "cache");
  const good = withJudge(agentScript, tagJudge);

  before(async () => {
    server = await startScriptedServer({ script: (req, ctx) => (isJudgeRequest(req) && !judgeWorks ? { content: "I think it is fine." } : good(req, ctx)) });
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  const evaluateOnce = async (runFile: string, resume: boolean) => {
    const scan = await scanSkills([lib.skillsDir]);
    const taskSet = loadSkillEvals(scan.skills);
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: cache });
    const result = await evaluate({ mode: "catalog", concurrency: 2 }, { skills: scan.skills, taskSet, client, model: "m", grader, runFile, resume });
    return { result, taskSet };
  };

  it("a judge that answers no grading leaves those pairs incomplete, never failed tasks; resuming grades them", async () => {
    const runFile = path.join(dir, "judge-fails.jsonl");
    const first = await evaluateOnce(runFile, false);
    // The 5 judged tasks lose both runs (10 runs); the 3 tasks graded by checks alone are complete.
    assert.equal(first.result.failedRuns, 10);
    assert.match(first.result.lastError ?? "", /the judge's answer is not JSON/);
    const partial = buildReport([{ header: first.result.header, records: first.result.records }]).evaluations[0]!;
    assert.deepEqual(partial.tasks.incompleteIds.sort(), ["commit-style/1", "csv-report/empty", "release-notes/1", "release-notes/2", "release-notes/3"]);
    assert.equal(partial.overall!.n, 3);
    judgeWorks = true;
    server.reset();
    const resumed = await evaluateOnce(runFile, true);
    assert.equal(resumed.result.failedRuns, 0);
    // The agent's answers come from the cache; only the judge is asked (the bad gradings were never cached).
    assert.equal(server.calls, 10);
    assert.ok(server.requests.every(isJudgeRequest));
    const full = buildReport([{ header: resumed.result.header, records: resumed.result.records }]).evaluations[0]!;
    assert.equal(full.overall!.n, 8);
    assert.deepEqual([full.overall!.rescued, full.overall!.harmed], [3, 2]);
  });

  it("a broken eval file is a located issue; the other skills' evals run from the cache and the earlier run keeps its report", async () => {
    const runFile = path.join(dir, "before.jsonl");
    judgeWorks = true;
    const before = await evaluateOnce(runFile, false);
    assert.equal(before.result.failedRuns, 0);
    const reportBefore = JSON.stringify(buildReport([await readRunFile(runFile)]));
    const file = path.join(lib.skillsDir, "csv-report", "evals", "evals.json");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace('"id": "empty",', '"id": "empty"'));
    try {
      server.reset();
      const after = await evaluateOnce(path.join(dir, "after.jsonl"), false);
      assert.equal(after.taskSet.issues.length, 1);
      const issue = after.taskSet.issues[0]!;
      assert.equal(issue.file, file);
      assert.match(`${issue.line}:${issue.column}: ${issue.message}`, /^\d+:\d+: not valid JSON: a comma was expected$/);
      assert.deepEqual(after.taskSet.tasks.map((t) => t.id), ["commit-style/1", "commit-style/2", "release-notes/1", "release-notes/2", "release-notes/3"]);
      assert.equal(server.calls, 0, "nothing already run is asked again");
      assert.equal(JSON.stringify(buildReport([await readRunFile(runFile)])), reportBefore);
    } finally {
      writeFileSync(file, text);
    }
  });
});
