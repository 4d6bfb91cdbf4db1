import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadTaskSet } from "../../../src/core/tasks/index.js";
import type { PythonFunctionTask } from "../../../src/core/tasks/schema.js";
import { bySubstring, pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";

export const repoRoot = path.resolve(__dirname, "../../..");
export const sharedData = path.resolve(repoRoot, "../shared/data");
export const cli = path.join(repoRoot, "dist", "cli.js");
export const FAKE_KEY = "sk-test-SECRET-0123456789abcdef";
export const MBPP = path.join(sharedData, "mbppplus", "MbppPlus-v0.2.0.jsonl.gz");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command and collects its output. */
export function spawnCollect(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (child.pid) opts.onSpawn?.(child.pid);
  });
}

/** Runs the built CLI in `cwd` with the scripted server as its endpoint. */
export function runCli(args: string[], opts: { cwd: string; baseUrl: string; onSpawn?: (pid: number) => void }): Promise<CliResult> {
  const env = { PATH: process.env.PATH ?? "", HOME: opts.cwd, OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: opts.baseUrl };
  return spawnCollect(process.execPath, [cli, ...args], { cwd: opts.cwd, env, ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}) });
}

export function tempWorkspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-cli-"));
  cpSync(path.join(repoRoot, "test/fixtures/engine/skills"), path.join(dir, "skills"), { recursive: true });
  return dir;
}

/** A wrong answer that defines the entry point but returns None (no MBPP+ task in the first 8 expects None). */
export function wrongAnswer(task: PythonFunctionTask): string {
  return pythonAnswer(`def ${task.entryPoint}(*args, **kwargs):\n    return None`);
}

export function rightAnswer(task: PythonFunctionTask): string {
  return pythonAnswer(task.canonicalSolution);
}

/**
 * The scripted evaluation over the first 8 MBPP+ tasks; outcomes known in advance:
 *  0 rescued (alpha) · 1 harmed (alpha) · 2 harmed (beta) · 3 rescued, no retrieval · 4 unknown skill name
 *  (not a retrieval), both pass · 5 both pass (alpha) · 6 both fail (beta) · 7 rescued (alpha + beta).
 */
export async function mbppScenario() {
  const set = await loadTaskSet(MBPP, { limit: 8 });
  const t = set.tasks.slice(0, 8) as PythonFunctionTask[];
  const R = rightAnswer;
  const W = wrongAnswer;
  const plans: TaskPlan[] = [
    { disabled: W(t[0]!), enabled: [{ loadSkill: "alpha-guide" }, { answer: R(t[0]!) }] },
    { disabled: R(t[1]!), enabled: [{ loadSkill: "alpha-guide" }, { answer: W(t[1]!) }] },
    { disabled: R(t[2]!), enabled: [{ loadSkill: "beta-guide" }, { answer: W(t[2]!) }] },
    { disabled: W(t[3]!), enabled: [{ answer: R(t[3]!) }] },
    { disabled: R(t[4]!), enabled: [{ loadSkill: "gamma-guide" }, { answer: R(t[4]!) }] },
    { disabled: R(t[5]!), enabled: [{ loadSkill: "alpha-guide" }, { answer: R(t[5]!) }] },
    { disabled: W(t[6]!), enabled: [{ loadSkill: "beta-guide" }, { answer: W(t[6]!) }] },
    { disabled: W(t[7]!), enabled: [{ loadSkill: "alpha-guide" }, { loadSkill: "beta-guide" }, { answer: R(t[7]!) }] },
  ];
  const table: Record<string, TaskPlan> = {};
  t.forEach((task, i) => (table[task.prompt.trim()] = plans[i]!));
  const ids = t.map((x) => x.id);
  return {
    ids,
    script: taskPlanScript(bySubstring(table)),
    expected: {
      overall: { n: 8, bothPass: 2, rescued: 3, harmed: 2, bothFail: 1 },
      retrieved: { n: 6, bothPass: 1, rescued: 2, harmed: 2, bothFail: 1 },
      notRetrieved: { n: 2, bothPass: 1, rescued: 1, harmed: 0, bothFail: 0 },
      alpha: { n: 4, bothPass: 1, rescued: 2, harmed: 1, bothFail: 0, rescuedTasks: [ids[0], ids[7]], harmedTasks: [ids[1]] },
      beta: { n: 3, bothPass: 0, rescued: 1, harmed: 1, bothFail: 1, rescuedTasks: [ids[7]], harmedTasks: [ids[2]] },
    },
  };
}

type Table = { n: number; bothPass: number; rescued: number; harmed: number; bothFail: number; effect: number | null };
export interface JsonEvaluation {
  model: unknown;
  taskSet: unknown;
  mode: string;
  samples: number;
  overall: Table;
  retrieved: Table;
  notRetrieved: Table;
  lift: number | null;
  skills: Array<{ name: string; contentHash: string; table: Table; pHolm: number | null; rescuedTasks: string[]; harmedTasks: string[] }>;
}

/** The parts of a JSON report that must be identical between equivalent runs. */
export function essence(json: string) {
  const report = JSON.parse(json) as { evaluations: JsonEvaluation[] };
  return report.evaluations.map((e) => ({
    mode: e.mode,
    samples: e.samples,
    overall: e.overall,
    retrieved: e.retrieved,
    notRetrieved: e.notRetrieved,
    lift: e.lift,
    skills: e.skills.map((s) => ({ name: s.name, table: s.table, pHolm: s.pHolm, rescuedTasks: [...s.rescuedTasks].sort(), harmedTasks: [...s.harmedTasks].sort() })),
  }));
}

/** Each run's verdict in a run file, by run key: a readable diff when two runs' reports disagree. */
export function verdictsOf(runFile: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(runFile, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { type?: string; key?: string; verdict?: { pass: boolean; reason: string } };
    if (r.type === "run" && r.key && r.verdict) out[r.key] = `${r.verdict.pass ? "pass" : "fail"}: ${r.verdict.reason}`;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
