/**
 * The proxy's Anthropic Messages format (src/core/agents/proxy/anthropic-messages.ts): Claude Code's requests (shapes
 * as logged from Claude Code 2.1.332, docs/agents/claude-code.md) → the engine's request, the engine's answers → a
 * message and its event stream, and the round trip a harness turn makes (answer → next request) staying stable.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anthropicMessages, messagesReply, messagesToChatRequest } from "../../../src/core/agents/proxy/anthropic-messages.js";
import { WireFormatError } from "../../../src/core/agents/types.js";
import type { ChatResponse } from "../../../src/core/models/types.js";

const SKILL_LIST = "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- pdf-tools: Extract text and tables from PDF files.\n- dataviz: Charts.\n</system-reminder>";

/** A first request as Claude Code sends it (trimmed texts, every key it sends). */
function firstRequest(): Record<string, unknown> {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 32000,
    stream: true,
    thinking: { type: "enabled", budget_tokens: 31999, display: "updates" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    metadata: { user_id: '{"device_id":"b05e7951","account_uuid":"","session_id":"f31d45db"}' },
    system: [
      { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.332.bd3; cc_entrypoint=sdk-cli;" },
      { type: "text", text: "You are a Claude agent, built on Anthropic's Claude Agent SDK.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "\nYou are an agent working with the user toward their goals." },
    ],
    tools: [
      { name: "Read", description: "Reads a file.", input_schema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] } },
      { name: "Skill", description: "Invoke a skill.", input_schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { skill: { type: "string" }, args: { type: "string" } }, required: ["skill"], additionalProperties: false } },
      { name: "DeferredToolPlaceholder", description: "Reserved placeholder; never call this tool.", input_schema: { type: "object", properties: {} }, defer_loading: true },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 },
    ],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>\n# Environment\n - Primary working directory: /work\n</system-reminder>" },
          { type: "text", text: SKILL_LIST },
          { type: "text", text: "<system-reminder>\nToday's date is 2026-12-05.\n</system-reminder>" },
          { type: "text", text: "Extract the tables from report.pdf.", cache_control: { type: "ephemeral" } },
        ],
      },
    ],
  };
}

function answer(partial: Partial<ChatResponse>): ChatResponse {
  return { content: null, toolCalls: [], finishReason: "stop", usage: { promptTokens: 1200, completionTokens: 34 }, latencyMs: 5, ...partial };
}

interface SseData {
  type: string;
  index: number;
  message: Record<string, unknown>;
  content_block: Record<string, unknown>;
  delta: { type?: string; text?: string; partial_json?: string; stop_reason?: string };
  usage: Record<string, unknown>;
}

/** Rebuilds the message an SSE reply describes, the way Anthropic's SDK accumulates a stream. */
function accumulate(chunks: readonly string[]): Record<string, unknown> {
  let message: Record<string, unknown> = {};
  const blocks: Record<string, unknown>[] = [];
  const partial = new Map<number, string>();
  const names: string[] = [];
  for (const chunk of chunks) {
    const [eventLine = "", dataLine = "", ...rest] = chunk.split("\n");
    assert.ok(eventLine.startsWith("event: ") && dataLine.startsWith("data: ") && rest.join("") === "", `an SSE event: ${chunk}`);
    const data = JSON.parse(dataLine.slice(6)) as SseData;
    assert.equal(eventLine.slice(7), data.type, "the event name is the data's type");
    names.push(data.type);
    if (data.type === "message_start") message = { ...data.message };
    if (data.type === "content_block_start") blocks[data.index] = { ...data.content_block };
    if (data.type === "content_block_delta" && data.delta.type === "text_delta") blocks[data.index]!.text = String(blocks[data.index]!.text) + data.delta.text;
    if (data.type === "content_block_delta" && data.delta.type === "input_json_delta") partial.set(data.index, (partial.get(data.index) ?? "") + data.delta.partial_json);
    if (data.type === "content_block_stop" && partial.has(data.index)) blocks[data.index]!.input = JSON.parse(partial.get(data.index)!);
    if (data.type === "message_delta") message = { ...message, ...data.delta, usage: { ...(message.usage as object), ...data.usage } };
  }
  assert.equal(names[0], "message_start");
  assert.equal(names.at(-1), "message_stop");
  return { ...message, content: blocks };
}

