/**
 * A synthetic math evaluation whose every outcome is known in advance, shared by the reliability suite and
 * `npm run bench`: cheap to grade (math answers), any size, and a script that says exactly how many model
 * calls each run costs. Task i's prompt carries the tag `[task m-000i]`; the script finds its plan by that tag.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Task, TaskSet } from "../../../src/core/tasks/schema.js";
import { boxedAnswer, taskPlanScript, type PlanStep, type TaskPlan } from "../../support/scripts.js";
import type { ScriptFn } from "../../support/scripted-server.js";
import { mulberry32 } from "../../../src/core/stats/bootstrap.js";

/** The skills of the scenario's library (written by `writeScenarioSkills`). */
export const SCENARIO_SKILLS = ["carry-digits", "check-units", "estimate-first"] as const;
export type ScenarioSkill = (typeof SCENARIO_SKILLS)[number];

/** What happens on one task: the disabled answer, and the enabled run's steps. */
export type Outcome = "rescued" | "harmed" | "both-pass" | "both-fail";

export interface ScenarioTask {
  task: Task & { kind: "math-answer" };
  outcome: Outcome;
  /** Skills the enabled run loads, in order; may include a name that is not in the library. */
  loads: string[];
  plan: TaskPlan;
}

export interface MathScenario {
  tasks: ScenarioTask[];
  taskSet: TaskSet;
  script: ScriptFn;
}

export interface ScenarioOptions {
  n: number;
  /** true: every enabled run answers in one turn without loading anything (2n calls in all). */
  oneTurn?: boolean;
  seed?: number;
}


export function taskTag(i: number): string {
  return `m-${String(i).padStart(4, "0")}`;
}

const OUTCOMES: Outcome[] = ["rescued", "harmed", "both-pass", "both-fail", "both-pass", "rescued"];

/**
 * Loads per task, cycling so every skill is rescued and harmed on some tasks: none, one skill, two skills,
 * and an unknown name (not a retrieval) followed by nothing.
 */
function loadsFor(i: number, rand: () => number): string[] {
  const pick = () => SCENARIO_SKILLS[Math.floor(rand() * SCENARIO_SKILLS.length)] ?? "carry-digits";
  switch (i % 5) {
    case 0:
      return [];
    case 1:
    case 2:
      return [pick()];
    case 3: {
      const a = pick();
      const b = SCENARIO_SKILLS.find((s) => s !== a) ?? "check-units";
      return [a, b];
    }
    default:
      return ["no-such-skill"];
  }
}

export function mathScenario(options: ScenarioOptions): MathScenario {
  const rand = mulberry32(options.seed ?? 7);
  const tasks: ScenarioTask[] = [];
  for (let i = 0; i < options.n; i++) {
    const a = 10 + Math.floor(rand() * 900);
    const b = 10 + Math.floor(rand() * 900);
    const right = String(a + b);
    const wrong = String(a + b + 1);
    const outcome = OUTCOMES[Math.floor(rand() * OUTCOMES.length)] ?? "both-pass";
    const loads = options.oneTurn ? [] : loadsFor(i, rand);
    const enabledRight = outcome === "rescued" || outcome === "both-pass";
    const disabledRight = outcome === "harmed" || outcome === "both-pass";
    const steps: PlanStep[] = [...loads.map((name) => ({ loadSkill: name })), { answer: boxedAnswer(enabledRight ? right : wrong) }];
    const task = {
      id: `synthetic/${i}`,
      kind: "math-answer" as const,
      prompt: `[task ${taskTag(i)}] A crate holds ${a} apples and another holds ${b}. How many apples are there in all?`,
      answer: right,
    };
    tasks.push({ task, outcome, loads, plan: { disabled: boxedAnswer(disabledRight ? right : wrong), enabled: steps } });
  }
  const byTag = new Map(tasks.map((t, i) => [taskTag(i), t.plan]));
  const script = taskPlanScript((userText) => {
    const m = /\[task (m-\d+)\]/.exec(userText);
    return m ? byTag.get(m[1] ?? "") : undefined;
  });
  const lines = tasks.map((t) => JSON.stringify(t.task)).join("\n") + "\n";
  const taskSet: TaskSet = {
    name: "synthetic-math",
    format: "native",
    file: "synthetic-math.jsonl",
    hash: createHash("sha256").update(lines).digest("hex"),
    tasks: tasks.map((t) => t.task),
    issues: [],
  };
  return { tasks, taskSet, script };
}

