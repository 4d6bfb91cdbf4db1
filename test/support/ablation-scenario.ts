/**
 * The section-ablation scenario (issue 13), shared by the engine, CLI and VS Code tests. The skill is the shipped
 * harmful example, skills/tidy-list-outputs/SKILL.md. The scripted model decides from the skill text it was given:
 *
 *   task      disabled   enabled, skill text loaded                         paired outcome
 *   O1..O7    right      wrong if the text has "## The rule", else right    harmed (7)
 *   D1..D3    wrong      right if the text has "## How to apply", else wrong rescued (3)
 *   P1..P8    right      right                                              both pass (8)
 *   F1        wrong      wrong                                              both fail (not ablated)
 *   N1        right      right, without loading the skill                   not retrieved (not ablated)
 *
 * Every enabled run except N1's loads the skill at turn 0 and answers at turn 1. So removing "The rule" repairs
 * O1..O7 and breaks nothing; removing "How to apply" breaks D1..D3 and repairs nothing (a section that only helps);
 * every other section changes nothing. Paired run calls: 20 disabled + 19 × 2 + 1 enabled = 59.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ScriptFn } from "./scripted-server.js";
import { boxedAnswer, pairedScript } from "./scripts.js";

export const ABLATION_SKILL = "tidy-list-outputs";
export const ABLATION_SKILL_FILE = path.resolve(__dirname, "..", "..", "skills", ABLATION_SKILL, "SKILL.md");
export const ABLATION_SKILL_TEXT = readFileSync(ABLATION_SKILL_FILE, "utf8");
export const HARMFUL_HEADING = "The rule";
export const HELPFUL_HEADING = "How to apply";

export interface ScenarioTask {
  id: string;
  answer: string;
  kind: "order" | "dedupe" | "plain" | "fail" | "no-load";
}

const range = (prefix: string, n: number, kind: ScenarioTask["kind"], base: number): ScenarioTask[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i + 1}`, answer: String(base + i), kind }));

export const SCENARIO_TASKS: ScenarioTask[] = [
  ...range("O", 7, "order", 10),
  ...range("D", 3, "dedupe", 30),
  ...range("P", 8, "plain", 50),
  { id: "F1", answer: "70", kind: "fail" },
  { id: "N1", answer: "80", kind: "no-load" },
];

/** The task set as JSONL (our native format). */
export function scenarioTaskLines(): string {
  const prompt: Record<ScenarioTask["kind"], string> = {
    order: "Keep the input order of the list and give the position asked for.",
    dedupe: "Collect the distinct values of the list and count them.",
    plain: "Add the numbers of the list.",
    fail: "A question nobody gets right.",
    "no-load": "A question answered without any skill.",
  };
  return SCENARIO_TASKS.map((t) => JSON.stringify({ id: t.id, kind: "math-answer", prompt: `[${t.id}] ${prompt[t.kind]}`, answer: t.answer })).join("\n") + "\n";
}

/** The scripted model: its answer depends on the skill text in the conversation's tool messages. */
export function ablationScript(): ScriptFn {
  const byId = new Map(SCENARIO_TASKS.map((t) => [t.id, t]));
  return pairedScript((ctx) => {
    const id = /^\[(\w+)\]/.exec(ctx.userText)?.[1];
    const task = id ? byId.get(id) : undefined;
    if (!task) return { error: { status: 400, message: `ablation scenario: unknown task ${JSON.stringify(ctx.userText.slice(0, 40))}` } };
    const right = boxedAnswer(task.answer);
    const wrong = boxedAnswer(String(Number(task.answer) + 1));
    if (!ctx.hasTools) return { content: task.kind === "dedupe" || task.kind === "fail" ? wrong : right };
    if (ctx.turn === 0) {
      if (task.kind === "no-load") return { content: right };
      return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: ABLATION_SKILL }) }] };
    }
    const loaded = ctx.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "").join("\n");
    switch (task.kind) {
      case "order":
        return { content: loaded.includes(`## ${HARMFUL_HEADING}`) ? wrong : right };
      case "dedupe":
        return { content: loaded.includes(`## ${HELPFUL_HEADING}`) ? right : wrong };
      case "fail":
        return { content: wrong };
      default:
        return { content: right };
    }
  });
}

export const SCENARIO = {
  pairedRunCalls: 59,
  harmed: ["O1", "O2", "O3", "O4", "O5", "O6", "O7"],
  rescued: ["D1", "D2", "D3"],
  bothPass: ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"],
  sections: ["Tidy list outputs", "The rule", "Why", "How to apply", "Examples", "Notes"],
};
