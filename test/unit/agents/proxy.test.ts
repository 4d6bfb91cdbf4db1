/**
 * The model proxy's wire formats (pure) and the proxy server over real HTTP: what a harness sends becomes the
 * engine's request, the engine's answer goes back in the harness's format, and the proxy keeps the key, the
 * run's parameters and the turn limit.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeCodexRequest, parseCodexEvent } from "../../../src/core/agents/codex.js";
import { RetrievalTracker } from "../../../src/core/agents/evidence.js";
import { chatReply, chatToChatRequest } from "../../../src/core/agents/proxy/openai-chat.js";
import { responsesReply, responsesToChatRequest } from "../../../src/core/agents/proxy/openai-responses.js";
import { LOST_RUN, startModelProxy } from "../../../src/core/agents/proxy/server.js";
import { openAIResponses } from "../../../src/core/agents/proxy/openai-responses.js";
import { WireFormatError } from "../../../src/core/agents/types.js";
import type { CallOptions, ChatRequest, ChatResponse, ModelClient } from "../../../src/core/models/types.js";

const answer = (over: Partial<ChatResponse> = {}): ChatResponse => ({ content: "hi", toolCalls: [], finishReason: "stop", usage: { promptTokens: 11, completionTokens: 3 }, latencyMs: 1, ...over });

/** SSE chunks → their JSON events. */
const events = (chunks: readonly string[]) => chunks.map((c) => JSON.parse(/^data: (.*)$/m.exec(c)![1]!) as Record<string, unknown>);

describe("OpenAI Responses wire format", () => {
  it("maps instructions, developer and user messages, a turn's text and calls, and tool outputs to the chat shape", () => {
    const req = responsesToChatRequest({
      model: "gpt",
      instructions: "be brief",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "skills here" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "a" }, { type: "input_text", text: "b" }] },
        { type: "reasoning", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "let me look" }] },
        { type: "function_call", call_id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' },
        { type: "function_call", call_id: "c2", name: "exec_command", arguments: '{"cmd":"pwd"}' },
        { type: "function_call_output", call_id: "c1", output: "x.txt" },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "/w" }] },
      ],
      tools: [
        { type: "function", name: "exec_command", description: "run", parameters: { type: "object", properties: { cmd: { type: "string" } } } },
        { type: "web_search" },
      ],
      store: false,
      prompt_cache_key: "random-session-id",
      max_output_tokens: 99,
    });
    assert.deepEqual(req, {
      model: "gpt",
      messages: [
        { role: "system", content: "be brief" },
        { role: "system", content: "skills here" },
        { role: "user", content: "a\n\nb" },
        {
          role: "assistant",
          content: "let me look",
          toolCalls: [
            { id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' },
            { id: "c2", name: "exec_command", arguments: '{"cmd":"pwd"}' },
          ],
        },
        { role: "tool", toolCallId: "c1", content: "x.txt" },
        { role: "tool", toolCallId: "c2", content: "/w" },
      ],
      tools: [{ name: "exec_command", description: "run", parameters: { type: "object", properties: { cmd: { type: "string" } } } }],
      maxTokens: 99,
    });
  });

  it("refuses an input item it cannot map, naming it, rather than dropping it", () => {
    assert.throws(() => responsesToChatRequest({ model: "m", input: [{ type: "local_shell_call", call_id: "x" }] }), (err: unknown) => err instanceof WireFormatError && /input\[0\].*local_shell_call/.test(err.message));
    assert.throws(() => responsesToChatRequest({ model: "m", input: [{ type: "message", role: "user", content: [{ type: "input_image", image_url: "x" }] }] }), /input_image/);
  });

  it("streams an answer as created, item added, text delta, item done, completed, with usage and the call ids kept", () => {
    const reply = responsesReply(answer({ content: "ok", toolCalls: [{ id: "call_9", name: "exec_command", arguments: '{"cmd":"ls"}' }] }), { model: "gpt", stream: true }, "abc");
    assert.equal(reply.headers["content-type"], "text/event-stream");
    const evs = events(reply.body as string[]);
    assert.deepEqual(
      evs.map((e) => e.type),
      ["response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done", "response.output_item.added", "response.output_item.done", "response.completed"],
    );
    const done = evs.at(-1)!.response as { id: string; output: Array<Record<string, unknown>>; usage: { input_tokens: number; output_tokens: number } };
    assert.equal(done.id, "resp_abc");
    assert.deepEqual(done.usage.input_tokens, 11);
    assert.deepEqual(done.output[1], { type: "function_call", id: "fc_abc_0", status: "completed", call_id: "call_9", name: "exec_command", arguments: '{"cmd":"ls"}' });
    // Without `stream`, one JSON Response.
    const whole = JSON.parse(responsesReply(answer(), { model: "gpt" }, "abc").body as string) as { object: string; status: string };
    assert.equal(whole.object, "response");
    assert.equal(whole.status, "completed");
  });
});

