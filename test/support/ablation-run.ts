/**
 * Runs the ablation scenario (ablation-scenario.ts) end to end in-process: the paired run, then the ablation of
 * tidy-list-outputs, both through one response cache, against a scripted server. For report and renderer tests.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createGrader } from "../../src/core/grading/index.js";
import { createCachedClient } from "../../src/core/models/cache.js";
import { createOpenAIClient } from "../../src/core/models/openai-client.js";
import { planAblation, runAblation, type AblateOptions } from "../../src/core/runs/ablate.js";
import { evaluate } from "../../src/core/runs/evaluate.js";
import { readRunFile } from "../../src/core/runs/store.js";
import { parseSkill } from "../../src/core/skills/index.js";
import { loadTaskSet } from "../../src/core/tasks/index.js";
import { ABLATION_SKILL, ABLATION_SKILL_FILE, ABLATION_SKILL_TEXT, ablationScript, scenarioTaskLines } from "./ablation-scenario.js";
import { startScriptedServer } from "./scripted-server.js";

export async function runAblationScenario(dir: string, extra: Partial<AblateOptions> = {}): Promise<{ runFile: string; ablationFile: string; calls: number }> {
  const server = await startScriptedServer({ script: ablationScript() });
  const grader = createGrader();
  try {
    const skill = parseSkill(ABLATION_SKILL_FILE, ABLATION_SKILL_TEXT).skill!;
    const tasksFile = path.join(dir, "tasks.jsonl");
    writeFileSync(tasksFile, scenarioTaskLines());
    const taskSet = await loadTaskSet(tasksFile);
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(dir, "cache") });
    const paired = await evaluate(
      { mode: "catalog", design: "paired", samples: 1, temperature: 0, concurrency: 4 },
      { skills: [skill], taskSet, client, model: "m", grader, runFile: path.join(dir, "run.jsonl"), resume: false },
    );
    const run = await readRunFile(paired.runFile);
    const o: AblateOptions = { run: { file: paired.runFile, ...run }, skills: [skill], skillName: ABLATION_SKILL, skillText: ABLATION_SKILL_TEXT, taskSet, client, grader, concurrency: 4, resume: false, ...extra };
    const result = await runAblation(await planAblation(o), o);
    return { runFile: paired.runFile, ablationFile: result.file, calls: server.calls };
  } finally {
    await grader.dispose();
    await server.close();
  }
}
