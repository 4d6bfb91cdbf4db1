/**
 * The scripted model for Gemini CLI runs. Gemini CLI speaks the Gemini API to the product's model proxy, which
 * translates each request into the engine's chat request and asks the evaluation's client; in tests that client is
 * the real `openai` client talking to the scripted server (scripted-server.ts). So this script reads what Gemini CLI
 * built, as it arrives there in chat-completions form, and answers with Gemini CLI's own mechanism:
 *
 * - the condition is what the model was shown, as a real model sees it: a plan's skill counts as offered when the
 *   skill list Gemini CLI put in its system prompt (`<available_skills>`, "call the `activate_skill` tool") names it;
 * - the task is the plan whose key occurs in a user message (Gemini CLI puts its session context first);
 * - the step is the number of earlier assistant turns;
 * - `activateSkill` becomes a call of `activate_skill {"name"}`, `readFile`/`writeFile` a read_file/write_file call,
 *   `shell` a run_shell_command call, `answer` the text.
 *
 * `skillListOf` pulls the listed skill names out of a request, for the request-log assertions.
 */
import type { ChatCompletionRequestBody, ScriptedReply, ScriptFn } from "./scripted-server.js";
import { availableSkillsOf, planScript, type Plan } from "./scripted-plans.js";

export type GeminiStep = { activateSkill: string } | { readFile: string } | { writeFile: string; content: string } | { shell: string } | { answer: string };

export type GeminiPlan = Plan<GeminiStep>;

/** The skill names in the `<available_skills>` block of the request's system prompt (empty when none). */
export const skillListOf = availableSkillsOf;

function call(name: string, args: Record<string, unknown>, req: ChatCompletionRequestBody): ScriptedReply {
  if (!(req.tools ?? []).some((t) => t.function.name === name)) return { error: { status: 400, message: `scripted server: Gemini CLI offers no ${name} tool` } };
  return { toolCalls: [{ name, arguments: JSON.stringify(args) }] };
}

function stepReply(step: GeminiStep, req: ChatCompletionRequestBody): ScriptedReply {
  if ("answer" in step) return { content: step.answer };
  if ("activateSkill" in step) return call("activate_skill", { name: step.activateSkill }, req);
  if ("writeFile" in step) return call("write_file", { file_path: step.writeFile, content: step.content }, req);
  if ("readFile" in step) return call("read_file", { file_path: step.readFile }, req);
  return call("run_shell_command", { command: step.shell, description: "run" }, req);
}

/** A script that follows a plan per task, picked by a substring of a user message. */
export function geminiScript(table: Record<string, GeminiPlan>): ScriptFn {
  return planScript(table, { loads: (s) => ("activateSkill" in s ? s.activateSkill : undefined), listed: availableSkillsOf, reply: stepReply });
}
