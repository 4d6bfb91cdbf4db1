/**
 * In-host module of event-loop.test.ts: the CPU time of the host's longest stretch of its own work between two turns
 * of its event loop (ownCpuMonitor; perf_hooks.monitorEventLoopDelay printed beside it) while the extension
 * evaluates: the fixture's python task set (the sandbox starts, computes expected outputs and checks every answer)
 * and then its math task set. The monitor starts after
 * the extension is activated and the key is set, so code-server's startup is not in the numbers.
 */
import * as vscode from "vscode";
import { Session } from "node:inspector";
import { readFileSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { hostConfig, reportFacts, serverCalls } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  pythonTaskSetFile: string;
  controlUrl: string;
  apiKey: string;
  /** Write a CPU profile of the extension host per evaluation here (<name>.cpuprofile), to see what held the loop. */
  profileDir?: string;
}

const config = hostConfig<HostConfig>();
const facts: Record<string, unknown> = {};
const steps: string[] = [];

const ms = (ns: number) => Math.round(ns / 1e4) / 100;
const summary = (h: IntervalHistogram) => ({ maxMs: ms(h.max), p99Ms: ms(h.percentile(99)), meanMs: ms(h.mean), samples: h.count });

/** Nanoseconds the main thread (the event loop's) has run on a CPU: field 1 of /proc/self/schedstat. */
function mainThreadCpuNs(): number {
  const fields = readFileSync("/proc/self/schedstat", "utf8").trim().split(/\s+/);
  const ran = Number(fields[0]);
  if (!Number.isFinite(ran)) throw new Error(`/proc/self/schedstat has no run time: ${fields.join(" ")}`);
  return ran;
}

/**
 * How long the host's own work held its event loop, from the kernel's accounting of the loop's thread, never from a
 * clock. A 10 ms timer turns the loop: between two turns the thread runs only the work queued in between, so the CPU
 * time it used from one turn to the next is how long one stretch of the host's own work kept the timer waiting. Time
 * the OS gives other processes is not in it (monitorEventLoopDelay counts that too: 50-170 ms maxima at load 13 on 2
 * cores with the host's CPU at 5-8 %), and neither is a synchronous wait that uses no CPU (a spawnSync): this sees
 * the host's computing, not its blocking calls.
 */
function ownCpuMonitor(turnMs = 10): () => { maxMs: number; turns: number } {
  let last = mainThreadCpuNs();
  let worstNs = 0;
  let turns = 0;
  const timer = setInterval(() => {
    const ran = mainThreadCpuNs();
    worstNs = Math.max(worstNs, ran - last);
    last = ran;
    turns++;
  }, turnMs);
  return () => {
    clearInterval(timer);
    return { maxMs: ms(worstNs), turns };
  };
}

/** One evaluation (as evaluate-on-save runs it: no report panel) with the monitors running around it alone. */
async function measured(name: string, taskSet: string): Promise<Record<string, unknown>> {
  const profiler = config.profileDir ? await startProfile() : undefined;
  const before = await serverCalls(config.controlUrl);
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const own = ownCpuMonitor();
  const cpu = process.cpuUsage();
  const outcome = (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", vscode.Uri.file(config.skillFile), { taskSet, model: "scripted-model", background: true })) as
    | { runFile: string; cancelled: boolean; view?: { headline: { n: number } } }
    | undefined;
  h.disable();
  const ownDelay = own();
  const used = process.cpuUsage(cpu);
  if (profiler) writeFileSync(`${config.profileDir}/${name}.cpuprofile`, JSON.stringify(await profiler()));
  return {
    ...summary(h),
    own: ownDelay,
    hostCpuMs: Math.round((used.user + used.system) / 1000),
    calls: (await serverCalls(config.controlUrl)) - before,
    cancelled: outcome?.cancelled ?? null,
    n: outcome?.view?.headline.n ?? null,
  };
}

/** Starts the V8 profiler of this process; the returned function stops it and gives the profile. */
async function startProfile(): Promise<() => Promise<unknown>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 1000 });
  await post("Profiler.start");
  return async () => {
    const { profile } = (await post("Profiler.stop")) as { profile: unknown };
    session.disconnect();
    return profile;
  };
}

async function body(): Promise<void> {
  steps.push("activate");
  const ext = vscode.extensions.getExtension("skill-following.skill-following");
  if (!ext) throw new Error("extension skill-following.skill-following not found");
  await ext.activate();
  steps.push("set key");
  facts.setKey = await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);
  // The host's first fetch makes VS Code's proxy agent read the system certificates (over 100 ms of the host's CPU):
  // the test's own reads of the server's count come after that, never inside a measured window.
  await serverCalls(config.controlUrl);
  steps.push("python evaluation");
  facts.python = await measured("python", config.pythonTaskSetFile);
  steps.push("math evaluation");
  facts.math = await measured("math", config.taskSetFile);
}

export async function run(): Promise<void> {
  await reportFacts(config.resultsFile, facts, body, steps, 240_000);
}