describe("Anthropic Messages wire format", () => {
  it("a Claude Code first request becomes one system message, the user's text blocks in order, and the model's tools", () => {
    const request = messagesToChatRequest(firstRequest());
    assert.equal(request.model, "claude-sonnet-4-5");
    assert.deepEqual(request.messages[0], {
      role: "system",
      content: "You are a Claude agent, built on Anthropic's Claude Agent SDK.\n\n\nYou are an agent working with the user toward their goals.",
    });
    assert.equal(request.messages.length, 2);
    const user = request.messages[1]!;
    assert.equal(user.role, "user");
    assert.ok(user.content.includes(SKILL_LIST), "the skill list reaches the model");
    assert.ok(user.content.endsWith("Extract the tables from report.pdf."));
    // The placeholder (defer_loading) and the server tool are not the model's to call.
    assert.deepEqual(request.tools?.map((t) => t.name), ["Read", "Skill"]);
    assert.deepEqual(request.tools?.[1]?.parameters.required, ["skill"]);
    // Nothing of the harness's sampling, thinking or identity: the run's settings decide, and the cache key stays stable.
    const text = JSON.stringify(request);
    for (const absent of ["billing-header", "device_id", "32000", "budget_tokens", "cache_control", "clear_thinking"]) assert.ok(!text.includes(absent), `${absent} is not passed on`);
  });

  it("a later turn: tool_use becomes tool calls, tool results come first as tool messages, then the user's text; thinking is dropped and an image is named", () => {
    const body = firstRequest();
    (body.messages as unknown[]).push(
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "the user wants tables", signature: "sig" },
          { type: "text", text: "Loading the skill." },
          { type: "tool_use", id: "call_a1", name: "Skill", input: { skill: "pdf-tools" } },
          { type: "tool_use", id: "call_a2", name: "Read", input: { file_path: "/work/report.pdf" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a1", content: "Launching skill: pdf-tools" },
          { type: "text", text: "Base directory for this skill: /work/.claude/skills/pdf-tools\n\n# PDF tools" },
          { type: "tool_result", tool_use_id: "call_a2", content: [{ type: "text", text: "page one" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBO" } }], is_error: false },
        ],
      },
    );
    const messages = messagesToChatRequest(body).messages.slice(2);
    assert.deepEqual(messages, [
      {
        role: "assistant",
        content: "Loading the skill.",
        toolCalls: [
          { id: "call_a1", name: "Skill", arguments: '{"skill":"pdf-tools"}' },
          { id: "call_a2", name: "Read", arguments: '{"file_path":"/work/report.pdf"}' },
        ],
      },
      { role: "tool", toolCallId: "call_a1", content: "Launching skill: pdf-tools" },
      { role: "tool", toolCallId: "call_a2", content: "page one\n\n[image omitted: the model proxy passes text only]" },
      { role: "user", content: "Base directory for this skill: /work/.claude/skills/pdf-tools\n\n# PDF tools" },
    ]);
  });

  it("an answer with text and tool calls streams as Anthropic's events and accumulates to the same message as the JSON reply", () => {
    const response = answer({
      content: "I will load the skill.",
      toolCalls: [
        { id: "call_7", name: "Skill", arguments: '{"skill": "pdf-tools"}' },
        { id: "call_8", name: "Read", arguments: '{"file_path":"/work/.claude/skills/pdf-tools/references/tables.md"}' },
      ],
      finishReason: "tool_calls",
    });
    const streamed = messagesReply(response, { model: "claude-sonnet-4-5", stream: true }, "abc123");
    assert.equal(streamed.headers["content-type"], "text/event-stream");
    assert.ok(Array.isArray(streamed.body));
    const fromStream = accumulate(streamed.body as string[]);
    const whole = messagesReply(response, { model: "claude-sonnet-4-5", stream: false }, "abc123");
    assert.equal(whole.headers["content-type"], "application/json");
    const fromJson = JSON.parse(whole.body as string) as Record<string, unknown>;
    assert.deepEqual(fromStream, fromJson);
    assert.deepEqual(fromJson, {
      id: "msg_abc123",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "I will load the skill." },
        { type: "tool_use", id: "call_7", name: "Skill", input: { skill: "pdf-tools" } },
        { type: "tool_use", id: "call_8", name: "Read", input: { file_path: "/work/.claude/skills/pdf-tools/references/tables.md" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 34 },
    });
    // Pure: the same answer gives the same bytes (a cached answer replays exactly).
    assert.deepEqual(messagesReply(response, { model: "claude-sonnet-4-5", stream: true }, "abc123"), streamed);
  });

  it("stop reasons: end_turn, max_tokens for a truncated answer, and tool arguments that are not an object become {}", () => {
    const stop = (r: ChatResponse) => (JSON.parse(messagesReply(r, { model: "m" }, "x").body as string) as { stop_reason: string; content: unknown[] });
    assert.equal(stop(answer({ content: "42" })).stop_reason, "end_turn");
    assert.equal(stop(answer({ content: "4", finishReason: "length" })).stop_reason, "max_tokens");
    const bad = stop(answer({ toolCalls: [{ id: "c", name: "Skill", arguments: '{"skill": "pdf' }], finishReason: "tool_calls" }));
    assert.deepEqual(bad.content, [{ type: "tool_use", id: "c", name: "Skill", input: {} }]);
    // An empty answer is a message with no blocks, not a crash.
    assert.deepEqual(accumulate(messagesReply(answer({ content: "" }), { model: "m", stream: true }, "y").body as string[]).content, []);
  });

  it("round trip: the next request Claude Code builds from a reply gives the engine back the same tool calls (stable cache keys)", () => {
    const response = answer({ toolCalls: [{ id: "call_9", name: "Skill", arguments: '{"skill":"pdf-tools","args":"tables"}' }], finishReason: "tool_calls" });
    const replied = JSON.parse(messagesReply(response, { model: "m" }, "z").body as string) as { content: unknown[] };
    const body = firstRequest();
    (body.messages as unknown[]).push({ role: "assistant", content: replied.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_9", content: "ok" }] });
    const again = messagesToChatRequest(body).messages;
    assert.deepEqual(again[2], { role: "assistant", content: null, toolCalls: response.toolCalls });
    assert.deepEqual(again[3], { role: "tool", toolCallId: "call_9", content: "ok" });
  });

  it("serves /v1/messages only, refuses unreadable bodies by place, and answers errors in Anthropic's shape", () => {
    assert.ok(anthropicMessages.handles("/v1/messages"));
    assert.ok(!anthropicMessages.handles("/v1/messages/count_tokens"));
    assert.ok(!anthropicMessages.handles("/v1/chat/completions"));
    assert.throws(() => messagesToChatRequest({ model: "m", messages: [{ role: "system", content: "x" }] }), (e: unknown) => e instanceof WireFormatError && /messages\[0\]: role 'system'/.test(e.message));
    assert.throws(() => messagesToChatRequest({ model: "m", messages: [{ role: "user", content: [{ type: "tool_result" }] }] }), /messages\[0\]\.content\[0\]: a tool_result needs tool_use_id/);
    assert.throws(() => messagesToChatRequest({ messages: [] }), /no model/);
    const e = anthropicMessages.error(429, "slow down", undefined);
    assert.equal(e.status, 429);
    assert.deepEqual(JSON.parse(e.body as string), { type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    assert.equal((JSON.parse(anthropicMessages.error(502, "x", undefined).body as string) as { error: { type: string } }).error.type, "api_error");
  });
});
