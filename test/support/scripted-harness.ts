/**
 * Scripts for real agent harnesses (test code only). The harness (e.g. the real Codex binary) talks to the model
 * proxy in its own wire format; the proxy asks the scripted server (the user's OpenAI-compatible endpoint) in the
 * chat shape. This script reads those requests as a model would:
 * - the condition: the harness's own skill list (Codex: `<skills_instructions>` naming a skill) in a system message
 *   means enabled, since a harness always offers its tools (the built-in loop's "tools present" test means nothing);
 * - the task: a plan key found in a user message;
 * - the step: the number of assistant turns so far.
 * A step is a shell command, asked for with the harness's own tool (Codex: `exec_command {"cmd"}`), or a final answer.
 * Loading a skill is a shell read of its SKILL.md, as Codex does it.
 */
import type { ChatCompletionRequestBody, ScriptFn } from "./scripted-server.js";

export type HarnessStep = { shell: string } | { answer: string };

export interface HarnessPlan {
  enabled: HarnessStep[];
  disabled: HarnessStep[];
}

/** Whether the request carries the harness's skill list (any skill). */
export function carriesSkillList(req: ChatCompletionRequestBody): boolean {
  return req.messages.some((m) => m.role === "system" && typeof m.content === "string" && m.content.includes("<skills_instructions>"));
}

/** The text of every message of a request, joined (for "does any part name X" checks). */
export function requestText(req: ChatCompletionRequestBody): string {
  return JSON.stringify(req);
}

/** A Codex read of a skill file, as the model asks its shell for it. */
export function codexRead(skill: string, file = "SKILL.md"): HarnessStep {
  return { shell: `cat .agents/skills/${skill}/${file}` };
}

export function harnessPlanScript(table: Record<string, HarnessPlan>, options: { shellTool?: string } = {}): ScriptFn {
  const tool = options.shellTool ?? "exec_command";
  const entries = Object.entries(table);
  return (req) => {
    const userTexts = req.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
    const plan = entries.find(([needle]) => userTexts.some((t) => t.includes(needle)))?.[1];
    if (!plan) return { error: { status: 400, message: `scripted server: no plan for ${JSON.stringify(userTexts.at(-1)?.slice(0, 80))}` } };
    const steps = carriesSkillList(req) ? plan.enabled : plan.disabled;
    const turn = req.messages.filter((m) => m.role === "assistant").length;
    const step = steps[turn] ?? { answer: "I have no answer." };
    if ("answer" in step) return { content: step.answer };
    if (!(req.tools ?? []).some((t) => t.function.name === tool)) return { error: { status: 400, message: `scripted server: the harness offers no ${tool} tool` } };
    return { toolCalls: [{ name: tool, arguments: JSON.stringify({ cmd: step.shell }) }] };
  };
}
