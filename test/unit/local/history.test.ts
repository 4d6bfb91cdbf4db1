import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toChatHistory, toFunctions } from "../../../src/core/models/local/history.js";
import { assertResumable, buildRunHeader, selectTasks } from "../../../src/core/runs/header.js";
import { parseRunSettings } from "../../../src/core/settings.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { mathTask, skill } from "../engine/helpers.js";

describe("the transcript as node-llama-cpp's chat history", () => {
  it("a first request: system, user, and an empty model response to generate", () => {
    assert.deepEqual(
      toChatHistory([
        { role: "system", content: "S" },
        { role: "user", content: "U" },
      ]),
      [{ type: "system", text: "S" }, { type: "user", text: "U" }, { type: "model", response: [] }],
    );
  });

  it("turns joined by tool results are one model response, each call carrying its result, continued last", () => {
    const history = toChatHistory([
      { role: "system", content: "S" },
      { role: "user", content: "U" },
      { role: "assistant", content: null, toolCalls: [{ id: "a", name: "load_skill", arguments: '{"name":"x"}' }, { id: "b", name: "load_skill", arguments: "not json" }] },
      { role: "tool", toolCallId: "a", content: "body of x" },
      { role: "tool", toolCallId: "b", content: "no such skill" },
      { role: "assistant", content: "thinking", toolCalls: [{ id: "c", name: "load_skill", arguments: '{"name":"y"}' }] },
      { role: "tool", toolCallId: "c", content: "body of y" },
    ]);
    assert.equal(history.length, 3, "no new model item: the response after the results is continued");
    assert.deepEqual(history[2], {
      type: "model",
      response: [
        { type: "functionCall", name: "load_skill", params: { name: "x" }, result: "body of x", startsNewChunk: true },
        { type: "functionCall", name: "load_skill", params: "not json", result: "no such skill" },
        "thinking",
        { type: "functionCall", name: "load_skill", params: { name: "y" }, result: "body of y", startsNewChunk: true },
      ],
    });
  });

  it("tools become functions without handlers, their JSON schema as the parameters", () => {
    const params = { type: "object", properties: { query: { type: "string" } }, required: ["query"] };
    assert.deepEqual(toFunctions([{ name: "search_skills", description: "Search.", parameters: params }]), { search_skills: { description: "Search.", params } });
  });
});

describe("the run header of a local model", () => {
  const taskSet: TaskSet = { name: "toy", format: "native", file: "/t.jsonl", hash: "h", tasks: [mathTask("t0", "1+1?", "2")], issues: [] };
  const settings = parseRunSettings({});
  const header = (sha256: string) =>
    buildRunHeader(
      settings,
      { skills: [skill("a", "A.", "Body.")], taskSet, clientId: `local:m.gguf@sha256:${sha256}`, model: "local:m.gguf", weights: { file: "/models/m.gguf", sha256, bytes: 42 } },
      selectTasks(taskSet, settings),
      { isolation: "none" } as never,
      { runId: "r", createdAt: "2025-01-01T00:00:00.000Z" },
    );

  it("records the file, its sha256 and size", () => {
    assert.deepEqual(header("a".repeat(64)).model.weights, { file: "/models/m.gguf", sha256: "a".repeat(64), bytes: 42 });
  });

  it("refuses to resume a run with other weights under the same name", () => {
    assert.doesNotThrow(() => assertResumable(header("a".repeat(64)), header("a".repeat(64)), "run.jsonl"));
    assert.throws(() => assertResumable(header("a".repeat(64)), header("b".repeat(64)), "run.jsonl"), /cannot resume: the model file changed \(another sha256\)/);
  });
});
