/**
 * The scenario the real-harness suites reproduce (claude-code-harness, opencode-harness, gemini-harness): six tasks of
 * samples/math-word.jsonl with the shipped skill round-money-whole-units. Three are harmed (the skill's rounding turns
 * a right answer wrong), one is rescued, one loads the skill through the shell and reads a reference with no effect,
 * one never loads it: rescued 1, harmed 3, RAE (1 − 3)/5, OAE (1 − 3)/6. Each harness takes the same steps with its
 * own tools (`HarnessSteps`).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { MathAnswerTask } from "../../src/core/tasks/schema.js";
import type { Plan } from "./scripted-plans.js";
import type { ChatCompletionRequestBody } from "./scripted-server.js";

export const SKILL = "round-money-whole-units";
export const REFERENCE = "references/examples.md";
export const ROOT = path.resolve(__dirname, "..", "..");
const TASKS = readFileSync(path.join(ROOT, "samples", "math-word.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as MathAnswerTask);
export const task = (id: string) => TASKS.find((t) => t.id === id)!;
export const boxed = (v: string) => `The answer is \\boxed{${v}}.`;

export const HARMED = ["math-apples-cents", "math-cafe-order", "math-pens-change"];
export const RESCUED = ["math-bike-savings"];
export const LOADED_NO_EFFECT = "math-family-tickets";
export const NOT_LOADED = "math-eggs-dozen";
export const IDS = [...HARMED, ...RESCUED, LOADED_NO_EFFECT, NOT_LOADED];

/** A harness's own way of taking each step. */
export interface HarnessSteps<Step> {
  /** The harness's project skills folder, relative to the workspace (`.claude/skills`). */
  skillsDir: string;
  load(skill: string): Step;
  shell(command: string): Step;
  read(file: string): Step;
  answer(text: string): Step;
}

/** The scenario's plans, keyed by task prompt, in the harness's own steps. */
export function scenarioPlans<Step>(h: HarnessSteps<Step>): Record<string, Plan<Step>> {
  const table: Record<string, Plan<Step>> = {};
  for (const id of HARMED) {
    const t = task(id);
    table[t.prompt] = { disabled: [h.answer(boxed(t.answer))], enabled: [h.load(SKILL), h.answer(boxed(String(Math.round(Number(t.answer)))))] };
  }
  table[task("math-bike-savings").prompt] = { disabled: [h.answer(boxed("90"))], enabled: [h.load(SKILL), h.answer(boxed("150"))] };
  // Loaded through the shell instead of the harness's skill tool, then a reference read with its file tool.
  table[task(LOADED_NO_EFFECT).prompt] = {
    skill: SKILL,
    disabled: [h.answer(boxed("54"))],
    enabled: [h.shell(`cat ${h.skillsDir}/${SKILL}/SKILL.md`), h.read(`/workspace/${h.skillsDir}/${SKILL}/${REFERENCE}`), h.answer(boxed("54"))],
  };
  table[task(NOT_LOADED).prompt] = { skill: SKILL, disabled: [h.answer(boxed("45"))], enabled: [h.answer(boxed("45"))] };
  return table;
}

/** The first request of each conversation (no assistant turn yet). */
export const firstRequests = (reqs: readonly ChatCompletionRequestBody[]) => reqs.filter((r) => !r.messages.some((m) => m.role === "assistant"));