describe("OpenAI Chat Completions wire format", () => {
  it("maps messages with tool calls and back; a streamed reply rebuilds to the same answer", () => {
    const req = chatToChatRequest({
      model: "m",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: [{ type: "text", text: "u" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "t1", content: "r" },
      ],
      max_completion_tokens: 5,
      seed: 3,
    });
    assert.deepEqual(req.messages[2], { role: "assistant", content: null, toolCalls: [{ id: "t1", name: "f", arguments: "{}" }] });
    assert.equal(req.maxTokens, 5);
    assert.equal(req.seed, 3);
    const chunks = chatReply(answer({ content: "a", toolCalls: [{ id: "t2", name: "f", arguments: '{"x":1}' }], finishReason: "tool_calls" }), { model: "m", stream: true }, "r1") as { body: readonly string[] };
    assert.equal(chunks.body.at(-1), "data: [DONE]\n\n");
    const parsed = chunks.body.slice(0, -1).map((c) => JSON.parse(c.slice(6)) as { choices: Array<{ delta: { content?: string; tool_calls?: Array<{ id: string }> }; finish_reason: string | null }>; usage?: unknown });
    assert.equal(parsed.map((p) => p.choices[0]?.delta.content ?? "").join(""), "a");
    assert.equal(parsed.flatMap((p) => p.choices[0]?.delta.tool_calls ?? [])[0]!.id, "t2");
    assert.ok(parsed.some((p) => p.usage));
  });
});

describe("the model proxy", () => {
  const recording = () => {
    const seen: Array<{ request: ChatRequest; options: CallOptions }> = [];
    const client: ModelClient = {
      id: "test-client",
      complete: (request, options) => {
        seen.push({ request, options });
        return Promise.resolve(answer({ content: `turn ${seen.length}` }));
      },
    };
    return { seen, client };
  };

  it("answers the harness with the run's model and parameters, keyed by the harness; refuses a wrong key and the call past the turn limit", async () => {
    const { seen, client } = recording();
    const proxy = await startModelProxy({ client, formats: [openAIResponses], model: "real-model", params: { temperature: 0, seed: 7 }, sampleIndex: 2, cacheScope: "codex@1#abc", maxCalls: 2, dummyKey: "dummy" });
    try {
      const post = (key: string) =>
        fetch(`${proxy.url}/v1/responses`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "whatever", input: [{ type: "message", role: "user", content: "q" }], stream: true, temperature: 1 }),
        });
      assert.equal((await post("wrong")).status, 401);
      const ok = await post("dummy");
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /"type":"response.completed"/);
      assert.deepEqual(seen[0]!.request, { model: "real-model", messages: [{ role: "user", content: "q" }], temperature: 0, seed: 7 });
      assert.equal(seen[0]!.options.sampleIndex, 2);
      assert.equal(seen[0]!.options.cacheScope, "codex@1#abc");
      assert.equal((await post("dummy")).status, 200);
      const third = await post("dummy");
      assert.equal(third.status, 400);
      assert.match(await third.text(), /turn limit reached: 2 model turns/);
      assert.equal(seen.length, 2);
      assert.ok(proxy.turnLimitHit);
      assert.equal(proxy.exchanges.length, 2);
      assert.equal((await fetch(`${proxy.url}/v1/models`)).status, 404);
    } finally {
      await proxy.close();
    }
  });

  it("a model failure reaches the harness as an error and is kept as the run's failure", async () => {
    const client: ModelClient = { id: "x", complete: () => Promise.reject(new Error("upstream down")) };
    const proxy = await startModelProxy({ client, formats: [openAIResponses], model: "m", params: {}, sampleIndex: 0, cacheScope: "s", maxCalls: 5, dummyKey: "k" });
    try {
      const res = await fetch(`${proxy.url}/v1/responses`, { method: "POST", headers: { authorization: "Bearer k" }, body: JSON.stringify({ model: "m", input: "q" }) });
      assert.equal(res.status, 502);
      assert.match(await res.text(), /upstream down/);
      assert.equal(proxy.failure?.message, "upstream down");
    } finally {
      await proxy.close();
    }
  });

  it("after a model failure the run is lost: a harness's own retry is refused (400, not retried) without another upstream call", async () => {
    let asked = 0;
    const client: ModelClient = {
      id: "x",
      complete: () => {
        asked++;
        return asked === 1 ? Promise.reject(new Error("upstream down")) : Promise.resolve(answer());
      },
    };
    const proxy = await startModelProxy({ client, formats: [openAIResponses], model: "m", params: {}, sampleIndex: 0, cacheScope: "s", maxCalls: 5, dummyKey: "k" });
    try {
      const post = () => fetch(`${proxy.url}/v1/responses`, { method: "POST", headers: { authorization: "Bearer k" }, body: JSON.stringify({ model: "m", input: "q" }) });
      assert.equal((await post()).status, 502);
      const again = await post();
      assert.equal(again.status, 400, "a status harnesses do not retry");
      assert.equal((JSON.parse(await again.text()) as { error: { message: string } }).error.message, LOST_RUN);
      assert.equal(asked, 1, "the retry never reached the client");
      assert.equal(proxy.exchanges.length, 1);
      assert.equal(proxy.failure?.message, "upstream down");
    } finally {
      await proxy.close();
    }
  });
});

