/**
 * In-host module of event-loop.test.ts: the extension host's event-loop delay (perf_hooks.monitorEventLoopDelay, and
 * the part of it the host's own work caused: ownDelayMonitor) while the extension evaluates: the fixture's python task set (the sandbox
 * starts, computes expected outputs and checks every answer) and then its math task set. The monitor starts after
 * the extension is activated and the key is set, so code-server's startup is not in the numbers.
 */
import * as vscode from "vscode";
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
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

/**
 * The loop's delays this process's own work caused. On a loaded machine the loop is also late when the OS runs other
 * processes (monitorEventLoopDelay counts that too: 50-170 ms maxima at load 13 on 2 cores with the host's CPU
 * at 5-8 %). Each 10 ms tick here takes the loop's lateness and the CPU time the whole process (every thread) used
 * since the previous tick; the delay the host caused is the smaller of the two: a loop held by the host's own work
 * used at least that much CPU, a loop held by the OS did not.
 */
function ownDelayMonitor(resolutionMs = 10): () => { maxMs: number; lateMs: number; cpuMs: number; ticks: number } {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = { maxMs: 0, lateMs: 0, cpuMs: 0 };
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const lateMs = now - last - resolutionMs;
    const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    const own = Math.min(lateMs, cpuMs);
    if (own > worst.maxMs) worst = { maxMs: Math.round(own * 100) / 100, lateMs: Math.round(lateMs * 100) / 100, cpuMs: Math.round(cpuMs * 100) / 100 };
    last = now;
    lastCpu = cpu;
    ticks++;
  }, resolutionMs);
  return () => {
    clearInterval(timer);
    return { ...worst, ticks };
  };
}

/** One evaluation (as evaluate-on-save runs it: no report panel) with the monitors running around it alone. */
async function measured(name: string, taskSet: string): Promise<Record<string, unknown>> {
  const profiler = config.profileDir ? await startProfile() : undefined;
  const before = await serverCalls(config.controlUrl);
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const own = ownDelayMonitor();
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
