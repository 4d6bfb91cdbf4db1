// The plan-based scripts drive multi-turn conversations through the real client; a small agent loop here
// (not the engine's) plays the tool side, so these tests pin the script semantics other tests rely on.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import type { ChatMessage, ModelClient, ToolDefinition } from "../../../src/core/models/types.js";
import { ModelRequestError } from "../../../src/core/errors.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, bySubstring, PLAN_EXHAUSTED, pythonAnswer, taskPlanScript } from "../../support/scripts.js";

const tool = (name: string, param: string): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: "object", properties: { [param]: { type: "string" } }, required: [param] },
});

/** Minimal loop: answers tool calls with a tag naming the call, stops at the first text answer. */
async function converse(client: ModelClient, userText: string, tools: ToolDefinition[] | undefined): Promise<{ answer: string | null; calls: string[] }> {
  const messages: ChatMessage[] = [{ role: "user", content: userText }];
  const calls: string[] = [];
  for (let turn = 0; turn < 6; turn++) {
    const r = await client.complete({ model: "m", messages, ...(tools ? { tools } : {}) }, { sampleIndex: 0 });
    if (!r.toolCalls.length) return { answer: r.content, calls };
    messages.push({ role: "assistant", content: r.content, toolCalls: r.toolCalls });
    for (const tc of r.toolCalls) {
      calls.push(`${tc.name} ${tc.arguments}`);
      let ok = true;
      try {
        JSON.parse(tc.arguments);
      } catch {
        ok = false;
      }
      messages.push({ role: "tool", toolCallId: tc.id, content: ok ? `result of ${tc.name}` : "error: arguments are not valid JSON" });
    }
  }
  return { answer: null, calls };
}

const plans = bySubstring({
  "task-1": { disabled: "wrong", enabled: [{ loadSkill: "adder" }, { answer: pythonAnswer("def f(): return 1") }] },
  "task-2": { disabled: boxedAnswer("42"), enabled: [{ searchSkills: "how to add" }, { loadSkill: "nope" }, { answer: "late" }] },
  "task-3": { disabled: "d", enabled: [{ loadSkill: "x" }] },
});

describe("taskPlanScript", () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer({ script: taskPlanScript(plans) });
  });
  after(() => server.close());
  const client = (): ModelClient => createOpenAIClient({ baseURL: server.url, model: "m", env: {} });

  it("disabled condition (no tools): one turn with the disabled answer", async () => {
    server.reset();
    assert.deepEqual(await converse(client(), "Solve task-2 please", undefined), { answer: "The answer is \\boxed{42}.", calls: [] });
    assert.equal(server.calls, 1);
  });

  it("catalog mode: skill steps become load_skill {name}", async () => {
    server.reset();
    const r = await converse(client(), "Solve task-1", [tool("load_skill", "name")]);
    assert.deepEqual(r.calls, ['load_skill {"name":"adder"}']);
    assert.match(r.answer ?? "", /```python\ndef f\(\): return 1\n```/);
    const r2 = await converse(client(), "Solve task-2", [tool("load_skill", "name")]);
    assert.deepEqual(r2.calls, ['load_skill {"name":"how to add"}', 'load_skill {"name":"nope"}']);
    assert.equal(r2.answer, "late");
  });

  it("search mode: skill steps become search_skills {query}", async () => {
    const r = await converse(client(), "Solve task-2", [tool("search_skills", "query")]);
    assert.deepEqual(r.calls, ['search_skills {"query":"how to add"}', 'search_skills {"query":"nope"}']);
    assert.equal(r.answer, "late");
  });

  it("a plan without an answer step runs out", async () => {
    const r = await converse(client(), "Solve task-3", [tool("load_skill", "name")]);
    assert.equal(r.answer, PLAN_EXHAUSTED);
  });

  it("an unknown task is a 400 naming the prompt", async () => {
    await assert.rejects(converse(client(), "Solve task-9", undefined), (e: unknown) => e instanceof ModelRequestError && e.status === 400 && /task-9/.test(e.message));
  });

  it("turns spoiled by bad-tool-args are replanned: same answers and skill calls as a clean run", async () => {
    const faulty = await startScriptedServer({ script: taskPlanScript(plans), faults: { rate: 0.5, seed: 9, kinds: ["bad-tool-args"] } });
    try {
      const c = createOpenAIClient({ baseURL: faulty.url, model: "m", env: {} });
      for (const task of ["task-1", "task-2"]) {
        const clean = await converse(client(), task, [tool("load_skill", "name")]);
        const noisy = await converse(c, task, [tool("load_skill", "name")]);
        assert.equal(noisy.answer, clean.answer);
        assert.deepEqual(noisy.calls.filter((x) => /\}$/.test(x)), clean.calls, "the well-formed calls are the planned ones");
      }
      assert.ok((faulty.faultsInjected["bad-tool-args"] ?? 0) >= 1, JSON.stringify(faulty.faultsInjected));
    } finally {
      await faulty.close();
    }
  });
});
