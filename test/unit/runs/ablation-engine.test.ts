/**
 * Section ablation runs through the engine's job, pool, failure and record code (src/core/runs/job.ts): its records
 * carry what a run record carries (the files the agent read under a skill), and a judge that refuses the key or does
 * not know the model (401/403/404) stops an ablation exactly as it stops an evaluation. Real HTTP against the
 * scripted server (its judge answers or fails as the test says); the skill-evals scenario fixes every outcome.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ModelRequestError } from "../../../src/core/errors.js";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { planAblation, runAblation, type AblateOptions } from "../../../src/core/runs/ablate.js";
import { readAblationFile } from "../../../src/core/runs/ablation-store.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { loadSkillEvals, type TaskSet } from "../../../src/core/tasks/index.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { agentScript, writeLibrary } from "../../support/skill-evals-scenario.js";
import { isJudgeRequest, tagJudge, withJudge } from "../../support/scripts.js";

const root = mkdtempSync(path.join(os.tmpdir(), "sf-ablation-engine-"));
const { skillsDir } = writeLibrary(root);

describe("ablation on the engine: records and failures as an evaluation's", () => {
  let server: ScriptedServer;
  /** While set, every judge request gets this HTTP status instead of a grading. */
  let judgeStatus: number | undefined;
  const grader = createGrader();
  let skills: Skill[];
  let taskSet: TaskSet;
  let runFile = "";
  const agentClient = () => createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(root, "cache") });
  // The judge is never cached here: every grading asks the server, so its failure is seen.
  const judge = () => ({ client: createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "j", retryBaseMs: 5, maxBackoffMs: 20 }), model: "j" });
  let n = 0;

  const options = async (extra: Partial<AblateOptions> = {}): Promise<AblateOptions> => ({
    run: { file: runFile, ...(await readRunFile(runFile)) },
    skills,
    skillName: "release-notes",
    skillText: readFileSync(path.join(skillsDir, "release-notes", "SKILL.md"), "utf8"),
    taskSet,
    client: agentClient(),
    judge: judge(),
    grader,
    concurrency: 1,
    control: 1,
    resume: false,
    out: path.join(root, `ablation-${n++}.jsonl`),
    ...extra,
  });

  before(async () => {
    const judgeScript = withJudge(agentScript, tagJudge);
    server = await startScriptedServer({
      script: (req, ctx) => (judgeStatus !== undefined && isJudgeRequest(req) ? { error: { status: judgeStatus, message: `judge says ${judgeStatus}` } } : judgeScript(req, ctx)),
    });
    skills = (await scanSkills([skillsDir])).skills;
    taskSet = loadSkillEvals(skills);
    const paired = await evaluate({ mode: "catalog", concurrency: 2 }, { skills, taskSet, client: agentClient(), judge: judge(), model: "m", grader, runFile: path.join(root, "run.jsonl"), resume: false });
    assert.equal(paired.failedRuns, 0, paired.lastError);
    runFile = paired.runFile;
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  it("an ablation record carries the files the agent read under the skill, as the run's record does", async () => {
    judgeStatus = undefined;
    const o = await options();
    const result = await runAblation(await planAblation(o), o);
    assert.equal(result.failedRuns, 0, result.lastError);
    const run = await readRunFile(runFile);
    const full = run.records.find((r) => r.taskId === "release-notes/1" && r.condition === "enabled")!;
    assert.deepEqual(full.filesRead, [{ skill: "release-notes", path: "references/style.md" }]);
    const back = await readAblationFile(result.file);
    const ablated = back.records.filter((r) => r.taskId === "release-notes/1");
    assert.ok(ablated.length > 0);
    for (const r of ablated) assert.deepEqual(r.filesRead, full.filesRead, `variant ${r.variant}`);
    // Records without a read carry none, as run records do.
    assert.ok(back.records.filter((r) => r.taskId !== "release-notes/1").every((r) => r.filesRead === undefined));
  });

  for (const status of [401, 403, 404]) {
    it(`a judge ${status} stops an evaluation and an ablation alike: the error is thrown, not counted as a failed run`, async () => {
      judgeStatus = status;
      try {
        const isStatus = (err: unknown) => err instanceof ModelRequestError && err.status === status;
        await assert.rejects(
          evaluate({ mode: "catalog", concurrency: 1 }, { skills, taskSet, client: agentClient(), judge: judge(), model: "m", grader, runFile: path.join(root, `eval-${status}.jsonl`), resume: false }),
          isStatus,
        );
        const o = await options();
        const plan = await planAblation(o);
        server.reset();
        await assert.rejects(runAblation(plan, o), isStatus);
        const judged = server.requests.filter(isJudgeRequest).length;
        assert.equal(judged, 1, "the first refused grading stopped the ablation (concurrency 1)");
        const written = (await readAblationFile(o.out!)).records.length;
        assert.ok(written < plan.pending, `stopped early: ${written} of ${plan.pending} runs written`);
      } finally {
        judgeStatus = undefined;
      }
    });
  }
});
