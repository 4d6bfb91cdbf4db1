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
import type { ScriptedReply, ScriptFn, WireMessage } from "./scripted-server.js";

export type GeminiStep = { activateSkill: string } | { readFile: string } | { writeFile: string; content: string } | { shell: string } | { answer: string };

export interface GeminiPlan {
  /** The steps when the plan's skill is not listed (the disabled condition). */
  disabled: GeminiStep[];
  /** The steps when it is (the enabled condition). */
  enabled: GeminiStep[];
  /** The skill whose presence in the list decides between the two; default: the first `activateSkill` of `enabled`. */
  skill?: string;
}

function textOf(m: WireMessage | undefined): string {
  if (!m) return "";
  const c = m.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("\n");
  return "";
}

/** The skill names in the `<available_skills>` block of the request's system prompt (empty when none). */
export function skillListOf(messages: readonly WireMessage[]): string[] {
  const system = messages.filter((m) => m.role === "system").map(textOf).join("\n");
  const start = system.indexOf("<available_skills>");
  if (start < 0) return [];
  const end = system.indexOf("</available_skills>", start);
  const block = system.slice(start, end < 0 ? undefined : end);
  return [...block.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]!.trim());
}

function call(name: string, args: Record<string, unknown>): ScriptedReply {
  return { toolCalls: [{ name, arguments: JSON.stringify(args) }] };
}

function stepReply(step: GeminiStep | undefined): ScriptedReply {
  if (!step) return { content: "I have no answer." };
  if ("answer" in step) return { content: step.answer };
  if ("activateSkill" in step) return call("activate_skill", { name: step.activateSkill });
  if ("writeFile" in step) return call("write_file", { file_path: step.writeFile, content: step.content });
  if ("readFile" in step) return call("read_file", { file_path: step.readFile });
  return call("run_shell_command", { command: step.shell, description: "run" });
}

/** A script that follows a plan per task, picked by a substring of a user message. */
export function geminiScript(table: Record<string, GeminiPlan>): ScriptFn {
  const entries = Object.entries(table);
  return (req) => {
    const userText = req.messages
      .filter((m) => m.role === "user")
      .map(textOf)
      .join("\n");
    const found = entries.find(([needle]) => userText.includes(needle));
    if (!found) return { error: { status: 400, message: `scripted server: no plan for the task in ${JSON.stringify(userText.slice(-120))}` } };
    const plan = found[1];
    const skill = plan.skill ?? plan.enabled.flatMap((s) => ("activateSkill" in s ? [s.activateSkill] : []))[0];
    const offered = skill !== undefined && skillListOf(req.messages).includes(skill);
    const turn = req.messages.filter((m) => m.role === "assistant").length;
    const step = (offered ? plan.enabled : plan.disabled)[turn];
    if (step && !("answer" in step)) {
      const name = "activateSkill" in step ? "activate_skill" : "writeFile" in step ? "write_file" : "readFile" in step ? "read_file" : "run_shell_command";
      if (!(req.tools ?? []).some((t) => t.function.name === name)) return { error: { status: 400, message: `scripted server: Gemini CLI offers no ${name} tool` } };
    }
    return stepReply(step);
  };
}
