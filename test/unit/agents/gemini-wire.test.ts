/**
 * The proxy's Gemini API format (src/core/agents/proxy/gemini.ts): Gemini CLI's requests (shapes as logged from
 * Gemini CLI 0.61.0, docs/agents/gemini.md) → the engine's request, the engine's answers → a GenerateContentResponse
 * and its event stream, the round trip a harness turn makes (answer → next request) staying stable, and the adapter's
 * event parser and request normalisation.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeGeminiRequest, parseGeminiEvent } from "../../../src/core/agents/gemini.js";
import { finishReason, geminiGenerateContent, geminiReply, geminiToChatRequest, pathModel } from "../../../src/core/agents/proxy/gemini.js";
import { WireFormatError } from "../../../src/core/agents/types.js";
import type { ChatRequest, ChatResponse } from "../../../src/core/models/types.js";

const STREAM = "/v1beta/models/gemini-2.5-pro:streamGenerateContent";
const UNARY = "/v1beta/models/gemini-2.5-pro:generateContent";

/** A first request as Gemini CLI sends it (trimmed texts, every key it sends). */
function firstRequest(): Record<string, unknown> {
  return {
    contents: [
      {
        role: "user",
        parts: [
          { text: "<session_context>\nThis is the Gemini CLI.\nToday's date is Sunday, December 6, 2026 (formatted according to the user's locale).\n</session_context>" },
          { text: "Round $12.40." },
        ],
      },
    ],
    systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI.\n<available_skills>\n  <skill>\n    <name>money</name>\n  </skill>\n</available_skills>" }] },
    tools: [
      {
        functionDeclarations: [
          { name: "read_file", description: "Reads a file.", parametersJsonSchema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] } },
          { name: "activate_skill", description: "Activates a skill.", parametersJsonSchema: { type: "object", properties: { name: { type: "string", enum: ["money"] } }, required: ["name"], additionalProperties: false } },
        ],
      },
      { googleSearch: {} },
    ],
    generationConfig: { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true } },
  };
}

function answer(partial: Partial<ChatResponse>): ChatResponse {
  return { content: null, toolCalls: [], finishReason: "stop", usage: { promptTokens: 1200, completionTokens: 34 }, latencyMs: 5, ...partial };
}

