/**
 * What the scripted models of the real harnesses share (scripted-anthropic.ts, scripted-opencode.ts,
 * scripted-gemini.ts): the text of a chat message, the `<available_skills>` list OpenCode and Gemini CLI put in their
 * system prompts, and a script that follows one plan per task — the enabled steps when the plan's skill is listed, the
 * disabled ones when it is not, one step per earlier assistant turn.
 */
import type { ChatCompletionRequestBody, ScriptedReply, ScriptFn, WireMessage } from "./scripted-server.js";

export function textOf(m: WireMessage | undefined): string {
  if (!m) return "";
  const c = m.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("\n");
  return "";
}

/** The skill names in the `<available_skills>` block of the request's system messages (empty when there is none). */
export function availableSkillsOf(messages: readonly WireMessage[]): string[] {
  const system = messages.filter((m) => m.role === "system").map(textOf).join("\n");
  const start = system.indexOf("<available_skills>");
  if (start < 0) return [];
  const end = system.indexOf("</available_skills>", start);
  const block = system.slice(start, end < 0 ? undefined : end);
  return [...block.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]!.trim());
}

export interface Plan<Step> {
  /** The steps when the plan's skill is not listed (the disabled condition). */
  disabled: Step[];
  /** The steps when it is (the enabled condition). */
  enabled: Step[];
  /** The skill whose presence in the list decides between the two; default: the first skill load of `enabled`. */
  skill?: string;
}

export interface PlanHarness<Step> {
  /** The skill a step loads, if it is a skill load. */
  loads(step: Step): string | undefined;
  /** The skills the request lists, as the harness put them in its prompt. */
  listed(messages: readonly WireMessage[]): string[];
  /** The reply that takes the step with the harness's own tools (no step left: a plain "no answer"). */
  reply(step: Step, req: ChatCompletionRequestBody): ScriptedReply;
  /** The text searched for a plan's key (default: every user message). */
  taskText?(messages: readonly WireMessage[]): string;
}

/** A script that follows a plan per task, picked by a substring of the task text. */
export function planScript<Step>(table: Record<string, Plan<Step>>, harness: PlanHarness<Step>): ScriptFn {
  const entries = Object.entries(table);
  const taskText = harness.taskText ?? ((messages) => messages.filter((m) => m.role === "user").map(textOf).join("\n"));
  return (req) => {
    const text = taskText(req.messages);
    const found = entries.find(([needle]) => text.includes(needle));
    if (!found) return { error: { status: 400, message: `scripted server: no plan for the task in ${JSON.stringify(text.slice(-120))}` } };
    const plan = found[1];
    const skill = plan.skill ?? plan.enabled.map(harness.loads).find((s) => s !== undefined);
    const offered = skill !== undefined && harness.listed(req.messages).includes(skill);
    const step = (offered ? plan.enabled : plan.disabled)[req.messages.filter((m) => m.role === "assistant").length];
    return step === undefined ? { content: "I have no answer." } : harness.reply(step, req);
  };
}
