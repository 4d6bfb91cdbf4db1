import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where Skill Following keeps its files, the same for the CLI and the extension, so a run, report or download made
 * by one is found by the other:
 *   <workspace>/.skill-following/runs/<label>--<task set>--<model>--<time>.jsonl   run files
 *   <workspace>/.skill-following/reports/<run file name>.<ext>                      exported reports
 *   <workspace>/.skill-following/cache/{responses,expected,verdicts}/                caches (re-runs are free)
 *   <user cache>/skill-following/task-sets/<name>/<file>                            downloaded public task sets
 *   <user cache>/skill-following/models/<file>.gguf                                 downloaded local models (and their .sha256 notes)
 * The data folder carries a `.gitignore` of `*`, so runs and caches never show up in Source Control.
 */
export const DATA_DIR_NAME = ".skill-following";

export interface WorkspaceLayout {
  /** `<workspace>/.skill-following` */
  root: string;
  runsDir: string;
  reportsDir: string;
  /** Parent of the three caches; the CLI can point it elsewhere. */
  cacheDir: string;
  /** Model responses, keyed by the whole request. */
  responsesDir: string;
  /** Expected outputs computed from canonical solutions. */
  expectedDir: string;
  /** Verdicts, keyed by task, answer, limits, harness and runtime. */
  verdictsDir: string;
}

/** The layout under a data folder (`<workspace>/.skill-following`), with the caches under `cacheDir` if given. */
export function workspaceLayout(root: string, cacheDir = path.join(root, "cache")): WorkspaceLayout {
  return {
    root,
    runsDir: path.join(root, "runs"),
    reportsDir: path.join(root, "reports"),
    cacheDir,
    responsesDir: path.join(cacheDir, "responses"),
    expectedDir: path.join(cacheDir, "expected"),
    verdictsDir: path.join(cacheDir, "verdicts"),
  };
}

/** The data folder of a workspace folder. */
export function dataDirOf(workspaceFolder: string): string {
  return path.join(workspaceFolder, DATA_DIR_NAME);
}

/** What a run file's name says, so a listing reads without opening the files. */
export interface RunFileNameParts {
  /** What was evaluated: the skill's name, or the library's folder. */
  label: string;
  taskSet: string;
  model: string;
}

const clean = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "x";

/** `<label>--<task set>--<model>--<yyyy-mm-dd-hhmmssmmm>.jsonl` (UTC), each part cut to 40 safe characters. */
export function runFileName(parts: RunFileNameParts, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "").replace("Z", "").replace("T", "-");
  return `${clean(parts.label)}--${clean(parts.taskSet)}--${clean(parts.model)}--${stamp}.jsonl`;
}

/** What a run file's name says (the inverse of runFileName), with its UTC time; undefined for other names. */
export function parseRunFileName(file: string): (RunFileNameParts & { time: Date }) | undefined {
  const m = /^(.+)--(.+)--(.+)--(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})(\d{2})(\d{3})(?:-\d+)?\.jsonl$/.exec(path.basename(file));
  if (!m) return undefined;
  const [, label, taskSet, model, y, mo, d, h, mi, sec, ms] = m;
  return { label: label!, taskSet: taskSet!, model: model!, time: new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +sec!, +ms!)) };
}

/** A run file path in `runsDir` that does not exist yet (two evaluations may start within the same millisecond). */
export function freshRunFile(layout: Pick<WorkspaceLayout, "runsDir">, parts: RunFileNameParts, now = new Date()): string {
  const base = path.join(layout.runsDir, runFileName(parts, now));
  let file = base;
  for (let i = 2; existsSync(file); i++) file = base.replace(/\.jsonl$/, `-${i}.jsonl`);
  return file;
}

/**
 * The batch journal of a run file (batch mode): `<run>.batch-journal` beside it, not `.jsonl`, so that globs over
 * run files never pick it up.
 */
export function batchJournalFile(runFile: string): string {
  return `${runFile.replace(/\.jsonl$/i, "")}.batch-journal`;
}

