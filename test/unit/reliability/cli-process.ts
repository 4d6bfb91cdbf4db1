/** Spawning the built CLI for the reliability suite: a controlled environment, output captured, killable. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const repoRoot = path.resolve(__dirname, "../../..");
export const cliPath = path.join(repoRoot, "dist", "cli.js");
const DEFAULT_TIMEOUT_MS = 180_000;

export interface CliRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export interface CliEnv {
  cwd: string;
  apiKey?: string;
  baseUrl?: string;
  /** HOME and TMPDIR of the child (default: <cwd>/home and <cwd>/tmp, created here). */
  home?: string;
  tmp?: string;
  /** SIGKILL the child after this long (default 3 min), so a hang fails the test instead of stalling the suite. */
  timeoutMs?: number;
  /** More variables for the child (product settings such as SKILL_FOLLOWING_BATCH_POLL_MS). */
  extraEnv?: Record<string, string>;
}

/** Starts `node dist/cli.js <args>` with only PATH, HOME, TMPDIR and the OpenAI variables set. */
export function startCli(args: string[], env: CliEnv): CliRun {
  const home = env.home ?? path.join(env.cwd, "home");
  const tmp = env.tmp ?? path.join(env.cwd, "tmp");
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: env.cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      TMPDIR: tmp,
      ...(env.apiKey !== undefined ? { OPENAI_API_KEY: env.apiKey } : {}),
      ...(env.baseUrl !== undefined ? { OPENAI_BASE_URL: env.baseUrl } : {}),
      ...env.extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), env.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

export function runCli(args: string[], env: CliEnv) {
  return startCli(args, env).done;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Every regular file under `dir`, recursively (symlinks not followed). */
export function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return [];
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
}

/** path → "size:mtime" for every file under dir: a snapshot to diff after a CLI run. */
export function snapshot(dir: string): Map<string, string> {
  return new Map(filesUnder(dir).map((f) => {
    const st = statSync(f);
    return [f, `${st.size}:${st.mtimeMs}`];
  }));
}

/** Files created or changed since `before`, outside the allowed folders. */
export function changedOutside(dir: string, before: Map<string, string>, allowed: string[]): string[] {
  const after = snapshot(dir);
  const inAllowed = (f: string) => allowed.some((a) => f === a || f.startsWith(a.endsWith(path.sep) ? a : a + path.sep));
  const changed: string[] = [];
  for (const [f, sig] of after) if (before.get(f) !== sig && !inAllowed(f)) changed.push(f);
  return changed;
}

/** A stack trace in CLI output: the product must never show one for bad input. */
export const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|\(node:)|^fatal: /m;

/** Run-file lines, parsed; a line that is not JSON is returned as {invalid: text}. */
export function runFileLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return { invalid: l };
      }
    });
}
