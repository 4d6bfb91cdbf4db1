/**
 * In-host module of event-loop.test.ts: the CPU time of the host's longest stretch of its own work between two turns
 * of its event loop (ownCpuMonitor; perf_hooks.monitorEventLoopDelay printed beside it) around four things the
 * extension does, each measured alone:
 * - python: an evaluation of the fixture's python task set (the sandbox starts, computes expected outputs and checks
 *   every answer);
 * - math: an evaluation of its math task set;
 * - report: Open Report on the finished math run, from the command until the webview tells the host it rendered the
 *   report (the panel is made, the host builds the report from the run file and posts it, the page renders it);
 * - ablation: Find What Harms on the harmful example skill (the ablation fixture, evaluated first, unmeasured): the
 *   plan, the ablation in the engine process, the stored section results and the report it opens.
 * The monitor starts after the extension is activated and the key is set, so code-server's startup is not in the
 * numbers.
 */
import * as vscode from "vscode";
import { Session } from "node:inspector";
import { readFileSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { hostConfig, reportFacts, serverCalls, setSetting } from "./common.js";

interface HostConfig {
  resultsFile: string;
  skillFile: string;
  taskSetFile: string;
  pythonTaskSetFile: string;
  controlUrl: string;
  apiKey: string;
  /** The Find What Harms workspace (support/ablation-fixture.ts), with a scripted server of its own. */
  ablation: { skillFile: string; taskSetFile: string; baseUrl: string; controlUrl: string };
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

/**
 * Runs `action` with the monitors running around it alone; `controlUrl` is the scripted server whose calls it makes.
 * The action's facts come back beside the monitors' numbers.
 */
async function measured(name: string, controlUrl: string, action: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const profiler = config.profileDir ? await startProfile() : undefined;
  const before = await serverCalls(controlUrl);
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const own = ownCpuMonitor();
  const cpu = process.cpuUsage();
  const outcome = await action();
  h.disable();
  const ownDelay = own();
  const used = process.cpuUsage(cpu);
  if (profiler) writeFileSync(`${config.profileDir}/${name}.cpuprofile`, JSON.stringify(await profiler()));
  return {
    ...summary(h),
    own: ownDelay,
    hostCpuMs: Math.round((used.user + used.system) / 1000),
    calls: (await serverCalls(controlUrl)) - before,
    ...outcome,
  };
}

type EvaluateOutcome = { runFile: string; cancelled: boolean; view?: { headline: { n: number } } } | undefined;

/** One evaluation, as evaluate-on-save runs it: no report panel. */
async function evaluate(skillFile: string, taskSet: string): Promise<EvaluateOutcome> {
  return (await vscode.commands.executeCommand("skillFollowing.evaluateSkill", vscode.Uri.file(skillFile), { taskSet, model: "scripted-model", background: true })) as EvaluateOutcome;
}

/** An evaluation measured: whether it finished, its run file and how many tasks it paired. */
function measuredEvaluation(name: string, taskSet: string): Promise<Record<string, unknown>> {
  return measured(name, config.controlUrl, async () => {
    const outcome = await evaluate(config.skillFile, taskSet);
    return { cancelled: outcome?.cancelled ?? null, n: outcome?.view?.headline.n ?? null, runFile: outcome?.runFile ?? null };
  });
}

interface Rendered {
  skills: number;
  harmed: number;
  rescued: number;
  ms: number;
}
interface OpenedPanel {
  lastRendered?: Rendered;
  onDidRender(cb: (m: Rendered) => void): { dispose(): void };
}

/**
 * Open Report on a finished run, until its webview has rendered: the command makes the panel, reads the run file,
 * builds the report and posts it; the page renders it and answers "rendered", which is the last of the first render
 * the host can see. The wait subscribes before the command runs, so an answer that comes before it returns counts.
 */
async function openReportUntilRendered(runFile: string): Promise<Record<string, unknown>> {
  const api = vscode.extensions.getExtension<{ services: { reports: { onDidOpen: vscode.Event<OpenedPanel> } } }>("skill-following.skill-following")?.exports;
  if (!api) throw new Error("the extension's API is missing");
  let sub: { dispose(): void } | undefined;
  const rendered = new Promise<Rendered>((resolve) => {
    const opened = api.services.reports.onDidOpen((panel) => {
      opened.dispose();
      sub = panel.onDidRender(resolve);
    });
  });
  const panel = (await vscode.commands.executeCommand("skillFollowing.openReport", [runFile])) as OpenedPanel | undefined;
  if (!panel) throw new Error("Open Report returned no panel (see the log)");
  const first = await rendered;
  sub?.dispose();
  return { rendered: { skills: first.skills, harmed: first.harmed, rescued: first.rescued, pageMs: first.ms } };
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
  const ext = vscode.extensions.getExtension<{ services: { config: { get(): { baseUrl: string } } } }>("skill-following.skill-following");
  if (!ext) throw new Error("extension skill-following.skill-following not found");
  const api = await ext.activate();
  steps.push("set key");
  facts.setKey = await vscode.commands.executeCommand("skillFollowing.setApiKey", config.apiKey);
  // The host's first fetch makes VS Code's proxy agent read the system certificates (over 100 ms of the host's CPU):
  // the test's own reads of the server's count come after that, never inside a measured window.
  await serverCalls(config.controlUrl);
  await serverCalls(config.ablation.controlUrl);
  steps.push("python evaluation");
  facts.python = await measuredEvaluation("python", config.pythonTaskSetFile);
  steps.push("math evaluation");
  const math = await measuredEvaluation("math", config.taskSetFile);
  facts.math = math;

  steps.push("report");
  if (typeof math.runFile !== "string") throw new Error("the math evaluation left no run file");
  const runFile = math.runFile;
  facts.report = await measured("report", config.controlUrl, () => openReportUntilRendered(runFile));

  steps.push("evaluate the ablation fixture's skill (not measured)");
  // The ablation fixture's model is a server of its own: the workspace's endpoint setting now names it.
  await setSetting(api.services, "baseUrl", config.ablation.baseUrl);
  const evaluated = await evaluate(config.ablation.skillFile, config.ablation.taskSetFile);
  if (!evaluated || evaluated.cancelled) throw new Error("the evaluation of the ablation fixture's skill did not finish (see the log)");

  steps.push("find what harms");
  facts.ablation = await measured("ablation", config.ablation.controlUrl, async () => {
    const found = (await vscode.commands.executeCommand("skillFollowing.findWhatHarms", vscode.Uri.file(config.ablation.skillFile), { confirm: false })) as
      | { cancelled: boolean; result?: { sections: unknown[] } }
      | undefined;
    if (!found) throw new Error("findWhatHarms returned nothing (see the log)");
    return { cancelled: found.cancelled, sections: found.result?.sections.length ?? null };
  });
}

export async function run(): Promise<void> {
  await reportFacts(config.resultsFile, facts, body, steps, 330_000);
}
