import os from "node:os";
import path from "node:path";

/** Where the CLI keeps run files and the response cache: `.skill-following/` in the current folder, or $SKILL_FOLLOWING_DIR. */
export function workspaceDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.SKILL_FOLLOWING_DIR || ".skill-following");
}

export function defaultCacheDir(): string {
  return path.join(workspaceDir(), "cache");
}

export function defaultRunFile(model: string, taskSet: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/Z$/, "");
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return path.join(workspaceDir(), "runs", `${stamp}-${safe(model)}-${safe(taskSet)}.jsonl`);
}

/** Public task sets downloaded by `tasks download` live in the user's cache, shared by all workspaces. */
export function taskSetCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILL_FOLLOWING_TASKS_CACHE) return path.resolve(env.SKILL_FOLLOWING_TASKS_CACHE);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), ".cache");
  return path.join(base, "skill-following", "task-sets");
}
