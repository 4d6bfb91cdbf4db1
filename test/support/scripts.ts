/**
 * Script builders for the scripted server, so engine and CLI tests can say "for this task, the enabled run
 * loads skill X then answers A; the disabled run answers B" and know every outcome in advance.
 *
 * How a request is read:
 * - the condition: `tools` present = enabled, absent = disabled (the agent loop sends no tools when disabled);
 * - the task: the first user message's text;
 * - the step: the number of earlier assistant messages, not counting those whose tool-call arguments are
 *   invalid JSON. A turn spoiled by the "bad-tool-args" fault is thus re-planned as the same step, so a run
 *   with that fault injected ends with the same answers as a clean one.
 */
import type { ChatCompletionRequestBody, ScriptedReply, ScriptFn, WireMessage } from "./scripted-server.js";

export interface PlanContext {
  /** Text of the first user message (the task prompt plus format instructions). */
  userText: string;
  hasTools: boolean;
  toolNames: string[];
  /** 0 for the first request of a conversation; +1 per earlier assistant turn with well-formed tool calls. */
  turn: number;
  messages: WireMessage[];
  request: ChatCompletionRequestBody;
}

function isWellFormed(m: WireMessage): boolean {
  return (m.tool_calls ?? []).every((tc) => {
    try {
      const v: unknown = JSON.parse(tc.function.arguments);
      return v !== null && typeof v === "object";
    } catch {
      return false;
    }
  });
}

export function planContext(req: ChatCompletionRequestBody): PlanContext {
  const user = req.messages.find((m) => m.role === "user");
  return {
    userText: user?.content ?? "",
    hasTools: req.tools !== undefined,
    toolNames: (req.tools ?? []).map((t) => t.function.name),
    turn: req.messages.filter((m) => m.role === "assistant" && isWellFormed(m)).length,
    messages: req.messages,
    request: req,
  };
}

/** The lowest-level builder: one function decides every reply from the parsed context. */
export function pairedScript(plan: (ctx: PlanContext) => ScriptedReply): ScriptFn {
  return (req) => plan(planContext(req));
}

export type PlanStep = { loadSkill: string } | { searchSkills: string } | { answer: string };

export interface TaskPlan {
  /** The answer of the disabled run (one turn, no tools). */
  disabled: string;
  /** The enabled run, one step per turn; the conversation should end with an `answer` step. */
  enabled: PlanStep[];
}

/** Text an enabled run answers with when its plan has no step left (it should end with an answer). */
export const PLAN_EXHAUSTED = "I have no answer.";

/**
 * A script that follows a plan per task. A skill step becomes `load_skill {"name"}` in catalog mode and
 * `search_skills {"query"}` in search mode, whichever tool the request offers, so one plan serves both
 * modes. A task the plan does not know gets a 400 (not retried), naming the start of its prompt.
 */
export function taskPlanScript(byTask: (userText: string) => TaskPlan | undefined): ScriptFn {
  return pairedScript((ctx) => {
    const plan = byTask(ctx.userText);
    if (!plan) return { error: { status: 400, message: `scripted server: no plan for the task starting ${JSON.stringify(ctx.userText.slice(0, 80))}` } };
    if (!ctx.hasTools) return { content: plan.disabled };
    const step = plan.enabled[ctx.turn];
    if (!step) return { content: PLAN_EXHAUSTED };
    if ("answer" in step) return { content: step.answer };
    const text = "loadSkill" in step ? step.loadSkill : step.searchSkills;
    const offersLoad = ctx.toolNames.includes("load_skill");
    const offersSearch = ctx.toolNames.includes("search_skills");
    const wantLoad = "loadSkill" in step;
    if ((wantLoad && offersLoad) || (!offersSearch && offersLoad)) {
      return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: text }) }] };
    }
    if (offersSearch) return { toolCalls: [{ name: "search_skills", arguments: JSON.stringify({ query: text }) }] };
    return { error: { status: 400, message: `scripted server: the plan needs a skill tool but the request offers ${JSON.stringify(ctx.toolNames)}` } };
  });
}

