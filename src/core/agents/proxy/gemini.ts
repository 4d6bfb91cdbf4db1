/**
 * The Gemini API (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`, what Gemini CLI
 * speaks): request → the engine's ChatRequest, ChatResponse → a GenerateContentResponse or its server-sent event
 * stream. The engine's request is the OpenAI chat shape, so this is a translation, and the user's endpoint is whatever
 * the evaluation's ModelClient talks to. What is kept and what is dropped (docs/agents/gemini.md):
 * - `systemInstruction` (a string, a Content, or a part list) → one system message (its text parts).
 * - a `user` content's `functionResponse` parts → tool messages (first, as chat completions needs them right after the
 *   assistant's tool calls), its text parts → one user message after them. `inlineData` and `fileData` (images,
 *   files) have no place in a text request: each becomes a one-line note saying it was left out.
 * - a `model` content's text parts → content, `functionCall` parts → tool calls (the args as JSON text); thought parts
 *   (`thought: true`) and `thoughtSignature`s are dropped (the engine's answers never hold thoughts).
 * - a call's id is its `functionCall.id`; a call without one gets `<name>_<content>_<part>` (its place in the
 *   conversation), and a `functionResponse` without an id answers the earliest unanswered call of its name.
 * - tools' `functionDeclarations` `{name, description, parametersJsonSchema | parameters}` → function tools (the
 *   OpenAPI-style `parameters` with upper-case types is lowered to JSON Schema); `googleSearch`, `codeExecution`, …
 *   are not offered.
 * - `generationConfig.temperature` and `topP` are kept (the proxy sets the run's own over them); `maxOutputTokens`,
 *   `topK`, `thinkingConfig`, `candidateCount`, `responseMimeType`, `safetySettings`, `toolConfig` and
 *   `cachedContent` are not: the run's settings decide the answer, and the rest has no chat-completions equivalent.
 * - The model is in the URL, not the body: the request's model is empty (the proxy sets the run's model anyway); the
 *   reply names the model of the URL.
 * Pure functions (no clock, no randomness): a cached answer replays as the same bytes.
 */
import type { ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolDefinition } from "../../models/types.js";
import { WireFormatError, type WireFormat, type WireReply } from "../types.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** `…/models/{model}:generateContent` or `:streamGenerateContent` (the model may hold `/`, e.g. `tunedModels/x`). */
const PATH = /\/models\/(.+):(generateContent|streamGenerateContent)\/?$/;

function omitted(kind: string): string {
  return `[${kind} omitted: the model proxy passes text only]`;
}

/** The parts of a Content (or a bare part list). */
function partsOf(content: unknown, where: string): unknown[] {
  if (Array.isArray(content)) return content;
  if (isObject(content)) {
    if (content.parts === undefined || content.parts === null) return [];
    if (!Array.isArray(content.parts)) throw new WireFormatError(`${where}.parts must be a list of parts`);
    return content.parts;
  }
  throw new WireFormatError(`${where} is not a content object`);
}

/** A non-text, non-function part → its note (thoughts → nothing). */
function otherPart(p: Json): string | undefined {
  if (p.thought === true) return undefined;
  if (isObject(p.inlineData)) return omitted(typeof p.inlineData.mimeType === "string" ? `inline data (${p.inlineData.mimeType})` : "inline data");
  if (isObject(p.fileData)) return omitted(typeof p.fileData.mimeType === "string" ? `file data (${p.fileData.mimeType})` : "file data");
  if (p.executableCode !== undefined) return omitted("executable code");
  if (p.codeExecutionResult !== undefined) return omitted("code execution result");
  return undefined;
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return "";
  if (typeof system === "string") return system;
  return partsOf(system, "systemInstruction")
    .map((p, i) => {
      if (!isObject(p)) throw new WireFormatError(`systemInstruction.parts[${i}] is not a part`);
      return typeof p.text === "string" && p.thought !== true ? p.text : otherPart(p);
    })
    .filter((t): t is string => t !== undefined)
    .join("\n\n");
}

/** A functionResponse's `response` as the tool message's text: its `output` (or `error`) string, else the JSON. */
function responseText(response: unknown): string {
  if (isObject(response)) {
    if (typeof response.output === "string" && Object.keys(response).length === 1) return response.output;
    if (typeof response.error === "string" && Object.keys(response).length === 1) return response.error;
  }
  if (response === undefined) return "";
  return typeof response === "string" ? response : JSON.stringify(response);
}

/** Lowers an OpenAPI-style Gemini Schema (`type: "OBJECT"`, …) to JSON Schema types, recursively. */
function lowerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "type" && typeof v === "string") out[k] = v.toLowerCase();
    else if (k === "properties" && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, lowerSchema(s)]));
    else if (k === "items" || k === "anyOf" || k === "additionalProperties") out[k] = lowerSchema(v);
    else out[k] = v;
  }
  return out;
}

function toolsOf(tools: unknown): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of Array.isArray(tools) ? tools : []) {
    if (!isObject(t) || !Array.isArray(t.functionDeclarations)) continue;
    for (const f of t.functionDeclarations) {
      if (!isObject(f) || typeof f.name !== "string") continue;
      const schema = isObject(f.parametersJsonSchema) ? f.parametersJsonSchema : isObject(f.parameters) ? (lowerSchema(f.parameters) as Json) : { type: "object", properties: {} };
      out.push({ name: f.name, description: typeof f.description === "string" ? f.description : "", parameters: schema });
    }
  }
  return out;
}

