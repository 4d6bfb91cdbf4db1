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

export type ClaudeStep = { loadSkill: string } | { readFile: string } | { writeFile: string; content: string } | { bash: string } | { answer: string };

export interface ClaudePlan {
  /** The steps when the plan's skill is not listed (the disabled condition). */
  disabled: ClaudeStep[];
  /** The steps when it is (the enabled condition). */
  enabled: ClaudeStep[];
  /** The skill whose presence in the list decides between the two; default: the first `loadSkill` of `enabled`. */
  skill?: string;
}

const LIST_START = "The following skills are available for use with the Skill tool:";

function textOf(m: WireMessage | undefined): string {
  if (!m) return "";
  const c = m.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("\n");
  return "";
}

/** The skill names in the skill list Claude Code put in the request's first user message (empty when none). */
export function skillListOf(messages: readonly WireMessage[]): string[] {
  const first = textOf(messages.find((m) => m.role === "user"));
  const start = first.indexOf(LIST_START);
  if (start < 0) return [];
  const end = first.indexOf("</system-reminder>", start);
  const block = first.slice(start + LIST_START.length, end < 0 ? undefined : end);
  return [...block.matchAll(/^- ([^:\n]+):/gm)].map((m) => m[1]!.trim());
}

function stepReply(step: ClaudeStep | undefined): ScriptedReply {
  if (!step) return { content: "I have no answer." };
  if ("answer" in step) return { content: step.answer };
  if ("loadSkill" in step) return { toolCalls: [{ name: "Skill", arguments: JSON.stringify({ skill: step.loadSkill }) }] };
  if ("writeFile" in step) return { toolCalls: [{ name: "Write", arguments: JSON.stringify({ file_path: step.writeFile, content: step.content }) }] };
  if ("readFile" in step) return { toolCalls: [{ name: "Read", arguments: JSON.stringify({ file_path: step.readFile }) }] };
  return { toolCalls: [{ name: "Bash", arguments: JSON.stringify({ command: step.bash, description: "run" }) }] };
}

/** A script that follows a plan per task, picked by a substring of the first user message. */
export function claudeCodeScript(table: Record<string, ClaudePlan>): ScriptFn {
  const entries = Object.entries(table);
  return (req) => {
    const userText = textOf(req.messages.find((m) => m.role === "user"));
    const found = entries.find(([needle]) => userText.includes(needle));
    if (!found) return { error: { status: 400, message: `scripted server: no plan for the task in ${JSON.stringify(userText.slice(-120))}` } };
    const plan = found[1];
    const skill = plan.skill ?? plan.enabled.flatMap((s) => ("loadSkill" in s ? [s.loadSkill] : []))[0];
    const offered = skill !== undefined && skillListOf(req.messages).includes(skill);
    const turn = req.messages.filter((m) => m.role === "assistant").length;
    return stepReply((offered ? plan.enabled : plan.disabled)[turn]);
  };
}
