/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), for harnesses that speak it (OpenCode and Gemini CLI
 * through OpenAI-compatible providers): request → ChatRequest, ChatResponse → a completion or its chunk stream.
 * Options of the hosted API that the engine's request has no place for (`stream_options`, `tool_choice`, `user`,
 * `n`, …) are dropped; content parts other than text are refused (400) by name.
 */
import type { ChatMessage, ChatRequest, ChatResponse, ToolDefinition } from "../../models/types.js";
import { WireFormatError, type WireFormat, type WireReply } from "../types.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function text(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw new WireFormatError(`${where}: content must be a string or a list of parts`);
  return content
    .map((p, i) => {
      if (isObject(p) && p.type === "text" && typeof p.text === "string") return p.text;
      throw new WireFormatError(`${where}.content[${i}]: part type '${isObject(p) ? String(p.type) : typeof p}' is not supported (text only)`);
    })
    .join("\n\n");
}

export function chatToChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new WireFormatError("the request body is not a JSON object");
  if (typeof body.model !== "string") throw new WireFormatError("the request has no model");
  if (!Array.isArray(body.messages)) throw new WireFormatError("the request has no messages");
  const messages: ChatMessage[] = body.messages.map((m, i): ChatMessage => {
    const where = `messages[${i}]`;
    if (!isObject(m)) throw new WireFormatError(`${where} is not an object`);
    switch (m.role) {
      case "system":
      case "developer":
        return { role: "system", content: text(m.content, where) };
      case "user":
        return { role: "user", content: text(m.content, where) };
      case "assistant": {
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        const toolCalls = calls.map((c, j) => {
          const fn = isObject(c) && isObject(c.function) ? c.function : undefined;
          if (!isObject(c) || typeof c.id !== "string" || !fn || typeof fn.name !== "string") throw new WireFormatError(`${where}.tool_calls[${j}] needs id and function.name`);
          return { id: c.id, name: fn.name, arguments: typeof fn.arguments === "string" ? fn.arguments : "" };
        });
        const content = m.content === null || m.content === undefined ? null : text(m.content, where);
        return { role: "assistant", content, ...(toolCalls.length ? { toolCalls } : {}) };
      }
      case "tool":
        if (typeof m.tool_call_id !== "string") throw new WireFormatError(`${where}: a tool message needs tool_call_id`);
        return { role: "tool", toolCallId: m.tool_call_id, content: text(m.content, where) };
      default:
        throw new WireFormatError(`${where}: role '${String(m.role)}' is not supported`);
    }
  });
  const tools: ToolDefinition[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    const fn = isObject(t) && t.type === "function" && isObject(t.function) ? t.function : undefined;
    if (fn && typeof fn.name === "string") {
      tools.push({ name: fn.name, description: typeof fn.description === "string" ? fn.description : "", parameters: isObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} } });
    }
  }
  const request: ChatRequest = { model: body.model, messages };
  if (tools.length > 0) request.tools = tools;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  if (typeof body.seed === "number") request.seed = body.seed;
  const max = typeof body.max_completion_tokens === "number" ? body.max_completion_tokens : body.max_tokens;
  if (typeof max === "number") request.maxTokens = max;
  return request;
}

export function chatReply(response: ChatResponse, body: unknown, replyId: string): WireReply {
  const model = isObject(body) && typeof body.model === "string" ? body.model : "";
  const id = `chatcmpl-${replyId}`;
  const toolCalls = response.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
  const finish = response.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");
  const usage = { prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens, total_tokens: response.usage.promptTokens + response.usage.completionTokens };
  const stream = isObject(body) && body.stream === true;
  if (!stream) {
    const message = { role: "assistant", content: response.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, object: "chat.completion", created: 0, model, choices: [{ index: 0, message, finish_reason: finish }], usage }),
    };
  }
  const chunk = (choices: unknown[], extra: Json = {}) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices, ...extra })}\n\n`;
  const chunks = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
  if (response.content) chunks.push(chunk([{ index: 0, delta: { content: response.content }, finish_reason: null }]));
  if (toolCalls.length) chunks.push(chunk([{ index: 0, delta: { tool_calls: toolCalls.map((c, index) => ({ index, ...c })) }, finish_reason: null }]));
  chunks.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  chunks.push(chunk([], { usage }));
  chunks.push("data: [DONE]\n\n");
  return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" }, body: chunks };
}

export const openAIChat: WireFormat = {
  id: "openai-chat",
  handles: (p) => /\/chat\/completions\/?$/.test(p),
  toChatRequest: chatToChatRequest,
  reply: chatReply,
  error: (status, message) => ({ status, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { message, type: status === 400 ? "invalid_request_error" : "server_error", code: null } }) }),
};
