/**
 * Orchestration overhead (DESIGN §5): 1,000 paired tasks against a scripted server with a fixed latency, at
 * concurrency 32, wall time as a ratio to the ideal calls × latency / concurrency (target ≤ 1.05). The server
 * runs in its own process; math tasks keep grading cheap; no response cache, so every call reaches the server.
 * Measured twice: the engine in-process (evaluate()), and the CLI end to end (process start included).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { mathScenario, writeScenarioSkills, writeScenarioTasks } from "../test/unit/reliability/math-scenario.js";
import type { ChatRequest } from "../src/core/models/types.js";
import { toWireBody } from "../src/core/models/wire.js";
import { BENCH_KEY, runEngine } from "./engine.js";
import { startRemoteServer } from "./remote-server.js";
import type { BenchRow } from "./types.js";

export interface OverheadOptions {
  tasks: number;
  latencyMs: number;
  concurrency: number;
  cli: boolean;
}

const repoRoot = path.resolve(__dirname, "..");

export async function benchOverhead(options: OverheadOptions = { tasks: 1000, latencyMs: 200, concurrency: 32, cli: true }): Promise<BenchRow[]> {
  const { tasks: n, latencyMs, concurrency } = options;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-bench-overhead-"));
  const config = { n, oneTurn: true, seed: 5, latencyMs };
  const scenario = mathScenario(config);
  const server = await startRemoteServer(config);
  const skillsDir = writeScenarioSkills(path.join(tmp, "skills"));
  const rows: BenchRow[] = [];
  const label = `${n} tasks, ${latencyMs} ms, c=${concurrency}`;
  const row = (metric: string, wallMs: number, calls: number, note: string) => {
    const ideal = (calls * latencyMs) / concurrency;
    // The last wave is partial: ceil(calls / concurrency) rounds of latency is the true floor for one-turn runs.
    const floor = Math.ceil(calls / concurrency) * latencyMs;
    rows.push({ group: "overhead", metric: `${metric}: wall / ideal`, value: round(wallMs / ideal, 3), reference: "≤ 1.05", note: `${label}; ${calls} calls; wall ${round(wallMs / 1000, 2)} s, ideal ${round(ideal / 1000, 2)} s, wave floor ${round(floor / ideal, 3)}×; ${note}` });
  };
  /**
   * Where the time went: each call's latency as the client measured it (request out to answer parsed) against
   * the server's fixed latency, and the wall time left once those latencies are accounted for (scheduling,
   * grading and bookkeeping between calls).
   */
  const attribution = (metric: string, wallMs: number, latencies: number[]) => {
    if (latencies.length === 0) return;
    const sorted = [...latencies].sort((a, b) => a - b);
    const sum = sorted.reduce((a, b) => a + b, 0);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
    rows.push({ group: "overhead", metric: `${metric}: call latency at the client`, value: round(sum / sorted.length, 1), unit: "ms mean", reference: latencyMs, note: `p50 ${q(0.5)}, p99 ${q(0.99)}, max ${q(1)} ms (server sleeps ${latencyMs} ms; the rest is HTTP, JSON and CPU contention)` });
    rows.push({ group: "overhead", metric: `${metric}: wall / (Σ call latency / c)`, value: round(wallMs / (sum / concurrency), 3), note: "engine time outside model calls: scheduling, grading, run-file writes" });
  };
  try {
    const sent: ChatRequest[] = [];
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const result = await runEngine({ baseUrl: server.url, skillsDir, taskSet: scenario.taskSet, runFile: path.join(tmp, "engine.jsonl"), concurrency, observe: (r) => sent.push(r) });
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const { calls } = await server.stats();
    const engineMs = (cpu.user + cpu.system) / 1000 / calls;
    rows.push({ group: "overhead", metric: "engine CPU per model call", value: round(engineMs, 2), unit: "ms", reference: "≤ 1", note: `user ${round(cpu.user / 1000 / calls, 2)} + system ${round(cpu.system / 1000 / calls, 2)} ms; client HTTP + JSON, agent loop, math grading, run-file write; at c=${concurrency} and ${latencyMs} ms the engine saturates one core at ${Math.round((latencyMs * 1000) / ((cpu.user + cpu.system) / calls))} concurrent calls; load ${os.loadavg()[0]!.toFixed(1)}` });
    // The floor on the same server, right after: a bare keep-alive client sends the very bodies the engine sent.
    await server.reset();
    const bare = await bareClient(server.url, sent, concurrency);
    rows.push({ group: "overhead", metric: "bare keep-alive client CPU per call", value: round(bare.cpuMs / bare.calls, 2), unit: "ms", note: `node:http, the engine's ${bare.calls} request bodies replayed at c=${concurrency}: JSON.stringify, HTTP, JSON.parse; engine / bare = ${round(engineMs / (bare.cpuMs / bare.calls), 2)}; load ${os.loadavg()[0]!.toFixed(1)}` });
    row("engine (evaluate)", wall, calls, `${result.records.length} records, ${result.failedRuns} failed`);
    attribution("engine (evaluate)", wall, result.records.map((r) => r.latencyMs));

    if (options.cli) {
      await server.reset();
      const tasksFile = writeScenarioTasks(scenario, path.join(tmp, "tasks.jsonl"));
      const t0 = performance.now();
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [path.join(repoRoot, "dist", "cli.js"), "run", "--skills", skillsDir, "--tasks", tasksFile, "--model", "scripted-model", "--concurrency", String(concurrency), "--no-cache", "--out", path.join(tmp, "cli.jsonl"), "--quiet"],
          { cwd: tmp, env: { PATH: process.env.PATH ?? "", HOME: tmp, OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.url }, stdio: ["ignore", "ignore", "pipe"] },
        );
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("error", reject);
        child.on("close", (c) => {
          if (c !== 0) process.stderr.write(`bench: CLI exited ${c}: ${stderr.slice(-2000)}\n`);
          resolve(c);
        });
      });
      const cliWall = performance.now() - t0;
      const cliCalls = (await server.stats()).calls;
      row("CLI (node dist/cli.js run)", cliWall, cliCalls, `exit ${code}; includes process start, skill scan, task load`);
      const lines = existsSync(path.join(tmp, "cli.jsonl")) ? readFileSync(path.join(tmp, "cli.jsonl"), "utf8").split("\n").filter(Boolean).slice(1) : [];
      attribution("CLI", cliWall, lines.map((l) => (JSON.parse(l) as { latencyMs?: number }).latencyMs ?? 0));
    }
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

/** The floor: the same request bodies over a keep-alive node:http agent, `concurrency` at a time; its process CPU. */
async function bareClient(baseUrl: string, requests: readonly ChatRequest[], concurrency: number): Promise<{ cpuMs: number; calls: number }> {
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL(`${baseUrl}/chat/completions`);
  const post = (request: ChatRequest) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ ...toWireBody(request), stream: false });
      const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${BENCH_KEY}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          JSON.parse(Buffer.concat(chunks).toString("utf8"));
          if (res.statusCode !== 200) reject(new Error(`bare client: HTTP ${res.statusCode}`));
          else resolve();
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  let next = 0;
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) await post(requests[next++]!);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { cpuMs: (cpu.user + cpu.system) / 1000, calls: requests.length };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
