/** Synthetic run headers and records for report tests (shapes from src/core/runs/types.ts). */
import { createHash } from "node:crypto";
import { RUN_FORMAT_VERSION, runKey, type RunHeader, type RunRecord } from "../../../src/core/runs/types.js";
import type { Condition } from "../../../src/shared/vocabulary/index.js";

export const hashOf = (name: string): string => createHash("sha256").update(`skill:${name}`).digest("hex");

export function header(over: Partial<RunHeader> = {}, skillNames: string[] = []): RunHeader {
  const taskIds = over.taskIds ?? [];
  return {
    type: "header",
    formatVersion: RUN_FORMAT_VERSION,
    toolVersion: "0.1.0",
    runId: "run-1",
    createdAt: "2026-11-29T12:00:00.000Z",
    model: { id: "m-1", name: "model-one" },
    params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "synthetic", format: "native", file: "tasks.jsonl", hash: "h-tasks", size: taskIds.length },
    taskIds,
    skills: skillNames.map((n) => ({ name: n, contentHash: hashOf(n), file: `skills/${n}/SKILL.md`, description: `about ${n}` })),
    skillLibraryHash: "h-lib",
    mode: "catalog",
    design: "paired",
    promptVersion: "p1",
    sandbox: { isolation: "process-permission" },
    stopWhen: "never",
    ...over,
  };
}

export function rec(taskId: string, condition: Condition, pass: boolean, skills: string[] = [], sample = 0, reason?: string): RunRecord {
  const retrieved = condition === "enabled" ? skills.map((n) => ({ name: n, contentHash: hashOf(n) })) : [];
  return {
    type: "run",
    key: runKey(taskId, condition, sample),
    taskId,
    condition,
    sample,
    retrieved,
    toolCalls: retrieved.map((s) => ({ name: "load_skill", arguments: JSON.stringify({ name: s.name }), retrieved: [s] })),
    answer: "def f(): pass",
    verdict: { pass, reason: reason ?? (pass ? "all tests pass" : "base input #0: expected 1, got 2") },
    tokens: { prompt: 10, completion: 5 },
    latencyMs: 1,
    modelCalls: 1 + retrieved.length,
    cachedCalls: 0,
    turns: 1 + retrieved.length,
    transcript: [],
    finishedAt: "2026-11-29T12:00:01.000Z",
  };
}

/** Both records of one task: outcome as y₋ (disabled), y₊ (enabled). */
export function pair(taskId: string, yMinus: boolean, yPlus: boolean, skills: string[] = []): RunRecord[] {
  return [rec(taskId, "enabled", yPlus, skills), rec(taskId, "disabled", yMinus)];
}
