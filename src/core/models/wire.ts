/**
 * Mapping between our ChatMessage/ToolDefinition shapes and the OpenAI chat completions wire format, and
 * validation of what comes back. Responses are validated with zod because local servers (and the fault
 * injector) send bodies the SDK passes through unchecked; a body that does not fit is a retryable fault.
 */
import type OpenAI from "openai";
import { z } from "zod";
import type { ChatRequest, ChatResponse, ToolCall } from "./types.js";

/** Thrown when a 200 response is not a usable completion; retried like a transport failure. */
export class MalformedResponseError extends Error {
  override name = "MalformedResponseError";
}

/** Thrown when a stream ends without a finish_reason (cut before [DONE]); retried. */
export class TruncatedStreamError extends Error {
  override name = "TruncatedStreamError";
}

export interface WireChatBody {
  model: string;
  messages: OpenAI.ChatCompletionMessageParam[];
  tools?: OpenAI.ChatCompletionFunctionTool[];
  temperature?: number;
  top_p?: number;
  seed?: number;
  max_tokens?: number;
  /** Sent instead of max_tokens to models that refuse it (OpenAI's o-series and gpt-5 reasoning models). */
  max_completion_tokens?: number;
  response_format?: OpenAI.ResponseFormatJSONSchema;
}

/** The request body we send; sampling parameters appear only when set, `tools` only when non-empty. */
export function toWireBody(request: ChatRequest): WireChatBody {
  const body: WireChatBody = {
    model: request.model,
    messages: request.messages.map((m): OpenAI.ChatCompletionMessageParam => {
      switch (m.role) {
        case "system":
        case "user":
          return { role: m.role, content: m.content };
        case "assistant":
          return {
            role: "assistant",
            content: m.content,
            ...(m.toolCalls?.length
              ? { tool_calls: m.toolCalls.map((tc) => ({ id: tc.id, type: "function" as const, function: { name: tc.name, arguments: tc.arguments } })) }
              : {}),
          };
        case "tool":
          return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
      }
    }),
  };
  // OpenAI rejects `tools: []` with a 400, so an empty list goes out like an absent one.
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.responseFormat !== undefined) body.response_format = request.responseFormat;
  return body;
}

const WireUsageSchema = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
  .nullish();

const WireToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const WireCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(WireToolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: WireUsageSchema,
});

export const WireChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: WireUsageSchema,
});

type Usage = ChatResponse["usage"];

function usageOf(u: z.infer<typeof WireUsageSchema>): Usage {
  return { promptTokens: u?.prompt_tokens ?? 0, completionTokens: u?.completion_tokens ?? 0 };
}

/** Servers that omit tool call ids get a deterministic one, so follow-up requests stay cache-stable. */
function fallbackId(index: number): string {
  return `call_${index}`;
}

type WireCompletion = z.infer<typeof WireCompletionSchema>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNullish = (v: unknown): v is null | undefined => v === undefined || v === null;
const optString = (v: unknown): boolean => isNullish(v) || typeof v === "string";
const optNumber = (v: unknown): boolean => isNullish(v) || (typeof v === "number" && Number.isFinite(v));

/**
 * A plain-object completion that WireCompletionSchema accepts, checked without zod (zod cost a few percent of the
 * engine's CPU per call). Only a yes is trusted: anything this does not recognise goes to the schema, which has
 * the last word and the error message. Every field read below is checked here exactly as the schema checks it.
 */
function plainCompletion(raw: unknown): raw is WireCompletion {
  if (!isRecord(raw) || !Array.isArray(raw.choices) || raw.choices.length === 0) return false;
  const usage = raw.usage;
  if (!isNullish(usage) && !(isRecord(usage) && optNumber(usage.prompt_tokens) && optNumber(usage.completion_tokens))) return false;
  for (const choice of raw.choices as unknown[]) {
    if (!isRecord(choice) || !optString(choice.finish_reason) || !isRecord(choice.message)) return false;
    const { content, tool_calls: calls } = choice.message;
    if (!optString(content)) return false;
    if (isNullish(calls)) continue;
    if (!Array.isArray(calls)) return false;
    for (const tc of calls as unknown[]) {
      if (!isRecord(tc) || !optString(tc.id) || !optString(tc.type)) return false;
      const fn = tc.function;
      if (!isNullish(fn) && !(isRecord(fn) && optString(fn.name) && optString(fn.arguments))) return false;
    }
  }
  return true;
}

export function fromWireCompletion(raw: unknown): Omit<ChatResponse, "latencyMs"> {
  let completion: WireCompletion;
  if (plainCompletion(raw)) completion = raw;
  else {
    const parsed = WireCompletionSchema.safeParse(raw);
    if (!parsed.success) throw new MalformedResponseError(`response is not a chat completion: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    completion = parsed.data;
  }
  const choice = completion.choices[0]!;
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? [])
    .filter((tc) => (tc.type ?? "function") === "function" && tc.function?.name)
    .map((tc, i) => ({ id: tc.id || fallbackId(i), name: tc.function?.name ?? "", arguments: tc.function?.arguments ?? "" }));
  return {
    content: choice.message.content ?? null,
    toolCalls,
    finishReason: choice.finish_reason ?? null,
    usage: usageOf(completion.usage),
  };
}

/** Accumulates streamed deltas (content pieces, tool-call fragments by index) into one response. */
export class StreamAccumulator {
  private content = "";
  private sawContent = false;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private finishReason: string | null = null;
  private usage: Usage = { promptTokens: 0, completionTokens: 0 };

  add(raw: unknown): void {
    const parsed = WireChunkSchema.safeParse(raw);
    if (!parsed.success) throw new MalformedResponseError(`stream chunk is not a chat completion chunk: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const chunk = parsed.data;
    if (chunk.usage) this.usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (typeof delta?.content === "string") {
      this.content += delta.content;
      if (delta.content.length) this.sawContent = true;
    }
    for (const tc of delta?.tool_calls ?? []) {
      const index = tc.index ?? this.calls.size;
      const slot = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (tc.id) slot.id = tc.id;
      const name = tc.function?.name;
      // OpenAI sends the name once; some servers repeat it whole in every delta, others split it.
      if (name && slot.name !== name) slot.name += name;
      if (tc.function?.arguments) slot.arguments += tc.function.arguments;
      this.calls.set(index, slot);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  finish(): Omit<ChatResponse, "latencyMs"> {
    if (this.finishReason === null) throw new TruncatedStreamError("stream ended without a finish_reason");
    const toolCalls = [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .filter(([, c]) => c.name)
      .map(([index, c]) => ({ id: c.id || fallbackId(index), name: c.name, arguments: c.arguments }));
    return {
      content: this.sawContent || toolCalls.length === 0 ? this.content : null,
      toolCalls,
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }
}