describe("the Gemini API format: requests", () => {
  it("a first request: the system instruction, the user's parts as one message, the function tools; sampling kept, the rest dropped", () => {
    const r = geminiToChatRequest(firstRequest());
    assert.deepEqual(r.messages, [
      { role: "system", content: "You are Gemini CLI.\n<available_skills>\n  <skill>\n    <name>money</name>\n  </skill>\n</available_skills>" },
      { role: "user", content: "<session_context>\nThis is the Gemini CLI.\nToday's date is Sunday, December 6, 2026 (formatted according to the user's locale).\n</session_context>\n\nRound $12.40." },
    ]);
    assert.deepEqual(r.tools?.map((t) => t.name), ["read_file", "activate_skill"], "googleSearch is not a function tool");
    assert.deepEqual(r.tools?.[1]?.parameters, { type: "object", properties: { name: { type: "string", enum: ["money"] } }, required: ["name"], additionalProperties: false });
    assert.equal(r.temperature, 1);
    assert.equal(r.topP, 0.95);
    assert.equal(r.model, "", "the model is in the URL; the proxy sets the run's");
    assert.ok(!JSON.stringify(r).includes("topK") && !JSON.stringify(r).includes("thinking"));
  });

  it("function calls and responses pair by id; thoughts and thought signatures are dropped; images become a note", () => {
    const body = firstRequest();
    (body.contents as unknown[]).push(
      { role: "model", parts: [{ text: "Let me think.", thought: true }, { text: "Loading." }, { functionCall: { id: "c1", name: "activate_skill", args: { name: "money" } }, thoughtSignature: "skip_thought_signature_validator" }] },
      { role: "user", parts: [{ functionResponse: { id: "c1", name: "activate_skill", response: { output: "<activated_skill name=\"money\">Round.</activated_skill>" } } }, { inlineData: { mimeType: "image/png", data: "AAAA" } }] },
    );
    const r = geminiToChatRequest(body);
    assert.deepEqual(r.messages.slice(2), [
      { role: "assistant", content: "Loading.", toolCalls: [{ id: "c1", name: "activate_skill", arguments: '{"name":"money"}' }] },
      { role: "tool", toolCallId: "c1", content: '<activated_skill name="money">Round.</activated_skill>' },
      { role: "user", content: "[inline data (image/png) omitted: the model proxy passes text only]" },
    ]);
  });

  it("calls without ids get their place as id, and a response without one answers the earliest open call of its name", () => {
    const r = geminiToChatRequest({
      contents: [
        { role: "user", parts: [{ text: "Go." }] },
        { role: "model", parts: [{ functionCall: { name: "read_file", args: { file_path: "a" } } }, { functionCall: { name: "read_file", args: { file_path: "b" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "A" } } }, { functionResponse: { name: "read_file", response: { error: "no b" } } }] },
      ],
    });
    assert.deepEqual(r.messages.slice(1), [
      { role: "assistant", content: null, toolCalls: [{ id: "read_file_1_0", name: "read_file", arguments: '{"file_path":"a"}' }, { id: "read_file_1_1", name: "read_file", arguments: '{"file_path":"b"}' }] },
      { role: "tool", toolCallId: "read_file_1_0", content: "A" },
      { role: "tool", toolCallId: "read_file_1_1", content: "no b" },
    ]);
  });

  it("OpenAPI-style parameters (upper-case types) become JSON Schema; a response object that is not {output} is passed as JSON", () => {
    const r = geminiToChatRequest({
      contents: [
        { role: "user", parts: [{ text: "x" }] },
        { role: "model", parts: [{ functionCall: { id: "k", name: "f", args: {} } }] },
        { parts: [{ functionResponse: { id: "k", name: "f", response: { output: "o", exitCode: 2 } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT", properties: { xs: { type: "ARRAY", items: { type: "STRING" } } } } }] }],
    });
    assert.deepEqual(r.tools, [{ name: "f", description: "", parameters: { type: "object", properties: { xs: { type: "array", items: { type: "string" } } } } }]);
    assert.deepEqual(r.messages.at(-1), { role: "tool", toolCallId: "k", content: '{"output":"o","exitCode":2}' });
  });

  it("a body it cannot read is a WireFormatError naming the place", () => {
    assert.throws(() => geminiToChatRequest([]), WireFormatError);
    assert.throws(() => geminiToChatRequest({}), /the request has no contents/);
    assert.throws(() => geminiToChatRequest({ contents: [{ role: "system", parts: [] }] }), /contents\[0\]: role "system" is not supported \(user or model\)/);
    assert.throws(() => geminiToChatRequest({ contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }] }), /contents\[0\]\.parts\[0\]: a functionResponse of f answers no functionCall before it/);
    assert.throws(() => geminiToChatRequest({ contents: [{ role: "model", parts: [{ functionCall: { args: {} } }] }] }), /contents\[0\]\.parts\[0\]: a functionCall needs a name/);
  });

  it("handles the generate paths (any API version, models with a slash), and nothing else", () => {
    const h = geminiGenerateContent.handles;
    assert.ok(h(STREAM) && h(UNARY) && h("/v1/models/tunedModels/x:generateContent"));
    assert.ok(!h("/v1beta/models/m:countTokens") && !h("/v1/messages") && !h("/v1/responses"));
    assert.equal(pathModel(STREAM), "gemini-2.5-pro");
  });
});

describe("the Gemini API format: replies", () => {
  const call = { id: "call_1", name: "activate_skill", arguments: '{"name":"money"}' };

  it("a unary reply: text and function calls as parts with the engine's ids, STOP, usage, the URL's model, the reply id", () => {
    const reply = geminiReply(answer({ content: "Loading.", toolCalls: [call] }), firstRequest(), "abc", UNARY);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(reply.body as string), {
      candidates: [{ content: { role: "model", parts: [{ text: "Loading." }, { functionCall: { id: "call_1", name: "activate_skill", args: { name: "money" } } }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1200, candidatesTokenCount: 34, totalTokenCount: 1234 },
      modelVersion: "gemini-2.5-pro",
      responseId: "abc",
    });
  });

  it("a stream reply: one server-sent event with the whole answer; bad arguments become {}", () => {
    const reply = geminiReply(answer({ toolCalls: [{ ...call, arguments: "not json" }] }), firstRequest(), "abc", STREAM);
    assert.equal(reply.headers["content-type"], "text/event-stream");
    const chunks = reply.body as string[];
    assert.equal(chunks.length, 1);
    assert.match(chunks[0]!, /^data: .*\r\n\r\n$/s);
    const data = JSON.parse(chunks[0]!.slice("data: ".length)) as { candidates: Array<{ content: { parts: unknown[] } }> };
    assert.deepEqual(data.candidates[0]!.content.parts, [{ functionCall: { id: "call_1", name: "activate_skill", args: {} } }]);
  });

  it("finish reasons and errors in the Gemini API's shape", () => {
    assert.equal(finishReason(answer({ finishReason: "length" })), "MAX_TOKENS");
    assert.equal(finishReason(answer({ finishReason: "content_filter" })), "SAFETY");
    assert.equal(finishReason(answer({ finishReason: "tool_calls", toolCalls: [call] })), "STOP");
    const e = geminiGenerateContent.error(429, "slow down", undefined);
    assert.equal(e.status, 429);
    assert.deepEqual(JSON.parse(e.body as string), { error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } });
  });

  it("the round trip: an answer's calls come back in the next request as the same tool calls, and replies repeat byte for byte", () => {
    const first = answer({ content: null, toolCalls: [call] });
    const reply = geminiReply(first, firstRequest(), "r1", STREAM);
    assert.deepEqual(geminiReply(first, firstRequest(), "r1", STREAM), reply, "pure: the same answer is the same bytes");
    const sent = JSON.parse((reply.body as string[])[0]!.slice(6)) as { candidates: Array<{ content: unknown }> };
    const next = firstRequest();
    (next.contents as unknown[]).push(sent.candidates[0]!.content, { role: "user", parts: [{ functionResponse: { id: "call_1", name: "activate_skill", response: { output: "Round." } } }] });
    const r = geminiToChatRequest(next);
    assert.deepEqual(r.messages.slice(2), [
      { role: "assistant", content: null, toolCalls: [call] },
      { role: "tool", toolCallId: "call_1", content: "Round." },
    ]);
  });
});

describe("the Gemini CLI adapter: events and normalisation", () => {
  it("parses the stream-json events: assistant text, tool uses as evidence, errors, usage", () => {
    assert.deepEqual(parseGeminiEvent('{"type":"init","session_id":"x","model":"m"}'), []);
    assert.deepEqual(parseGeminiEvent('{"type":"message","role":"user","content":"Round."}'), []);
    assert.deepEqual(parseGeminiEvent('{"type":"message","role":"assistant","content":"The answer is 12.","delta":true}'), [{ kind: "message", text: "The answer is 12." }]);
    assert.deepEqual(parseGeminiEvent('{"type":"tool_use","tool_name":"activate_skill","tool_id":"a","parameters":{"name":"money"}}'), [{ kind: "skill", name: "money" }]);
    assert.deepEqual(parseGeminiEvent('{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":".gemini/skills/money/SKILL.md"}}'), [{ kind: "read", path: ".gemini/skills/money/SKILL.md" }]);
    assert.deepEqual(parseGeminiEvent('{"type":"tool_use","tool_name":"run_shell_command","parameters":{"command":"ls"}}'), [{ kind: "command", command: "ls" }]);
    assert.deepEqual(parseGeminiEvent('{"type":"error","severity":"warning","message":"Loop detected"}'), []);
    assert.deepEqual(parseGeminiEvent('{"type":"error","severity":"error","message":"Maximum session turns exceeded"}'), [{ kind: "error", message: "Maximum session turns exceeded" }]);
    assert.deepEqual(parseGeminiEvent('{"type":"result","status":"error","error":{"type":"Error","message":"[API Error: turn limit]"},"stats":{"input_tokens":5,"output_tokens":2}}'), [
      { kind: "usage", prompt: 5, completion: 2 },
      { kind: "error", message: "[API Error: turn limit]" },
    ]);
    assert.deepEqual(parseGeminiEvent("not json"), []);
  });

  it("normalises today's date to the run's (spoken as the CLI speaks it) and drops shell process group ids", () => {
    const request: ChatRequest = {
      model: "m",
      messages: [
        { role: "user", content: "Today's date is Sunday, December 6, 2026 (formatted according to the user's locale).\nGo." },
        { role: "assistant", content: null, toolCalls: [{ id: "c", name: "run_shell_command", arguments: "{}" }] },
        { role: "tool", toolCallId: "c", content: "<untrusted_context>\nOutput: hi\nProcess Group PGID: 27915\n</untrusted_context>" },
      ],
    };
    const fixed = normalizeGeminiRequest(request, { date: "2031-02-03" });
    assert.equal(fixed.messages[0]!.content, "Today's date is Monday, February 3, 2031 (formatted according to the user's locale).\nGo.");
    assert.equal(fixed.messages[2]!.content, "<untrusted_context>\nOutput: hi\n</untrusted_context>");
    assert.equal(normalizeGeminiRequest(request, { date: "0000-00-00" }).messages[0]!.content, "Today's date is 0000-00-00 (formatted according to the user's locale).\nGo.");
    assert.deepEqual(normalizeGeminiRequest(request, { date: "2031-02-03" }), normalizeGeminiRequest(fixed, { date: "2031-02-03" }), "idempotent");
  });

  it("puts the skill list and activate_skill's names in name order (the CLI's directory walk varies their order)", () => {
    const entry = (name: string) => `  <skill>\n    <name>${name}</name>\n    <description>About ${name}.\nTwo lines.</description>\n    <location>/workspace/.gemini/skills/${name}/SKILL.md</location>\n  </skill>\n`;
    const list = (names: string[]) => `# Available Agent Skills\n\n<available_skills>\n${names.map(entry).join("")}</available_skills>\n\n# Hook Context`;
    const tool = (names: string[]) => ({
      name: "activate_skill",
      description: `Activates a specialized agent skill by name (Available: ${names.map((n) => `'${n}'`).join(", ")}). Returns the skill's instructions.`,
      parameters: { type: "object", properties: { name: { type: "string", enum: names, description: "The name." } }, required: ["name"] },
    });
    const request = (names: string[]): ChatRequest => ({ model: "m", messages: [{ role: "system", content: list(names) }, { role: "user", content: "Go." }], tools: [{ name: "read_file", description: "Reads.", parameters: {} }, tool(names)] });
    const a = normalizeGeminiRequest(request(["skill-creator", "money", "antigravity-support"]), { date: "2031-02-03" });
    const b = normalizeGeminiRequest(request(["antigravity-support", "skill-creator", "money"]), { date: "2031-02-03" });
    assert.deepEqual(a, b, "two walk orders, one request");
    assert.equal(a.messages[0]!.content, list(["antigravity-support", "money", "skill-creator"]));
    assert.deepEqual(a.tools?.[1], tool(["antigravity-support", "money", "skill-creator"]));
    assert.deepEqual(a.tools?.[0], { name: "read_file", description: "Reads.", parameters: {} });
  });
});
