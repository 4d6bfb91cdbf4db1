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
import type { ScriptedReply, ScriptFn, WireMessage } from "./scripted-server.js";

export type OpenCodeStep = { loadSkill: string } | { readFile: string } | { writeFile: string; content: string } | { bash: string } | { answer: string };

export interface OpenCodePlan {
  /** The steps when the plan's skill is not listed (the disabled condition). */
  disabled: OpenCodeStep[];
  /** The steps when it is (the enabled condition). */
  enabled: OpenCodeStep[];
  /** The skill whose presence in the list decides between the two; default: the first `loadSkill` of `enabled`. */
  skill?: string;
}

function textOf(m: WireMessage | undefined): string {
  if (!m) return "";
  const c = m.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("\n");
  return "";
}

/** The skill names in the `<available_skills>` block of the request's system messages (empty when there is none). */
export function skillListOf(messages: readonly WireMessage[]): string[] {
  const system = messages.filter((m) => m.role === "system").map(textOf).join("\n");
  const start = system.indexOf("<available_skills>");
  if (start < 0) return [];
  const end = system.indexOf("</available_skills>", start);
  const block = system.slice(start, end < 0 ? undefined : end);
  return [...block.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]!.trim());
}

function stepReply(step: OpenCodeStep | undefined): ScriptedReply {
  if (!step) return { content: "I have no answer." };
  if ("answer" in step) return { content: step.answer };
  if ("loadSkill" in step) return { toolCalls: [{ name: "skill", arguments: JSON.stringify({ name: step.loadSkill }) }] };
  if ("writeFile" in step) return { toolCalls: [{ name: "write", arguments: JSON.stringify({ filePath: step.writeFile, content: step.content }) }] };
  if ("readFile" in step) return { toolCalls: [{ name: "read", arguments: JSON.stringify({ filePath: step.readFile }) }] };
  return { toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: step.bash, description: "run" }) }] };
}

/** A script that follows a plan per task, picked by a substring of a user message. */
export function openCodeScript(table: Record<string, OpenCodePlan>): ScriptFn {
  const entries = Object.entries(table);
  return (req) => {
    const userText = req.messages
      .filter((m) => m.role === "user")
      .map(textOf)
      .join("\n");
    const found = entries.find(([needle]) => userText.includes(needle));
    if (!found) return { error: { status: 400, message: `scripted server: no plan for the task in ${JSON.stringify(userText.slice(-120))}` } };
    const plan = found[1];
    const skill = plan.skill ?? plan.enabled.flatMap((s) => ("loadSkill" in s ? [s.loadSkill] : []))[0];
    const offered = skill !== undefined && skillListOf(req.messages).includes(skill);
    const turn = req.messages.filter((m) => m.role === "assistant").length;
    return stepReply((offered ? plan.enabled : plan.disabled)[turn]);
  };
}
