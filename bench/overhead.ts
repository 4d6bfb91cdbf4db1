/**
 * Orchestration overhead (DESIGN §5): 1,000 paired tasks against a scripted server with a fixed latency, at
 * concurrency 32, wall time as a ratio to the ideal calls × latency / concurrency (target ≤ 1.05). The server
 * runs in its own process; math tasks keep grading cheap; no response cache, so every call reaches the server.
 * Measured twice: the engine in-process (evaluate()), and the CLI end to end (process start included).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mathScenario, writeScenarioSkills, writeScenarioTasks } from "../test/unit/reliability/math-scenario.js";
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
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const result = await runEngine({ baseUrl: server.url, skillsDir, taskSet: scenario.taskSet, runFile: path.join(tmp, "engine.jsonl"), concurrency });
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const { calls } = await server.stats();
    rows.push({ group: "overhead", metric: "engine CPU per model call", value: round((cpu.user + cpu.system) / 1000 / calls, 2), unit: "ms", note: `client HTTP + JSON, agent loop, math grading, run-file write; at c=${concurrency} and ${latencyMs} ms the engine saturates one core at ${Math.round((latencyMs * 1000) / ((cpu.user + cpu.system) / calls))} concurrent calls` });
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

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