export function geminiToChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw new WireFormatError("the request body is not a JSON object");
  if (!Array.isArray(body.contents)) throw new WireFormatError("the request has no contents");
  const messages: ChatMessage[] = [];
  const system = systemText(body.systemInstruction);
  if (system) messages.push({ role: "system", content: system });
  /** Calls not answered yet: id and name, in order. */
  let pending: Array<{ id: string; name: string }> = [];
  body.contents.forEach((c, ci) => {
    const where = `contents[${ci}]`;
    if (!isObject(c)) throw new WireFormatError(`${where} is not a content object`);
    const parts = partsOf(c, where);
    const role = c.role ?? "user";
    if (role === "model") {
      const texts: string[] = [];
      const toolCalls: ToolCall[] = [];
      parts.forEach((p, pi) => {
        if (!isObject(p)) throw new WireFormatError(`${where}.parts[${pi}] is not a part`);
        if (isObject(p.functionCall)) {
          const fc = p.functionCall;
          if (typeof fc.name !== "string") throw new WireFormatError(`${where}.parts[${pi}]: a functionCall needs a name`);
          const id = typeof fc.id === "string" && fc.id ? fc.id : `${fc.name}_${ci}_${pi}`;
          toolCalls.push({ id, name: fc.name, arguments: JSON.stringify(fc.args ?? {}) });
        } else if (typeof p.text === "string") {
          if (p.thought !== true) texts.push(p.text);
        } else {
          const note = otherPart(p);
          if (note) texts.push(note);
        }
      });
      pending = toolCalls.map((t) => ({ id: t.id, name: t.name }));
      messages.push({ role: "assistant", content: texts.length ? texts.join("\n\n") : null, ...(toolCalls.length ? { toolCalls } : {}) });
    } else if (role === "user" || role === "function" || role === "tool") {
      const tools: ChatMessage[] = [];
      const texts: string[] = [];
      parts.forEach((p, pi) => {
        if (!isObject(p)) throw new WireFormatError(`${where}.parts[${pi}] is not a part`);
        if (isObject(p.functionResponse)) {
          const fr = p.functionResponse;
          if (typeof fr.name !== "string") throw new WireFormatError(`${where}.parts[${pi}]: a functionResponse needs a name`);
          let id = typeof fr.id === "string" && fr.id ? fr.id : undefined;
          const at = id !== undefined ? pending.findIndex((q) => q.id === id) : pending.findIndex((q) => q.name === fr.name);
          if (id === undefined) {
            if (at < 0) throw new WireFormatError(`${where}.parts[${pi}]: a functionResponse of ${fr.name} answers no functionCall before it`);
            id = pending[at]!.id;
          }
          if (at >= 0) pending.splice(at, 1);
          tools.push({ role: "tool", toolCallId: id, content: responseText(fr.response) });
        } else if (typeof p.text === "string") {
          if (p.thought !== true) texts.push(p.text);
        } else {
          const note = otherPart(p);
          if (note) texts.push(note);
        }
      });
      messages.push(...tools);
      if (texts.length) messages.push({ role: "user", content: texts.join("\n\n") });
    } else throw new WireFormatError(`${where}: role ${JSON.stringify(role)} is not supported (user or model)`);
  });
  const request: ChatRequest = { model: typeof body.model === "string" ? body.model.replace(/^models\//, "") : "", messages };
  const tools = toolsOf(body.tools);
  if (tools.length > 0) request.tools = tools;
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  if (typeof config.temperature === "number") request.temperature = config.temperature;
  if (typeof config.topP === "number") request.topP = config.topP;
  return request;
}

/** The engine's finish reason → Gemini's (a turn with function calls also ends with STOP). */
export function finishReason(response: ChatResponse): string {
  if (response.finishReason === "length") return "MAX_TOKENS";
  if (response.finishReason === "content_filter") return "SAFETY";
  return "STOP";
}

/** A tool call's arguments as the `args` object a functionCall carries (`{}` when not an object). */
function callArgs(call: ToolCall): Json {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The model named in a request path (`models/{model}:…`), or "" when the path is not one. */
export function pathModel(path: string): string {
  return PATH.exec(path)?.[1] ?? "";
}

export function geminiReply(response: ChatResponse, _body: unknown, replyId: string, path = ""): WireReply {
  const parts: Json[] = [];
  if (response.content) parts.push({ text: response.content });
  for (const c of response.toolCalls) parts.push({ functionCall: { id: c.id, name: c.name, args: callArgs(c) } });
  const prompt = response.usage.promptTokens;
  const completion = response.usage.completionTokens;
  const out = {
    candidates: [{ content: { role: "model", parts }, finishReason: finishReason(response), index: 0 }],
    usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: completion, totalTokenCount: prompt + completion },
    modelVersion: pathModel(path),
    responseId: replyId,
  };
  if (PATH.exec(path)?.[2] === "streamGenerateContent") {
    // The whole answer as one event: the stream's chunks would only split what the engine already has whole.
    return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" }, body: [`data: ${JSON.stringify(out)}\r\n\r\n`] };
  }
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(out) };
}

/** The Google API status name for an HTTP status (what the Gemini SDK and CLI classify errors by). */
export function errorStatus(status: number): string {
  if (status === 400) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 499) return "CANCELLED";
  if (status === 503) return "UNAVAILABLE";
  if (status === 504) return "DEADLINE_EXCEEDED";
  return "INTERNAL";
}

export const geminiGenerateContent: WireFormat = {
  id: "gemini-generate-content",
  handles: (p) => PATH.test(p),
  toChatRequest: geminiToChatRequest,
  reply: geminiReply,
  error: (status, message) => ({
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ error: { code: status, message, status: errorStatus(status) } }),
  }),
};
