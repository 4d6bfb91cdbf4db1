/**
 * The model behind *Try the Example* in tests: the shipped harmful skill `round-money-whole-units` on the built-in
 * math set (samples/math-word.jsonl). On every task tagged `harmed-by:round-money-whole-units` the enabled run loads
 * the skill and rounds the money answer (wrong); on `math-bike-savings` it loads it, re-reads the question and
 * gets right what the disabled run got wrong (rescued); every other task is answered right in both conditions
 * without a load. So the report's numbers are known in advance (EXAMPLE_EXPECTED).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { MathAnswerTask } from "../../src/core/tasks/schema.js";
import type { ScriptFn } from "./scripted-server.js";
import { boxedAnswer, bySubstring, taskPlanScript, type TaskPlan } from "./scripts.js";

export const EXAMPLE_SKILL = "round-money-whole-units";
export const EXAMPLE_TASKS_FILE = path.resolve(__dirname, "..", "..", "samples", "math-word.jsonl");

const tasks = readFileSync(EXAMPLE_TASKS_FILE, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as MathAnswerTask);

export const EXAMPLE_HARMED = tasks.filter((t) => (t.tags ?? []).includes(`harmed-by:${EXAMPLE_SKILL}`)).map((t) => t.id).sort();
export const EXAMPLE_RESCUED = ["math-bike-savings"];

export const EXAMPLE_EXPECTED = {
  n: tasks.length,
  nRetrieved: EXAMPLE_HARMED.length + EXAMPLE_RESCUED.length,
  harmed: EXAMPLE_HARMED.length,
  rescued: EXAMPLE_RESCUED.length,
  /** (rescued − harmed) / retrieved */
  rae: (EXAMPLE_RESCUED.length - EXAMPLE_HARMED.length) / (EXAMPLE_HARMED.length + EXAMPLE_RESCUED.length),
};

export function exampleScript(): ScriptFn {
  const table: Record<string, TaskPlan> = {};
  for (const t of tasks) {
    const right = boxedAnswer(t.answer);
    let plan: TaskPlan = { disabled: right, enabled: [{ answer: right }] };
    if (EXAMPLE_HARMED.includes(t.id)) plan = { disabled: right, enabled: [{ loadSkill: EXAMPLE_SKILL }, { answer: boxedAnswer(String(Math.round(Number(t.answer)))) }] };
    else if (EXAMPLE_RESCUED.includes(t.id)) plan = { disabled: boxedAnswer("90"), enabled: [{ loadSkill: EXAMPLE_SKILL }, { answer: right }] };
    table[t.prompt] = plan;
  }
  return taskPlanScript(bySubstring(table));
}
