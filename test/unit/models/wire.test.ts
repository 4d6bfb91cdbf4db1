// Wire mapping edge cases that the scripted server does not produce but real servers do: tool-call deltas
// split or repeated differently (vLLM, llama.cpp, Ollama), missing ids and usage, odd bodies.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromWireCompletion, MalformedResponseError, StreamAccumulator, toWireBody, TruncatedStreamError, WireCompletionSchema } from "../../../src/core/models/wire.js";

const chunk = (delta: unknown, finish: string | null = null): unknown => ({ choices: [{ index: 0, delta, finish_reason: finish }] });

describe("toWireBody", () => {
  it("maps every message role and keeps the tool-call id link", () => {
    const body = toWireBody({
      model: "m",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "load_skill", arguments: '{"name":"x"}' }] },
        { role: "tool", toolCallId: "c1", content: "body" },
        { role: "assistant", content: "done", toolCalls: [] },
      ],
      tools: [],
    });
    assert.deepEqual(body.messages, [
      { role: "system", content: "s" },
      { role: "user", content: "u" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "load_skill", arguments: '{"name":"x"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "body" },
      { role: "assistant", content: "done" },
    ]);
    // OpenAI answers `tools: []` with a 400: an empty list is omitted like an absent one.
    assert.ok(!("tools" in body));
  });
});

describe("StreamAccumulator", () => {
  it("joins content pieces and split tool-call fragments by index", () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ role: "assistant", content: "" }));
    acc.add(chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "search_skills", arguments: "" } }] }));
    acc.add(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "load_", arguments: '{"na' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 0, function: { name: "skill", arguments: 'me":"x"}' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 1, function: { arguments: '{"query":"q"}' } }] }));
    acc.add(chunk({}, "tool_calls"));
    acc.add({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3 } });
    assert.deepEqual(acc.finish(), {
      content: null,
      toolCalls: [
        { id: "a", name: "load_skill", arguments: '{"name":"x"}' },
        { id: "b", name: "search_skills", arguments: '{"query":"q"}' },
      ],
      finishReason: "tool_calls",
      usage: { promptTokens: 5, completionTokens: 3 },
    });
  });

  it("does not double a name that a server repeats in every delta, and invents stable ids when missing", () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ tool_calls: [{ index: 0, function: { name: "load_skill", arguments: '{"name":' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 0, function: { name: "load_skill", arguments: '"x"}' } }] }));
    acc.add(chunk({}, "tool_calls"));
    assert.deepEqual(acc.finish().toolCalls, [{ id: "call_0", name: "load_skill", arguments: '{"name":"x"}' }]);
  });

  it("a stream without finish_reason is truncated; a chunk of the wrong shape is malformed", () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ content: "half an ans" }));
    assert.throws(() => acc.finish(), TruncatedStreamError);
    assert.throws(() => new StreamAccumulator().add({ choices: "nope" }), MalformedResponseError);
  });

  it("a text answer keeps empty content as empty string and usage zero when absent", () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ content: "" }, "stop"));
    assert.deepEqual(acc.finish(), { content: "", toolCalls: [], finishReason: "stop", usage: { promptTokens: 0, completionTokens: 0 } });
  });
});

describe("fromWireCompletion", () => {
  it("reads content, tool calls and usage; tolerates missing usage and ids", () => {
    const r = fromWireCompletion({
      choices: [{ message: { content: null, tool_calls: [{ type: "function", function: { name: "load_skill", arguments: "{}" } }] }, finish_reason: "tool_calls" }],
    });
    assert.deepEqual(r, { content: null, toolCalls: [{ id: "call_0", name: "load_skill", arguments: "{}" }], finishReason: "tool_calls", usage: { promptTokens: 0, completionTokens: 0 } });
  });

  it("refuses bodies that are not completions", () => {
    for (const bad of [null, "text", {}, { choices: [] }, { choices: [{}] }, { choices: [{ message: { content: 3 } }] }]) {
      assert.throws(() => fromWireCompletion(bad), MalformedResponseError, JSON.stringify(bad));
    }
  });

  it("accepts exactly what the schema accepts, and reads it the same (the check without zod)", () => {
    const base = {
      id: "x",
      choices: [
        { index: 0, message: { role: "assistant", content: "hi", tool_calls: [{ id: "c1", type: "function", function: { name: "load_skill", arguments: "{}" } }] }, finish_reason: "stop" },
        { index: 1, message: { content: null }, finish_reason: null },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    };
    const odd: unknown[] = [undefined, null, "s", "", 0, 1.5, NaN, Infinity, -Infinity, true, [], [1], {}, { a: 1 }];
    // Every field the schema looks at, replaced by every odd value (and removed).
    const paths = [
      ["choices"],
      ["usage"],
      ["usage", "prompt_tokens"],
      ["usage", "completion_tokens"],
      ["choices", 0],
      ["choices", 1],
      ["choices", 0, "message"],
      ["choices", 0, "finish_reason"],
      ["choices", 1, "finish_reason"],
      ["choices", 0, "message", "content"],
      ["choices", 1, "message", "content"],
      ["choices", 0, "message", "tool_calls"],
      ["choices", 0, "message", "tool_calls", 0],
      ["choices", 0, "message", "tool_calls", 0, "id"],
      ["choices", 0, "message", "tool_calls", 0, "type"],
      ["choices", 0, "message", "tool_calls", 0, "function"],
      ["choices", 0, "message", "tool_calls", 0, "function", "name"],
      ["choices", 0, "message", "tool_calls", 0, "function", "arguments"],
    ];
    const variants: unknown[] = [base, [base], { choices: [] }];
    for (const p of paths) {
      for (const value of [...odd, "delete"]) {
        const copy = structuredClone(base) as Record<string | number, unknown>;
        let at: Record<string | number, unknown> = copy;
        for (const key of p.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
        if (value === "delete") delete at[p.at(-1)!];
        else at[p.at(-1)!] = value;
        variants.push(copy);
      }
    }
    let accepted = 0;
    for (const v of variants) {
      const parsed = WireCompletionSchema.safeParse(v);
      if (!parsed.success) {
        assert.throws(() => fromWireCompletion(v), MalformedResponseError, JSON.stringify(v));
        continue;
      }
      accepted++;
      // The schema's output has only the fields it knows: reading the raw body must give the same answer.
      assert.deepEqual(fromWireCompletion(v), fromWireCompletion(parsed.data), JSON.stringify(v));
    }
    assert.ok(accepted > 20 && accepted < variants.length - 20, `${accepted} of ${variants.length} accepted`);
  });
});
