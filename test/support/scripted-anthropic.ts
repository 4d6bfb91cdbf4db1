/**
 * The scripted model for Claude Code runs. Claude Code speaks Anthropic Messages to the product's model proxy, which
 * translates each request into the engine's chat request and asks the evaluation's client; in tests that client is
 * the real `openai` client talking to the scripted server (scripted-server.ts). So this script reads what Claude Code
 * built, as it arrives there in chat-completions form, and answers with Claude Code's own mechanism:
 *
 * - the condition is what the model was shown, as a real model sees it: a plan's skill counts as offered when the
 *   skill list Claude Code built (the `<system-reminder>` "available for use with the Skill tool") names it;
 * - the task is the plan whose key occurs in the first user message (Claude Code puts its reminders there too);
 * - the step is the number of earlier assistant turns;
 * - `loadSkill` becomes a call of the Skill tool `{"skill": name}`, `readFile`/`writeFile` a Read/Write tool call, `bash`
 *   a Bash tool call, `answer` the text.
 *
 * `skillListOf` pulls the listed skill names out of a request, for the request-log assertions.
 */
import type { ScriptedReply, ScriptFn, WireMessage } from "./scripted-server.js";
import { planScript, textOf, type Plan } from "./scripted-plans.js";

export type ClaudeStep = { loadSkill: string } | { readFile: string } | { writeFile: string; content: string } | { bash: string } | { answer: string };

export type ClaudePlan = Plan<ClaudeStep>;

const LIST_START = "The following skills are available for use with the Skill tool:";

/** The skill names in the skill list Claude Code put in the request's first user message (empty when none). */
export function skillListOf(messages: readonly WireMessage[]): string[] {
  const first = textOf(messages.find((m) => m.role === "user"));
  const start = first.indexOf(LIST_START);
  if (start < 0) return [];
  const end = first.indexOf("</system-reminder>", start);
  const block = first.slice(start + LIST_START.length, end < 0 ? undefined : end);
  return [...block.matchAll(/^- ([^:\n]+):/gm)].map((m) => m[1]!.trim());
}

function stepReply(step: ClaudeStep): ScriptedReply {
  if ("answer" in step) return { content: step.answer };
  if ("loadSkill" in step) return { toolCalls: [{ name: "Skill", arguments: JSON.stringify({ skill: step.loadSkill }) }] };
  if ("writeFile" in step) return { toolCalls: [{ name: "Write", arguments: JSON.stringify({ file_path: step.writeFile, content: step.content }) }] };
  if ("readFile" in step) return { toolCalls: [{ name: "Read", arguments: JSON.stringify({ file_path: step.readFile }) }] };
  return { toolCalls: [{ name: "Bash", arguments: JSON.stringify({ command: step.bash, description: "run" }) }] };
}

/** A script that follows a plan per task, picked by a substring of the first user message. */
export function claudeCodeScript(table: Record<string, ClaudePlan>): ScriptFn {
  return planScript(table, {
    loads: (s) => ("loadSkill" in s ? s.loadSkill : undefined),
    listed: skillListOf,
    reply: stepReply,
    taskText: (messages) => textOf(messages.find((m) => m.role === "user")),
  });
}
