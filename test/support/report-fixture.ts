/**
 * Run files for report tests, written as the engine writes them: one header, then an enabled and a disabled record
 * per task. `libraryRun` takes per-skill outcome counts, so a test can say "skill A harmed 6 and rescued 0 of its 10
 * tasks" and know every number in the report.
 */
import { createHash } from "node:crypto";
import type { LoadedRun } from "../../src/extension/report-view-model.js";
import type { RunHeader, RunRecord } from "../../src/core/runs/types.js";

export interface SkillOutcomes {
  name: string;
  /** Retrieved tasks of this skill: how many of each outcome. */
  rescued: number;
  harmed: number;
  bothPass: number;
  bothFail: number;
}

export const hashOf = (name: string): string => createHash("sha256").update(`skill:${name}`).digest("hex");

function rec(taskId: string, condition: "enabled" | "disabled", pass: boolean, skill?: string): RunRecord {
  const retrieved = condition === "enabled" && skill ? [{ name: skill, contentHash: hashOf(skill) }] : [];
  return {
    type: "run",
    key: `${taskId}\u0000${condition}\u00000`,
    taskId,
    condition,
    sample: 0,
    retrieved,
    toolCalls: [],
    answer: "a",
    verdict: { pass, reason: pass ? "all tests pass" : "base input #0: expected 1, got 2" },
    tokens: { prompt: 10, completion: 5 },
    latencyMs: 1,
    modelCalls: 1,
    cachedCalls: 0,
    turns: 1,
    transcript: [],
    finishedAt: "2026-11-29T12:00:01.000Z",
  };
}

/** One run of a library: each skill's retrieved tasks as given, plus `unretrieved` tasks that pass without retrieval. */
export function libraryRun(skills: SkillOutcomes[], options: { model?: string; unretrieved?: number; file?: string; skillDir?: string } = {}): LoadedRun {
  const records: RunRecord[] = [];
  const ids: string[] = [];
  for (const s of skills) {
    const cells: Array<[number, boolean, boolean]> = [
      [s.rescued, false, true],
      [s.harmed, true, false],
      [s.bothPass, true, true],
      [s.bothFail, false, false],
    ];
    let i = 0;
    for (const [count, disabled, enabled] of cells) {
      for (let k = 0; k < count; k++, i++) {
        const id = `${s.name}-t${i}`;
        ids.push(id);
        records.push(rec(id, "enabled", enabled, s.name), rec(id, "disabled", disabled));
      }
    }
  }
  for (let k = 0; k < (options.unretrieved ?? 4); k++) {
    const id = `plain-${k}`;
    ids.push(id);
    records.push(rec(id, "enabled", k % 2 === 0), rec(id, "disabled", k % 2 === 0));
  }
  const model = options.model ?? "model-one";
  const dir = options.skillDir ?? "/skills";
  const header: RunHeader = {
    type: "header",
    formatVersion: 1,
    toolVersion: "0.1.0",
    runId: `run-${model}`,
    createdAt: "2026-11-29T12:00:00.000Z",
    model: { id: `openai-compatible:${model}@http://127.0.0.1/v1`, name: model },
    params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "synthetic", format: "native", file: "/tasks.jsonl", hash: "h-tasks", size: ids.length },
    taskIds: ids,
    skills: skills.map((s) => ({ name: s.name, contentHash: hashOf(s.name), file: `${dir}/${s.name}/SKILL.md`, description: `about ${s.name}` })),
    skillLibraryHash: "h-lib",
    mode: "catalog",
    design: "paired",
    promptVersion: "p1",
    sandbox: { isolation: "none" },
    stopWhen: "never",
  } as RunHeader;
  return { file: options.file ?? `/runs/${model}.jsonl`, header, records, stops: [], warnings: [] };
}

/**
 * A library of three skills where `money` is harmful on its own (5 harmed, 0 rescued: mid-p 0.031) but not after Holm
 * over three skills, `units` rescues 2 and harms 1, `lists` rescues 1 and harms 1.
 */
export const LIBRARY: SkillOutcomes[] = [
  { name: "money", rescued: 0, harmed: 5, bothPass: 4, bothFail: 1 },
  { name: "units", rescued: 2, harmed: 1, bothPass: 4, bothFail: 1 },
  { name: "lists", rescued: 1, harmed: 1, bothPass: 5, bothFail: 0 },
];
