/**
 * The OpenAI chat completions wire format as the scripted server speaks it: request/reply types and the
 * builders of JSON bodies and SSE events (test code only).
 */
import { createHash } from "node:crypto";

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface WireMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}

export interface WireTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** The request body as the client sent it (only the fields tests reason about are typed). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  top_p?: number;
  seed?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type ScriptedReply =
  | { content?: string; toolCalls?: Array<{ name: string; arguments: string }>; usage?: ScriptedUsage }
  | { error: { status: number; message?: string; retryAfter?: number } };

export function errorBody(status: number, message: string): unknown {
  const type = status === 401 ? "invalid_request_error" : status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, code: status === 401 ? "invalid_api_key" : null, param: null } };
}

/** Tool call ids derived from the request, so identical requests get identical replies (cache-friendly). */
export function toolCallId(body: ChatCompletionRequestBody, i: number): string {
  const h = createHash("sha256").update(JSON.stringify(body.messages)).update(`#${i}`).digest("hex");
  return `call_${h.slice(0, 16)}`;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export interface Completion {
  content: string | null;
  toolCalls: WireToolCall[];
  finishReason: "stop" | "tool_calls";
  usage: ScriptedUsage;
}

export function buildCompletion(body: ChatCompletionRequestBody, reply: Exclude<ScriptedReply, { error: unknown }>): Completion {
  const toolCalls: WireToolCall[] = (reply.toolCalls ?? []).map((tc, i) => ({
    id: toolCallId(body, i),
    type: "function",
    function: { name: tc.name, arguments: tc.arguments },
  }));
  const content = reply.content ?? (toolCalls.length ? null : "");
  const promptText = body.messages.map((m) => m.content ?? "").join("\n");
  const usage = reply.usage ?? {
    prompt_tokens: estimateTokens(promptText),
    completion_tokens: estimateTokens((content ?? "") + toolCalls.map((t) => t.function.arguments).join("")),
  };
  return { content, toolCalls, finishReason: toolCalls.length ? "tool_calls" : "stop", usage };
}

export function completionJson(id: string, model: string, c: Completion): unknown {
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: c.content, ...(c.toolCalls.length ? { tool_calls: c.toolCalls } : {}) },
        finish_reason: c.finishReason,
        logprobs: null,
      },
    ],
    usage: { ...c.usage, total_tokens: c.usage.prompt_tokens + c.usage.completion_tokens },
  };
}

/** The SSE events of a streamed completion, split the way real servers split them (content in pieces). */
export function streamEvents(id: string, model: string, c: Completion, includeUsage: boolean): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }], ...extra });
  const events: string[] = [chunk({ role: "assistant", content: "" }, null)];
  const text = c.content ?? "";
  const piece = Math.max(1, Math.ceil(text.length / 3));
  for (let i = 0; i < text.length; i += piece) events.push(chunk({ content: text.slice(i, i + piece) }, null));
  c.toolCalls.forEach((tc, index) => {
    events.push(chunk({ tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.function.name, arguments: "" } }] }, null));
    const args = tc.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) {
      if (part) events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }, null));
    }
  });
  events.push(chunk({}, c.finishReason));
  if (includeUsage) {
    const usage = { ...c.usage, total_tokens: c.usage.prompt_tokens + c.usage.completion_tokens };
    events.push(JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage }));
  }
  return events;
}