describe("Codex: events, normalisation and retrieval evidence", () => {
  it("reads codex exec --json lines: messages, commands, usage; other lines are nothing", () => {
    assert.deepEqual(parseCodexEvent('{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"done"}}'), [{ kind: "message", text: "done" }]);
    assert.deepEqual(parseCodexEvent(`{"type":"item.completed","item":{"type":"command_execution","command":"/bin/bash -lc 'cat a'","exit_code":0}}`), [{ kind: "command", command: "/bin/bash -lc 'cat a'" }]);
    assert.deepEqual(parseCodexEvent('{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":2}}'), [{ kind: "usage", prompt: 5, completion: 2 }]);
    assert.deepEqual(parseCodexEvent('{"type":"thread.started","thread_id":"x"}'), []);
    assert.deepEqual(parseCodexEvent("not json"), []);
  });

  it("replaces today's date with the run's and drops shell output's random chunk id and wall time", () => {
    const req: ChatRequest = {
      model: "m",
      messages: [
        { role: "user", content: "<environment_context>\n  <current_date>2031-05-06</current_date>\n</environment_context>" },
        { role: "tool", toolCallId: "c", content: "Chunk ID: e268b3\nWall time: 0.0123 seconds\nProcess exited with code 0\nOutput:\nhi\n" },
      ],
    };
    const out = normalizeCodexRequest(req, { date: "2025-01-01" });
    assert.equal(out.messages[0]!.content, "<environment_context>\n  <current_date>2025-01-01</current_date>\n</environment_context>");
    assert.equal(out.messages[1]!.content, "Process exited with code 0\nOutput:\nhi\n");
  });

  it("a command naming <skill>/SKILL.md loads it; other files of the skill are filesRead; unknown skills and files are nothing", () => {
    const tracker = new RetrievalTracker(
      [
        { ref: { name: "a", contentHash: "ha" }, files: ["SKILL.md", "references/r.md"] },
        { ref: { name: "b", contentHash: "hb" }, files: ["SKILL.md"] },
      ],
      ".agents/skills",
    );
    assert.deepEqual(tracker.add({ kind: "command", command: "ls .agents/skills" }), []);
    assert.deepEqual(tracker.add({ kind: "command", command: "sed -n 1,200p /workspace/.agents/skills/b/SKILL.md" }), [{ name: "b", contentHash: "hb" }]);
    assert.deepEqual(tracker.add({ kind: "command", command: "cat '.agents/skills/a/references/r.md' .agents/skills/a/nope.md .agents/skills/zz/SKILL.md" }), []);
    assert.deepEqual(tracker.add({ kind: "read", path: ".agents/skills/a/./SKILL.md" }), [{ name: "a", contentHash: "ha" }]);
    assert.deepEqual(tracker.add({ kind: "skill", name: "b" }), [{ name: "b", contentHash: "hb" }]);
    assert.deepEqual(tracker.result(), {
      retrieved: [
        { name: "b", contentHash: "hb" },
        { name: "a", contentHash: "ha" },
      ],
      filesRead: [{ skill: "a", path: "references/r.md" }],
    });
  });
});
