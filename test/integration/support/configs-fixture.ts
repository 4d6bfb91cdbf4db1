/**
 * Two models behind one scripted server for the issue-24 sequence (evaluate the harmful example with model A, run
 * the library with model B, compare A and B). Model A is the example's model (test/support/example-scenario.ts):
 * `round-money-whole-units` harms every task tagged for it and rescues one. Model B loads the skill on the same
 * tasks and answers every task right in both conditions, so with B the skill is retrieved and changes nothing.
 * The workspace's settings name model A, so A is the configured model.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { MathAnswerTask } from "../../../src/core/tasks/schema.js";
import { EXAMPLE_HARMED, EXAMPLE_RESCUED, EXAMPLE_SKILL, EXAMPLE_TASKS_FILE, exampleScript } from "../../support/example-scenario.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, bySubstring, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { API_KEY } from "./fixture.js";

export const MODEL_A = "model-a";
export const MODEL_B = "model-b";

function harmlessScript() {
  const table: Record<string, TaskPlan> = {};
  for (const line of readFileSync(EXAMPLE_TASKS_FILE, "utf8").split("\n").filter((l) => l.trim())) {
    const t = JSON.parse(line) as MathAnswerTask;
    const right = boxedAnswer(t.answer);
    const loads = EXAMPLE_HARMED.includes(t.id) || EXAMPLE_RESCUED.includes(t.id);
    table[t.prompt] = { disabled: right, enabled: loads ? [{ loadSkill: EXAMPLE_SKILL }, { answer: right }] : [{ answer: right }] };
  }
  return taskPlanScript(bySubstring(table));
}

export interface ConfigsFixture {
  dir: string;
  server: ScriptedServer;
  /** GET → {"calls": n}: the server's count, readable from inside VS Code. */
  controlUrl: string;
  close(): Promise<void>;
}

export async function createConfigsFixture(dir: string, settings: Record<string, unknown> = {}): Promise<ConfigsFixture> {
  const a = exampleScript();
  const b = harmlessScript();
  const server = await startScriptedServer({ script: (req, ctx) => (req.model === MODEL_B ? b(req, ctx) : a(req, ctx)), requireKey: API_KEY });
  const control = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls: server.calls }));
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  mkdirSync(path.join(dir, ".vscode"), { recursive: true });
  writeFileSync(path.join(dir, ".vscode", "settings.json"), JSON.stringify({ "skillFollowing.baseUrl": server.url, "skillFollowing.model": MODEL_A, "skillFollowing.concurrency": 2, ...settings }, null, 2));
  return {
    dir,
    server,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}/`,
    async close() {
      await new Promise<void>((r) => control.close(() => r()));
      await server.close();
    },
  };
}