/** Picks the plan whose key occurs in the user text (first match in insertion order). */
export function bySubstring(table: Record<string, TaskPlan>): (userText: string) => TaskPlan | undefined {
  const entries = Object.entries(table);
  return (userText) => entries.find(([needle]) => userText.includes(needle))?.[1];
}

/** A code answer in the format the agent loop asks for (one fenced python block). */
export function pythonAnswer(code: string): string {
  return "Here is the solution.\n\n```python\n" + code.trim() + "\n```\n";
}

/** A math answer in the format the agent loop asks for. */
export function boxedAnswer(value: string): string {
  return `The answer is \\boxed{${value}}.`;
}

/** What a judge request asks: the graded response and the expectations, in order (as src/core/grading/judge.ts writes them). */
export interface JudgeAsk {
  response: string;
  expectations: string[];
  /** The whole user message, for tests that inspect what the judge was shown. */
  userText: string;
  /** How many times this exact request body was seen before (0 the first time): repeats of one grading. */
  seenBefore: number;
}

/** Whether a request is a judge call (structured output named `grading`). */
export function isJudgeRequest(req: ChatCompletionRequestBody): boolean {
  const rf = req.response_format as { type?: string; json_schema?: { name?: string } } | undefined;
  return rf?.type === "json_schema" && rf.json_schema?.name === "grading";
}

/**
 * Reads a judge request as a careful judge does: the response is between the opening line `<<<RESPONSE <boundary>`
 * and the last line `RESPONSE <boundary>>>>` (the boundary is absent in requests written before it existed).
 */
export function readJudgeAsk(req: ChatCompletionRequestBody, seenBefore: number): JudgeAsk {
  const userText = req.messages.find((m) => m.role === "user")?.content ?? "";
  const open = /^<<<(RESPONSE(?: [0-9a-f]+)?)$/m.exec(userText);
  const start = open ? open.index + open[0].length + 1 : -1;
  const end = open ? userText.lastIndexOf(`\n${open[1]}>>>`) : -1;
  const response = open && end >= start - 1 ? userText.slice(start, Math.max(start, end)) : "";
  const list = userText.slice(userText.lastIndexOf("## Expectations\n") + "## Expectations\n".length);
  const expectations = list.split("\n").flatMap((l) => {
    const m = /^\d+\. (.*)$/.exec(l);
    return m ? [m[1]!] : [];
  });
  return { response, expectations, userText, seenBefore };
}

/**
 * Routes judge requests to `judge` (which decides each expectation, with evidence) and every other request to
 * `agent`. The reply is skill-creator's grading JSON. `seenBefore` counts identical bodies, so a judge can be
 * scripted to change its mind on the second grading of the same output.
 */
export function withJudge(agent: ScriptFn, judge: (ask: JudgeAsk, expectation: string) => { passed: boolean; evidence: string }): ScriptFn {
  const seen = new Map<string, number>();
  return (req, ctx) => {
    if (!isJudgeRequest(req)) return agent(req, ctx);
    const body = JSON.stringify(req);
    const seenBefore = seen.get(body) ?? 0;
    seen.set(body, seenBefore + 1);
    const ask = readJudgeAsk(req, seenBefore);
    return { content: JSON.stringify({ expectations: ask.expectations.map((text) => ({ text, ...judge(ask, text) })) }) };
  };
}

/**
 * The usual scripted judge: an expectation passes when the response holds the `[tag]` written in the expectation; the
 * evidence of a pass quotes the response (the tag itself), as the judge's prompt asks.
 */
export function tagJudge(ask: JudgeAsk, expectation: string): { passed: boolean; evidence: string } {
  const tag = /\[[a-z-]+\]/.exec(expectation)?.[0];
  const passed = tag !== undefined && ask.response.includes(tag);
  return { passed, evidence: passed ? tag : `no ${tag ?? "tag"} in the response` };
}