/** Where an exported report of `runFile` goes by default. */
export function reportFile(layout: Pick<WorkspaceLayout, "reportsDir">, runFile: string, extension: string): string {
  return path.join(layout.reportsDir, `${path.basename(runFile, ".jsonl")}.${extension}`);
}

/**
 * The one task-set cache of the user, shared by every workspace and both hosts: $SKILL_FOLLOWING_TASKS_CACHE, else
 * the platform's user cache folder ($XDG_CACHE_HOME or ~/.cache; %LOCALAPPDATA% on Windows) + skill-following/task-sets.
 */
export function taskSetCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SKILL_FOLLOWING_TASKS_CACHE) return path.resolve(env.SKILL_FOLLOWING_TASKS_CACHE);
  const base =
    platform === "win32" && env.LOCALAPPDATA ? env.LOCALAPPDATA : env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), ".cache");
  return path.join(base, "skill-following", "task-sets");
}

/**
 * Where local GGUF models are downloaded, shared by every workspace and both hosts: $SKILL_FOLLOWING_MODELS_DIR, else
 * the platform's user cache folder (as for task sets) + skill-following/models. A model is hundreds of MB: never per workspace.
 */
export function modelsCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SKILL_FOLLOWING_MODELS_DIR) return path.resolve(env.SKILL_FOLLOWING_MODELS_DIR);
  return path.join(path.dirname(taskSetCacheDir({ ...env, SKILL_FOLLOWING_TASKS_CACHE: "" }, platform)), "models");
}

/** What `.skill-following/.gitignore` holds: everything in the folder (the file itself too) stays out of git. */
export const DATA_DIR_GITIGNORE = "# Skill Following's run files, reports and caches: local results, never committed.\n*\n";

/**
 * Creates the data folder if needed and, the first time, its `.gitignore` (`*`): after a few runs it holds hundreds
 * of cache files that would otherwise flood Source Control. A `.gitignore` the user edited is left alone.
 */
export function ensureDataDir(layout: Pick<WorkspaceLayout, "root">): void {
  mkdirSync(layout.root, { recursive: true });
  const ignore = path.join(layout.root, ".gitignore");
  if (existsSync(ignore)) return;
  try {
    writeFileSync(ignore, DATA_DIR_GITIGNORE, { flag: "wx" });
  } catch (err) {
    // Another evaluation (the other host, a second window) wrote it first.
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

/** A run file in the runs folder, with what its name says. */
export interface RunEntry extends RunFileNameParts {
  file: string;
  time: Date;
}

/** The run files of a runs folder, newest first (ablation files are not runs); a name of one's own keeps its mtime. */
export function listRuns(runsDir: string): RunEntry[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .filter((f) => f.endsWith(".jsonl") && !f.includes(".ablation-"))
    .map((f) => {
      const file = path.join(runsDir, f);
      const parts = parseRunFileName(f);
      return parts ? { file, ...parts } : { file, label: path.basename(f, ".jsonl"), model: "?", taskSet: "?", time: statSync(file).mtime };
    })
    .sort((a, b) => b.time.getTime() - a.time.getTime());
}

/** Every run but the newest of each skill (label), task set and model: what "Delete Old Runs…" removes. */
export function oldRuns(runs: readonly RunEntry[]): RunEntry[] {
  const seen = new Set<string>();
  const out: RunEntry[] = [];
  for (const r of [...runs].sort((a, b) => b.time.getTime() - a.time.getTime())) {
    const key = `${r.label}\u0000${r.taskSet}\u0000${r.model}`;
    if (seen.has(key)) out.push(r);
    else seen.add(key);
  }
  return out;
}

/**
 * A SKILL.md text as it was evaluated, kept by content hash so an edit can be shown as the two versions side by
 * side (issue 28): `<data>/skill-versions/<sha256>.md`.
 */
export function skillVersionFile(layout: Pick<WorkspaceLayout, "root">, contentHash: string): string {
  if (!/^[0-9a-f]{64}$/.test(contentHash)) throw new Error(`not a content hash: ${contentHash}`);
  return path.join(layout.root, "skill-versions", `${contentHash}.md`);
}
