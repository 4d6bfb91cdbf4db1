import type { Task } from "../tasks/schema.js";
import { skillEvalMessage } from "../tasks/skill-eval-message.js";

/**
 * Prompt text shared by both conditions. Bump PROMPT_VERSION whenever any text here changes: it is recorded in
 * the run header, and it changes every cached request anyway.
 */
export const PROMPT_VERSION = "2";

const BASE_SYSTEM = [
  "You are a careful problem solver. Solve the task you are given and answer in exactly the format it asks for.",
  "Think briefly, then give the final answer.",
].join("\n");

/** The system prompt: identical in both conditions except for the skill section the enabled condition appends. */
export function systemPrompt(skillSection: string | undefined): string {
  return skillSection ? `${BASE_SYSTEM}\n\n${skillSection}` : BASE_SYSTEM;
}

/**
 * The user message: the task's prompt verbatim, then fixed answer-format instructions. A skill eval is a user's own
 * request: its prompt and attached files, with no format imposed (its expectations say what a good answer is).
 */
export function userPrompt(task: Task): string {
  if (task.kind === "skill-eval") return skillEvalMessage(task);
  return `${task.prompt.trim()}\n\n${answerFormat(task)}`;
}

function answerFormat(task: Task): string {
  if (task.kind === "python-function") {
    return [
      "## Answer format",
      `Answer with one fenced \`\`\`python code block containing a complete, self-contained implementation of the function \`${task.entryPoint}\` (with any imports and helpers it needs).`,
      "Do not include tests, example calls or input() in the block.",
    ].join("\n");
  }
  return ["## Answer format", "Show your reasoning briefly, then give the final answer on the last line as \\boxed{...}."].join("\n");
}
