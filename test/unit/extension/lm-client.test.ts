/** The vscode.lm ModelClient against a fake `vscode` module: message mapping, tool calls, errors, cancellation. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { ChatMessage } from "../../../src/core/models/types.js";
import { installFakeVscode, LanguageModelChatMessage, LanguageModelError, LanguageModelTextPart, LanguageModelToolCallPart, LanguageModelToolResultPart } from "./fake-vscode.js";

type LmModule = typeof import("../../../src/extension/models/lm-client.js");
let lmc: LmModule;

before(async () => {
  installFakeVscode();
  lmc = await import("../../../src/extension/models/lm-client.js");
});

const tools = { LanguageModelToolCallPart, LanguageModelToolResultPart, LanguageModelTextPart, LanguageModelChatMessage };

describe("toLmMessages", () => {
  it("folds the system prompt into the first user message and maps tool calls and results", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "SYS" },
      { role: "user", content: "task" },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "load_skill", arguments: '{"name":"s"}' }] },
      { role: "tool", toolCallId: "c1", content: "skill body" },
    ];
    const out = lmc.toLmMessages(messages, tools as never) as unknown as LanguageModelChatMessage[];
    assert.equal(out.length, 3);
    assert.deepEqual([out[0]!.role, out[0]!.content], ["user", "SYS\n\ntask"]);
    const call = (out[1]!.content as unknown[])[0] as LanguageModelToolCallPart;
    assert.ok(call instanceof LanguageModelToolCallPart);
    assert.deepEqual([call.callId, call.name, call.input], ["c1", "load_skill", { name: "s" }]);
    const result = (out[2]!.content as unknown[])[0] as LanguageModelToolResultPart;
    assert.ok(result instanceof LanguageModelToolResultPart);
    assert.equal(result.callId, "c1");
    assert.equal((result.content[0] as LanguageModelTextPart).value, "skill body");
  });

  it("keeps invalid tool-call JSON visible instead of throwing", () => {
    const out = lmc.toLmMessages([{ role: "user", content: "t" }, { role: "assistant", content: "x", toolCalls: [{ id: "c", name: "load_skill", arguments: "{oops" }] }], tools as never) as unknown as LanguageModelChatMessage[];
    const parts = out[1]!.content as unknown[];
    assert.equal((parts[0] as LanguageModelTextPart).value, "x");
    assert.deepEqual((parts[1] as LanguageModelToolCallPart).input, { raw: "{oops" });
  });
});

describe("mapLmError", () => {
  it("turns LanguageModelError codes into typed errors with an action", () => {
    const denied = lmc.mapLmError(LanguageModelError.NoPermissions("no"));
    assert.equal(denied.name, "ModelConfigError");
    assert.match(denied.message, /not granted/);
    const blocked = lmc.mapLmError(LanguageModelError.Blocked("quota")) as Error & { status?: number };
    assert.equal(blocked.status, 429);
    const missing = lmc.mapLmError(LanguageModelError.NotFound("x")) as Error & { status?: number };
    assert.equal(missing.status, 404);
    const plain = new Error("boom");
    assert.equal(lmc.mapLmError(plain), plain);
  });
});

describe("createLmClient", () => {
  function fakeModel(parts: unknown[], opts: { fail?: Error; seen?: unknown[] } = {}) {
    return {
      id: "gpt-x",
      vendor: "copilot",
      family: "gpt",
      name: "GPT X",
      maxInputTokens: 1000,
      countTokens: async (t: string) => t.length,
      sendRequest: async (messages: unknown, options: unknown) => {
        opts.seen?.push({ messages, options });
        if (opts.fail) throw opts.fail;
        return {
          stream: (async function* () {
            for (const p of parts) yield p;
          })(),
          text: (async function* () {})(),
        };
      },
    };
  }

  it("streams text and tool calls into a ChatResponse and offers the skill tools", async () => {
    const seen: unknown[] = [];
    const client = lmc.createLmClient(fakeModel([new LanguageModelTextPart("let me load "), new LanguageModelToolCallPart("id1", "load_skill", { name: "s" })], { seen }) as never, "why");
    assert.equal(client.id, "vscode-lm:copilot/gpt-x");
    const r = await client.complete(
      { model: "gpt-x", messages: [{ role: "user", content: "t" }], tools: [{ name: "load_skill", description: "d", parameters: { type: "object" } }] },
      { sampleIndex: 0 },
    );
    assert.equal(r.content, "let me load ");
    assert.deepEqual(r.toolCalls, [{ id: "id1", name: "load_skill", arguments: '{"name":"s"}' }]);
    assert.equal(r.finishReason, "tool_calls");
    const options = (seen[0] as { options: { tools: { name: string; inputSchema: unknown }[]; justification: string } }).options;
    assert.deepEqual(options.tools, [{ name: "load_skill", description: "d", inputSchema: { type: "object" } }]);
    assert.equal(options.justification, "why");
  });

  it("sends no tools in the disabled condition", async () => {
    const seen: unknown[] = [];
    const client = lmc.createLmClient(fakeModel([new LanguageModelTextPart("\\boxed{4}")], { seen }) as never, "why");
    const r = await client.complete({ model: "gpt-x", messages: [{ role: "user", content: "t" }] }, { sampleIndex: 0 });
    assert.equal(r.content, "\\boxed{4}");
    assert.equal((seen[0] as { options: { tools?: unknown } }).options.tools, undefined);
  });

  it("maps a model failure, and reports cancellation as CancelledError", async () => {
    const failing = lmc.createLmClient(fakeModel([], { fail: LanguageModelError.NotFound("gone") }) as never, "why");
    await assert.rejects(failing.complete({ model: "m", messages: [{ role: "user", content: "t" }] }, { sampleIndex: 0 }), (e: Error & { status?: number }) => e.status === 404);
    const controller = new AbortController();
    controller.abort();
    const aborted = lmc.createLmClient(fakeModel([], { fail: new Error("cancelled by token") }) as never, "why");
    await assert.rejects(aborted.complete({ model: "m", messages: [{ role: "user", content: "t" }] }, { sampleIndex: 0, signal: controller.signal }), (e: Error) => e.name === "CancelledError");
  });
});
