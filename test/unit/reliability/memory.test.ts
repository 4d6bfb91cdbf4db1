/**
 * Reliability, scale of one machine: a run whose transcripts are far larger than the heap completes under a heap
 * cap, so nothing holds every transcript. 800 paired tasks whose every answer carries 64 kB of text are ~100 MB of
 * transcripts; the built CLI runs them with a 48 MB old-space cap. An engine, report or reader that kept the records
 * (or the answers) would run out of heap and crash. The full 20,000-task measurement of peak RSS is
 * `npm run bench -- --only memory` (bench/memory.ts).
 */
import assert from "node:assert/strict";
import { rmSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer, type ScriptFn } from "../../support/scripted-server.js";
import { cliPath, tempDir } from "./cli-process.js";
import { spawnCollect } from "../cli/harness.js";
import { expectedTables, mathScenario, writeScenarioSkills, writeScenarioTasks } from "./math-scenario.js";

export const HEAP_CAP_MB = 48;
const N = 800;
const PAD = 64 * 1024;

/** The scenario's answers, each followed by 64 kB of working (the grader reads only the boxed answer). */
export function padded(script: ScriptFn, bytes: number): ScriptFn {
  const filler = `\n\nWorking:\n${"carry the one, then add the tens. ".repeat(Math.ceil(bytes / 34)).slice(0, bytes)}`;
  return async (req, ctx) => {
    const reply = await script(req, ctx);
    return "content" in reply && typeof reply.content === "string" ? { ...reply, content: reply.content + filler } : reply;
  };
}

describe("reliability: bounded memory", () => {
  const scenario = mathScenario({ n: N, seed: 8, oneTurn: true });
  let ws: string;
  let server: ScriptedServer;

  before(async () => {
    ws = tempDir("sf-rel-memory-");
    writeScenarioSkills(path.join(ws, "skills"));
    writeScenarioTasks(scenario, path.join(ws, "tasks.jsonl"));
    server = await startScriptedServer({ script: padded(scenario.script, PAD) });
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it(`${N} paired tasks with ${PAD / 1024} kB answers complete under a ${HEAP_CAP_MB} MB heap cap, report included`, async () => {
    const r = await spawnCollect(
      process.execPath,
      [`--max-old-space-size=${HEAP_CAP_MB}`, cliPath, "run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--concurrency", "16", "--no-cache", "--out", "runs/big.jsonl", "--quiet"],
      { cwd: ws, env: { PATH: process.env.PATH ?? "", HOME: ws, OPENAI_API_KEY: "sk-test-memory-0000", OPENAI_BASE_URL: server.url } },
    );
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.equal(server.calls, 2 * N);
    const size = statSync(path.join(ws, "runs/big.jsonl")).size;
    assert.ok(size > 2 * N * PAD, `the run file holds every transcript (${size} bytes)`);
    const x = expectedTables(scenario).overall;
    // The report is the scripted truth: all tasks (OAE) n, both pass, rescued, harmed, both fail.
    assert.match(r.stdout, new RegExp(`all tasks \\(OAE\\)\\s+${x.n}\\s+${x.bothPass}\\s+${x.rescued}\\s+${x.harmed}\\s+${x.bothFail}\\s`), r.stdout.slice(0, 1500));
  });
});
