/**
 * Anthropic Messages (`POST /v1/messages`, what Claude Code speaks): request → the engine's ChatRequest, ChatResponse
 * → a message or its server-sent event stream. The engine's request is the OpenAI chat shape, so this is a
 * translation, and the user's endpoint is whatever the evaluation's ModelClient talks to (an OpenAI-compatible
 * endpoint, a local model). What is kept and what is dropped (docs/agents/claude-code.md):
 * - `system` (a string or text blocks) → one system message; the `x-anthropic-billing-header: …` block Claude Code
 *   puts first is a header in disguise, not prompt text, and is dropped.
 * - a user message's `tool_result` blocks → tool messages (first, as chat completions needs them right after the
 *   assistant's tool calls), its text blocks → one user message after them. Images and documents have no place in
 *   a text request: each becomes a one-line note saying it was left out.
 * - an assistant message's text → content, `tool_use` → tool calls (the input as JSON text); `thinking` blocks are
 *   dropped (the engine's answers never hold thinking, so only a foreign transcript would have them).
 * - tools `{name, description, input_schema}` → function tools; server tools (a `type` such as `web_search_…`) and
 *   tools with `defer_loading` (not shown to the model until a tool search loads them) are not offered.
 * - `temperature`, `top_p` are kept (the proxy sets the run's own over them); `max_tokens`, `thinking`, `metadata`
 *   (a random device and session id), `cache_control`, `context_management`, `tool_choice` and `stop_sequences` are
 *   not: the run's settings decide the answer length, and the rest has no chat-completions equivalent.
 * Pure functions (no clock, no randomness): a cached answer replays as the same bytes.
 */
import type { ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolDefinition } from "../../models/types.js";
import { WireFormatError, type WireFormat, type WireReply } from "../types.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const BILLING_HEADER = "x-anthropic-billing-header:";

function omitted(type: string): string {
  return `[${type} omitted: the model proxy passes text only]`;
}

/** A block list or string → its text; non-text blocks become a note. */
function blocksText(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw new WireFormatError(`${where}: content must be a string or a list of blocks`);
  return content
    .map((b, i) => {
      if (!isObject(b) || typeof b.type !== "string") throw new WireFormatError(`${where}[${i}] is not a content block`);
      if (b.type === "text") {
        if (typeof b.text !== "string") throw new WireFormatError(`${where}[${i}]: a text block needs text`);
        return b.text;
      }
      return omitted(b.type);
    })
    .join("\n\n");
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return "";
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) throw new WireFormatError("system must be a string or a list of text blocks");
  const kept = system.filter((b) => !(isObject(b) && typeof b.text === "string" && b.text.startsWith(BILLING_HEADER)));
  return blocksText(kept, "system");
}

function userMessages(content: unknown, where: string): ChatMessage[] {
  if (typeof content === "string") return [{ role: "user", content }];
  if (!Array.isArray(content)) throw new WireFormatError(`${where}.content must be a string or a list of blocks`);
  const tools: ChatMessage[] = [];
  const texts: unknown[] = [];
  content.forEach((b, i) => {
    if (isObject(b) && b.type === "tool_result") {
      if (typeof b.tool_use_id !== "string") throw new WireFormatError(`${where}.content[${i}]: a tool_result needs tool_use_id`);
      tools.push({ role: "tool", toolCallId: b.tool_use_id, content: blocksText(b.content, `${where}.content[${i}].content`) });
    } else texts.push(b);
  });
  return texts.length ? [...tools, { role: "user", content: blocksText(texts, `${where}.content`) }] : tools;
}

