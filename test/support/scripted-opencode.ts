/**
 * The scripted model for OpenCode runs. OpenCode speaks OpenAI Chat Completions to the product's model proxy, which
 * asks the evaluation's client; in tests that client is the real `openai` client talking to the scripted server
 * (scripted-server.ts). So this script reads what OpenCode built and answers with OpenCode's own tools:
 *
 * - the condition is what the model was shown: a plan's skill counts as offered when the `<available_skills>` list
 *   OpenCode put in its system prompt names it (the disabled condition's says "No skills are currently available.");
 * - the task is the plan whose key occurs in a user message;
 * - the step is the number of earlier assistant turns;
 * - `loadSkill` becomes a call of OpenCode's `skill` tool `{"name"}`, `readFile` a `read` call `{"filePath"}`,
 *   `bash` a `bash` call `{"command", "description"}`, `writeFile` a `write` call, `answer` the text.
 *
 * `skillListOf` pulls the listed skill names out of a request, for the request-log assertions.
 */
import type { ScriptedReply, ScriptFn } from "./scripted-server.js";
import { availableSkillsOf, planScript, type Plan } from "./scripted-plans.js";

export type OpenCodeStep = { loadSkill: string } | { readFile: string } | { writeFile: string; content: string } | { bash: string } | { answer: string };

export type OpenCodePlan = Plan<OpenCodeStep>;

/** The skill names in the `<available_skills>` block of the request's system messages (empty when there is none). */
export const skillListOf = availableSkillsOf;

function stepReply(step: OpenCodeStep): ScriptedReply {
  if ("answer" in step) return { content: step.answer };
  if ("loadSkill" in step) return { toolCalls: [{ name: "skill", arguments: JSON.stringify({ name: step.loadSkill }) }] };
  if ("writeFile" in step) return { toolCalls: [{ name: "write", arguments: JSON.stringify({ filePath: step.writeFile, content: step.content }) }] };
  if ("readFile" in step) return { toolCalls: [{ name: "read", arguments: JSON.stringify({ filePath: step.readFile }) }] };
  return { toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: step.bash, description: "run" }) }] };
}

/** A script that follows a plan per task, picked by a substring of a user message. */
export function openCodeScript(table: Record<string, OpenCodePlan>): ScriptFn {
  return planScript(table, { loads: (s) => ("loadSkill" in s ? s.loadSkill : undefined), listed: availableSkillsOf, reply: stepReply });
}
