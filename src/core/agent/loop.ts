import type { SkillLibrary } from "../retrieval/library.js";
import type { ChatMessage, ChatRequest, ModelClient, SamplingParams } from "../models/types.js";
import type { Condition, FileRead, SkillRef } from "../../shared/vocabulary/index.js";
import type { ToolCallRecord } from "./types.js";
import type { Task } from "../tasks/schema.js";
import { MAX_TOOL_CALLS_PER_TURN, recordedArguments } from "../retrieval/tool-args.js";
import { extractAnswer, replyOverCap } from "./extract.js";
import { systemPrompt, userPrompt } from "./prompts.js";

export const DEFAULT_MAX_TURNS = 6;

export interface AgentInput {
  task: Task;
  condition: Condition;
  /** The skill library; ignored (no section, no tools) in the disabled condition. */
  library: SkillLibrary;
  client: ModelClient;
  model: string;
  params: SamplingParams;
  sampleIndex: number;
  maxTurns?: number;
  signal?: AbortSignal;
}

export interface AgentResult {
  transcript: ChatMessage[];
  toolCalls: ToolCallRecord[];
  retrieved: SkillRef[];
  /** Files read from skill folders with read_skill_file, in order (repeats kept once). */
  filesRead: FileRead[];
  /** The final assistant text, or null when the loop ended without one. */
  finalText: string | null;
  answer: string | null;
  tokens: { prompt: number; completion: number };
  latencyMs: number;
  modelCalls: number;
  cachedCalls: number;
  turns: number;
  error?: string;
}

/** Builds the first request of a task in a condition. Exported so a test can diff the two conditions. */
export function firstRequest(input: Pick<AgentInput, "task" | "condition" | "library" | "model" | "params">): ChatRequest {
  const enabled = input.condition === "enabled";
  const request: ChatRequest = {
    model: input.model,
    messages: [
      { role: "system", content: systemPrompt(enabled ? input.library.systemSection() : undefined) },
      { role: "user", content: userPrompt(input.task) },
    ],
    ...input.params,
  };
  if (enabled) request.tools = input.library.tools();
  return request;
}

/** A result before the first turn: nothing retrieved, answered or counted yet (the built-in loop and the harnesses). */
export function emptyAgentResult(transcript: ChatMessage[]): AgentResult {
  return { transcript, toolCalls: [], retrieved: [], filesRead: [], finalText: null, answer: null, tokens: { prompt: 0, completion: 0 }, latencyMs: 0, modelCalls: 0, cachedCalls: 0, turns: 0 };
}

/**
 * The agent loop: ask, execute skill tool calls, ask again, until the model answers without tool calls or the
 * turn limit is reached. Model errors propagate (the caller decides whether the run is lost or recorded).
 */
export async function runAgent(input: AgentInput): Promise<AgentResult> {
  const maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;
  const request = firstRequest(input);
  const messages = request.messages;
  const result = emptyAgentResult(messages);
  const seen = new Set<string>();

  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await input.client.complete({ ...request, messages: [...messages] }, { signal: input.signal, sampleIndex: input.sampleIndex });
    result.turns = turn + 1;
    result.tokens.prompt += response.usage.promptTokens;
    result.tokens.completion += response.usage.completionTokens;
    result.latencyMs += response.latencyMs;
    if (response.cached) result.cachedCalls++;
    else result.modelCalls++;

    // Tool calls only mean something where tools were offered; in the disabled condition the text is the answer.
    // Past MAX_TOOL_CALLS_PER_TURN the calls are dropped from the transcript too, so each kept call has its reply.
    const offered = request.tools ? response.toolCalls : [];
    const calls = offered.slice(0, MAX_TOOL_CALLS_PER_TURN);
    messages.push({ role: "assistant", content: response.content, ...(calls.length ? { toolCalls: calls } : {}) });
    if (calls.length === 0) {
      finish(result, input.task, response.content);
      return result;
    }
    for (const [i, call] of calls.entries()) {
      const outcome = input.library.execute(call);
      result.toolCalls.push({ name: call.name, arguments: recordedArguments(call.arguments), retrieved: outcome.retrieved, ...(outcome.error ? { error: outcome.error } : {}) });
      if (outcome.fileRead && !result.filesRead.some((f) => f.skill === outcome.fileRead!.skill && f.path === outcome.fileRead!.path)) {
        result.filesRead.push(outcome.fileRead);
      }
      for (const ref of outcome.retrieved) {
        if (!seen.has(ref.name)) {
          seen.add(ref.name);
          result.retrieved.push(ref);
        }
      }
      const dropped = i === calls.length - 1 ? offered.length - calls.length : 0;
      const note = dropped > 0 ? `\n\n(${dropped} more tool calls in this turn were not run: at most ${MAX_TOOL_CALLS_PER_TURN} per turn.)` : "";
      messages.push({ role: "tool", toolCallId: call.id, content: outcome.content + note });
    }
  }
  result.error = `turn limit reached: ${maxTurns} model turns without a final answer`;
  // The last assistant text, if any, is still graded: a model that answers while also calling a tool gets credit.
  const lastText = [...messages].reverse().find((m) => m.role === "assistant" && m.content)?.content ?? null;
  finish(result, input.task, typeof lastText === "string" ? lastText : null);
  return result;
}

/** Sets the final text and its extracted answer; a reply too long to read is noted as the run's error. */
function finish(result: AgentResult, task: Task, text: string | null): void {
  result.finalText = text;
  result.answer = answerOf(task, text);
  const over = replyOverCap(text);
  if (over) result.error = result.error ? `${result.error}; ${over}` : over;
}

/** A skill eval is graded on the whole reply (its checks and judge read it all); other tasks on the extracted answer. */
function answerOf(task: Task, text: string | null): string | null {
  if (task.kind === "skill-eval") return text === null || text.trim() === "" ? null : text;
  return extractAnswer(task, text);
}