/** The task file of a scenario (native JSONL), for driving the CLI. */
export function writeScenarioTasks(scenario: MathScenario, file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, scenario.tasks.map((t) => JSON.stringify(t.task)).join("\n") + "\n");
  return file;
}

/** Writes the scenario's skill library under `dir` (one folder per skill) and returns `dir`. */
export function writeScenarioSkills(dir: string): string {
  const text: Record<ScenarioSkill, [string, string]> = {
    "carry-digits": ["Column addition with carries. Use when adding multi-digit whole numbers by hand.", "Add the units first, carry the tens, and re-add to check."],
    "check-units": ["Keep units attached to every quantity. Use for word problems with counts of objects.", "Write the unit beside each number; the answer's unit must match the question."],
    "estimate-first": ["Estimate before computing. Use when an answer can be sanity-checked by rounding.", "Round each number, add the rounded values, and compare with the exact result."],
  };
  for (const name of SCENARIO_SKILLS) {
    const [description, body] = text[name];
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\n${body}\n`);
  }
  return dir;
}

/** Model calls the first evaluation needs: one disabled turn per task, plus every enabled step. */
export function expectedCalls(scenario: MathScenario, design: "paired" | "rae-only" = "paired"): number {
  let calls = 0;
  for (const t of scenario.tasks) {
    calls += t.plan.enabled.length;
    const retrieved = t.loads.some((l) => (SCENARIO_SKILLS as readonly string[]).includes(l));
    if (design === "paired" || retrieved) calls += 1;
  }
  return calls;
}

/** Tasks whose enabled run retrieved at least one skill (n_cond). */
export function retrievedCount(scenario: MathScenario): number {
  return scenario.tasks.filter((t) => t.loads.some((l) => (SCENARIO_SKILLS as readonly string[]).includes(l))).length;
}

/**
 * Requests that must be re-issued after `skill`'s body changes: in each enabled run, every request after the
 * first load of that skill (its body is in their messages), up to the final answer.
 */
export function callsAfterLoad(scenario: MathScenario, skill: string): number {
  let calls = 0;
  for (const t of scenario.tasks) {
    const at = t.loads.indexOf(skill);
    if (at >= 0) calls += t.plan.enabled.length - (at + 1);
  }
  return calls;
}

/** Every enabled request (a description is in the system prompt of all of them). */
export function enabledCalls(scenario: MathScenario): number {
  return scenario.tasks.reduce((s, t) => s + t.plan.enabled.length, 0);
}

export interface CountTable {
  n: number;
  bothPass: number;
  rescued: number;
  harmed: number;
  bothFail: number;
}

/** The report's contract tables as the script dictates them (paired design, one sample). */
export function expectedTables(scenario: MathScenario) {
  const empty = (): CountTable => ({ n: 0, bothPass: 0, rescued: 0, harmed: 0, bothFail: 0 });
  const add = (t: CountTable, o: Outcome) => {
    t.n++;
    if (o === "rescued") t.rescued++;
    else if (o === "harmed") t.harmed++;
    else if (o === "both-pass") t.bothPass++;
    else t.bothFail++;
  };
  const overall = empty();
  const retrieved = empty();
  const notRetrieved = empty();
  const skills = new Map<string, CountTable & { rescuedTasks: string[]; harmedTasks: string[] }>();
  for (const t of scenario.tasks) {
    add(overall, t.outcome);
    const real = [...new Set(t.loads.filter((l) => (SCENARIO_SKILLS as readonly string[]).includes(l)))];
    add(real.length ? retrieved : notRetrieved, t.outcome);
    for (const s of real) {
      const entry = skills.get(s) ?? { ...empty(), rescuedTasks: [], harmedTasks: [] };
      add(entry, t.outcome);
      if (t.outcome === "rescued") entry.rescuedTasks.push(t.task.id);
      if (t.outcome === "harmed") entry.harmedTasks.push(t.task.id);
      skills.set(s, entry);
    }
  }
  return { overall, retrieved, notRetrieved, skills };
}
