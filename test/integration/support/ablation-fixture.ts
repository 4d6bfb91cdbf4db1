/**
 * The Find What Harms workspace both real-VS-Code tiers use: the shipped harmful example skill
 * (skills/tidy-list-outputs), the scenario's math tasks, and the scripted model that answers from the skill text it
 * received (test/support/ablation-scenario.ts: "The rule" harms O1–O7, "How to apply" rescues D1–D3).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { ABLATION_SKILL, ABLATION_SKILL_TEXT, ablationScript, scenarioTaskLines } from "../../support/ablation-scenario.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { API_KEY } from "./fixture.js";

export interface AblationFixture {
  dir: string;
  skillFile: string;
  taskSetFile: string;
  server: ScriptedServer;
  controlUrl: string;
  close(): Promise<void>;
}

export async function createAblationFixture(dir: string, options: { latencyMs?: number } = {}): Promise<AblationFixture> {
  const server = await startScriptedServer({ script: ablationScript(), requireKey: API_KEY, latencyMs: options.latencyMs ?? 0 });
  const control = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls: server.calls }));
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  const skillFile = path.join(dir, "skills", ABLATION_SKILL, "SKILL.md");
  mkdirSync(path.dirname(skillFile), { recursive: true });
  writeFileSync(skillFile, ABLATION_SKILL_TEXT);
  const taskSetFile = path.join(dir, "tasks", "list-tasks.jsonl");
  mkdirSync(path.dirname(taskSetFile), { recursive: true });
  writeFileSync(taskSetFile, scenarioTaskLines());
  mkdirSync(path.join(dir, ".vscode"), { recursive: true });
  writeFileSync(
    path.join(dir, ".vscode", "settings.json"),
    JSON.stringify({ "skillFollowing.baseUrl": server.url, "skillFollowing.model": "scripted-model", "skillFollowing.concurrency": 4 }, null, 2),
  );
  return {
    dir,
    skillFile,
    taskSetFile,
    server,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}/`,
    async close() {
      await new Promise<void>((r) => control.close(() => r()));
      await server.close();
    },
  };
}
