/**
 * OpenAI Responses (`POST /v1/responses`), the wire format of Codex CLI: request → ChatRequest, ChatResponse →
 * a Response object or its server-sent event stream (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done`, `response.completed`).
 *
 * What maps: `instructions` and developer/system messages → system messages; user and assistant messages;
 * `function_call` → an assistant tool call; `function_call_output` → a tool message; `function` tools. What is
 * dropped, because the engine's request has no place for it and the answer does not depend on it in the chat
 * shape: reasoning items (the proxy never returns encrypted reasoning), non-function tools (hosted tools such as
 * web search: the Codex adapter turns them off), and `store`, `include`, `prompt_cache_key`, `client_metadata`,
 * `tool_choice`, `parallel_tool_calls`, `reasoning` (request options of the hosted API). Any other input item is
 * refused (400) with its type named, so nothing is silently lost.
 */
import type { ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolDefinition } from "../../models/types.js";
import { WireFormatError, type WireFormat, type WireReply } from "../types.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The text of a message's content: a string, or the text of its input_text/output_text/text parts. */
function contentText(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new WireFormatError(`${where}: content must be a string or a list of parts`);
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) throw new WireFormatError(`${where}: a content part is not an object`);
    if ((part.type === "input_text" || part.type === "output_text" || part.type === "text") && typeof part.text === "string") texts.push(part.text);
    else throw new WireFormatError(`${where}: content part type '${String(part.type)}' is not supported (text only)`);
  }
  return texts.join("\n\n");
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("");
  return JSON.stringify(output ?? "");
}

export function responsesToChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new WireFormatError("the request body is not a JSON object");
  if (typeof body.model !== "string") throw new WireFormatError("the request has no model");
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "") messages.push({ role: "system", content: body.instructions });
  const input: unknown[] = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : [];
  input.forEach((item, i) => {
    const where = `input[${i}]`;
    if (!isObject(item)) throw new WireFormatError(`${where} is not an object`);
    const type = item.type ?? "message";
    if (type === "message") {
      const text = contentText(item.content, where);
      if (item.role === "system" || item.role === "developer") messages.push({ role: "system", content: text });
      else if (item.role === "user") messages.push({ role: "user", content: text });
      else if (item.role === "assistant") messages.push({ role: "assistant", content: text });
      else throw new WireFormatError(`${where}: message role '${String(item.role)}' is not supported`);
    } else if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string") throw new WireFormatError(`${where}: a function_call needs call_id and name`);
      const call: ToolCall = { id: item.call_id, name: item.name, arguments: typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {}) };
      const last = messages[messages.length - 1];
      // Calls of one turn (and the text before them) are one assistant message in the chat shape.
      if (last?.role === "assistant") messages[messages.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] };
      else messages.push({ role: "assistant", content: null, toolCalls: [call] });
    } else if (type === "function_call_output") {
      if (typeof item.call_id !== "string") throw new WireFormatError(`${where}: a function_call_output needs call_id`);
      messages.push({ role: "tool", toolCallId: item.call_id, content: outputText(item.output) });
    } else if (type === "reasoning") {
      // Dropped: the proxy never returns reasoning items, so these are only ever empty summaries.
    } else {
      throw new WireFormatError(`${where}: input item type '${typeof type === "string" ? type : JSON.stringify(type)}' is not supported by the proxy`);
    }
  });
  const tools: ToolDefinition[] = [];
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (isObject(t) && t.type === "function" && typeof t.name === "string") {
        tools.push({ name: t.name, description: typeof t.description === "string" ? t.description : "", parameters: isObject(t.parameters) ? t.parameters : { type: "object", properties: {} } });
      }
    }
  }
  const request: ChatRequest = { model: body.model, messages };
  if (tools.length > 0) request.tools = tools;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  if (typeof body.max_output_tokens === "number") request.maxTokens = body.max_output_tokens;
  return request;
}

/** The output items of an answer: the text as one message, then one function_call per tool call. */
function outputItems(response: ChatResponse, replyId: string): Json[] {
  const items: Json[] = [];
  if (response.content !== null && response.content !== "") {
    items.push({ type: "message", id: `msg_${replyId}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: response.content, annotations: [] }] });
  }
  response.toolCalls.forEach((call, i) => {
    items.push({ type: "function_call", id: `fc_${replyId}_${i}`, status: "completed", call_id: call.id, name: call.name, arguments: call.arguments });
  });
  return items;
}

function usage(response: ChatResponse): Json {
  const { promptTokens: input, completionTokens: output } = response.usage;
  return { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
}

function sse(event: Json): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function responsesReply(response: ChatResponse, body: unknown, replyId: string): WireReply {
  const model = isObject(body) && typeof body.model === "string" ? body.model : "";
  const id = `resp_${replyId}`;
  const output = outputItems(response, replyId);
  const incomplete = response.finishReason === "length";
  const done: Json = {
    id,
    object: "response",
    created_at: 0,
    status: incomplete ? "incomplete" : "completed",
    ...(incomplete ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
    model,
    output,
    usage: usage(response),
  };
  const stream = isObject(body) && body.stream === true;
  if (!stream) return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(done) };
  const chunks: string[] = [];
  let seq = 0;
  const emit = (e: Json) => chunks.push(sse({ ...e, sequence_number: seq++ }));
  emit({ type: "response.created", response: { ...done, status: "in_progress", output: [], usage: null } });
  output.forEach((item, index) => {
    if (item.type === "message") {
      emit({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress", content: [] } });
      emit({ type: "response.output_text.delta", output_index: index, item_id: item.id, content_index: 0, delta: response.content ?? "" });
    } else {
      emit({ type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress" } });
    }
    emit({ type: "response.output_item.done", output_index: index, item });
  });
  emit({ type: incomplete ? "response.incomplete" : "response.completed", response: done });
  return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" }, body: chunks };
}

export function responsesError(status: number, message: string): WireReply {
  const type = status === 400 ? "invalid_request_error" : status === 401 ? "authentication_error" : status === 429 ? "rate_limit_error" : "server_error";
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { message, type, code: null, param: null } }) };
}

export const openAIResponses: WireFormat = {
  id: "openai-responses",
  handles: (p) => /\/responses\/?$/.test(p),
  toChatRequest: responsesToChatRequest,
  reply: responsesReply,
  error: (status, message) => responsesError(status, message),
};