function assistantMessage(content: unknown, where: string): ChatMessage {
  if (typeof content === "string") return { role: "assistant", content };
  if (!Array.isArray(content)) throw new WireFormatError(`${where}.content must be a string or a list of blocks`);
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  content.forEach((b, i) => {
    if (!isObject(b) || typeof b.type !== "string") throw new WireFormatError(`${where}.content[${i}] is not a content block`);
    if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
    else if (b.type === "tool_use") {
      if (typeof b.id !== "string" || typeof b.name !== "string") throw new WireFormatError(`${where}.content[${i}]: a tool_use needs id and name`);
      toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
    } else if (b.type !== "thinking" && b.type !== "redacted_thinking") texts.push(omitted(b.type));
  });
  return { role: "assistant", content: texts.length ? texts.join("\n\n") : null, ...(toolCalls.length ? { toolCalls } : {}) };
}

export function messagesToChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new WireFormatError("the request body is not a JSON object");
  if (typeof body.model !== "string") throw new WireFormatError("the request has no model");
  if (!Array.isArray(body.messages)) throw new WireFormatError("the request has no messages");
  const messages: ChatMessage[] = [];
  const system = systemText(body.system);
  if (system) messages.push({ role: "system", content: system });
  body.messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isObject(m)) throw new WireFormatError(`${where} is not an object`);
    if (m.role === "user") messages.push(...userMessages(m.content, where));
    else if (m.role === "assistant") messages.push(assistantMessage(m.content, where));
    else throw new WireFormatError(`${where}: role '${String(m.role)}' is not supported (user or assistant)`);
  });
  const tools: ToolDefinition[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(t) || typeof t.name !== "string" || t.type !== undefined || t.defer_loading === true) continue;
    tools.push({ name: t.name, description: typeof t.description === "string" ? t.description : "", parameters: isObject(t.input_schema) ? t.input_schema : { type: "object", properties: {} } });
  }
  const request: ChatRequest = { model: body.model, messages };
  if (tools.length > 0) request.tools = tools;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  return request;
}

/** The engine's finish reason → Anthropic's stop reason. */
export function stopReason(response: ChatResponse): string {
  if (response.toolCalls.length > 0) return "tool_use";
  if (response.finishReason === "length") return "max_tokens";
  if (response.finishReason === "content_filter") return "refusal";
  return "end_turn";
}

/** A tool call's arguments as the `input` object Anthropic's content blocks carry (`{}` when not an object). */
function toolInput(call: ToolCall): Json {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function sse(event: Json & { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function messagesReply(response: ChatResponse, body: unknown, replyId: string): WireReply {
  const model = isObject(body) && typeof body.model === "string" ? body.model : "";
  const id = `msg_${replyId}`;
  const stop = stopReason(response);
  const usage = { input_tokens: response.usage.promptTokens, output_tokens: response.usage.completionTokens };
  const text = response.content ?? "";
  const stream = isObject(body) && body.stream === true;
  if (!stream) {
    const content: Json[] = [];
    if (text) content.push({ type: "text", text });
    for (const c of response.toolCalls) content.push({ type: "tool_use", id: c.id, name: c.name, input: toolInput(c) });
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stop, stop_sequence: null, usage }),
    };
  }
  const events: string[] = [
    sse({ type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 0 } } }),
  ];
  let index = 0;
  if (text) {
    events.push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    events.push(sse({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));
    events.push(sse({ type: "content_block_stop", index }));
    index++;
  }
  for (const c of response.toolCalls) {
    events.push(sse({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }));
    // The input goes out as one JSON text: the model's own arguments when they are an object, `{}` otherwise.
    events.push(sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(toolInput(c)) } }));
    events.push(sse({ type: "content_block_stop", index }));
    index++;
  }
  events.push(sse({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(sse({ type: "message_stop" }));
  return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" }, body: events };
}

/** Anthropic's error type for an HTTP status (what its SDK and Claude Code classify errors by). */
export function errorType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}

export const anthropicMessages: WireFormat = {
  id: "anthropic-messages",
  handles: (p) => /\/v1\/messages\/?$/.test(p),
  toChatRequest: messagesToChatRequest,
  reply: messagesReply,
  error: (status, message) => ({
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "error", error: { type: errorType(status), message } }),
  }),
};
