/**
 * Scale of one machine (issue 16): a 20,000-task × 2-condition run of the CLI against the scripted server (in its
 * own process), with the response cache on as in real use. The CLI's resident memory is sampled from
 * /proc/<pid>/status while it runs, beside the number of finished runs it reports on stderr:
 * - peak RSS (VmHWM), which must stay under 500 MiB;
 * - RSS at each tenth of the runs;
 * - growth: the least-squares slope of RSS over finished runs after the first fifth (start-up, JIT and the first
 *   wave are over by then) until the last run finishes (the final report then reads every summary back, which is
 *   in the peak but not the slope), in MiB per 1,000 runs, which must stay at or under 1 (nothing grows per run).
 * The row "bound holds" says yes or NO, and NO makes `npm run bench` exit 1. Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mathScenario, writeScenarioSkills, writeScenarioTasks } from "../test/unit/reliability/math-scenario.js";
import { BENCH_KEY } from "./engine.js";
import { startRemoteServer } from "./remote-server.js";
import type { BenchRow } from "./types.js";

export const PEAK_BOUND_MIB = 500;
export const GROWTH_BOUND_MIB_PER_1000 = 1;

export interface MemorySample {
  /** Runs the CLI reported finished when the sample was taken. */
  done: number;
  rssMiB: number;
}

export interface MemoryVerdict {
  peakMiB: number;
  /** MiB per 1,000 runs after the first fifth; null with fewer than two distinct run counts there. */
  growthPer1000: number | null;
  holds: boolean;
  why: string;
}

/** The pass/fail rule of the memory row: peak under the bound, and no growth with finished runs. */
export function memoryVerdict(samples: readonly MemorySample[], peakMiB: number, totalRuns: number): MemoryVerdict {
  // After the first fifth, and before the last run: the final report reads every summary back, by design.
  const late = samples.filter((s) => s.done >= totalRuns / 5 && s.done < totalRuns);
  const growthPer1000 = slope(late.map((s) => [s.done, s.rssMiB] as const));
  const reasons: string[] = [];
  if (!(peakMiB < PEAK_BOUND_MIB)) reasons.push(`peak ${peakMiB.toFixed(0)} MiB ≥ ${PEAK_BOUND_MIB} MiB`);
  if (growthPer1000 === null) reasons.push("too few samples after the first fifth to measure growth");
  else if (growthPer1000 * 1000 > GROWTH_BOUND_MIB_PER_1000) reasons.push(`growth ${(growthPer1000 * 1000).toFixed(2)} MiB per 1,000 runs > ${GROWTH_BOUND_MIB_PER_1000}`);
  const g = growthPer1000 === null ? null : growthPer1000 * 1000;
  return { peakMiB, growthPer1000: g, holds: reasons.length === 0, why: reasons.join("; ") || "within both bounds" };
}

/** Least-squares slope of y over x; null when x does not vary. */
function slope(points: ReadonlyArray<readonly [number, number]>): number | null {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const [x, y] of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
  }
  return sxx === 0 ? null : sxy / sxx;
}

function procStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN);
    return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

export async function benchMemory(options: { tasks: number; concurrency: number } = { tasks: 20_000, concurrency: 32 }): Promise<BenchRow[]> {
  if (!existsSync("/proc/self/status")) return [{ group: "memory", metric: "CLI peak RSS", value: "not run", note: "needs Linux /proc" }];
  const n = options.tasks;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-bench-memory-"));
  const config = { n, seed: 9, latencyMs: 0 };
  const scenario = mathScenario(config);
  const server = await startRemoteServer(config);
  const skillsDir = writeScenarioSkills(path.join(tmp, "skills"));
  const tasksFile = writeScenarioTasks(scenario, path.join(tmp, "tasks.jsonl"));
  const total = 2 * n;
  const load0 = os.loadavg();
  const samples: MemorySample[] = [];
  let peak = 0;
  let done = 0;
  try {
    const t0 = performance.now();
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(__dirname, "..", "dist", "cli.js"), "run", "--skills", skillsDir, "--tasks", tasksFile, "--model", "scripted-model", "--concurrency", String(options.concurrency), "--out", path.join(tmp, "run.jsonl"), "--cache-dir", path.join(tmp, "cache")],
        { cwd: tmp, env: { PATH: process.env.PATH ?? "", HOME: tmp, OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.url }, stdio: ["ignore", "ignore", "pipe"] },
      );
      let tail = "";
      child.stderr.on("data", (d: Buffer) => {
        tail = (tail + d.toString()).slice(-4000);
        for (const m of d.toString().matchAll(/(\d+)\/(\d+) runs/g)) done = Math.max(done, Number(m[1]));
      });
      const timer = setInterval(() => {
        const s = child.pid === undefined ? undefined : procStatus(child.pid);
        if (!s || Number.isNaN(s.rss)) return;
        peak = Math.max(peak, s.hwm);
        samples.push({ done, rssMiB: s.rss });
      }, 250);
      child.on("error", reject);
      child.on("close", (c) => {
        clearInterval(timer);
        if (c !== 0) process.stderr.write(`bench memory: CLI exited ${c}: ${tail}\n`);
        resolve(c);
      });
    });
    const wallS = (performance.now() - t0) / 1000;
    const load1 = os.loadavg();
    const { calls } = await server.stats();
    const verdict = memoryVerdict(samples, peak, total);
    if (!verdict.holds || code !== 0) process.exitCode = 1;
    const at = (fraction: number) => samples.find((s) => s.done >= fraction * total)?.rssMiB;
    const checkpoints = [0.1, 0.2, 0.4, 0.6, 0.8, 1].map((f) => `${Math.round(f * total).toLocaleString("en")}: ${at(f)?.toFixed(0) ?? "?"}`).join(", ");
    const loads = `load ${load0.map((x) => x.toFixed(1)).join(" ")} → ${load1.map((x) => x.toFixed(1)).join(" ")}`;
    const label = `${n.toLocaleString("en")} tasks × 2 conditions, c=${options.concurrency}, response cache on`;
    return [
      { group: "memory", metric: "CLI peak RSS (VmHWM)", value: Math.round(peak), unit: "MiB", reference: `< ${PEAK_BOUND_MIB}`, note: `${label}; exit ${code}; ${calls} model calls; ${wallS.toFixed(0)} s; ${loads}` },
      { group: "memory", metric: "CLI RSS at runs done", value: checkpoints, unit: "MiB", note: `${samples.length} samples every 250 ms` },
      { group: "memory", metric: "RSS growth after the first fifth", value: verdict.growthPer1000 === null ? "n/a" : Math.round(verdict.growthPer1000 * 100) / 100, unit: "MiB / 1,000 runs", reference: `≤ ${GROWTH_BOUND_MIB_PER_1000}` },
      { group: "memory", metric: "bound holds", value: verdict.holds && code === 0 ? "yes" : "NO", note: code === 0 ? verdict.why : `the CLI exited ${code}` },
    ];
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
