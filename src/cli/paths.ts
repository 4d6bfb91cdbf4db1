import path from "node:path";
import { DATA_DIR_NAME, workspaceLayout, type WorkspaceLayout } from "../core/layout.js";

/**
 * The CLI's workspace: `.skill-following/` in the current folder, or $SKILL_FOLLOWING_DIR; the caches under it
 * unless `--cache-dir` moves them. The layout itself (names of run files, reports, caches) is the core's, shared
 * with the extension.
 */
export function cliLayout(cacheDir?: string, env: NodeJS.ProcessEnv = process.env): WorkspaceLayout {
  const root = path.resolve(env.SKILL_FOLLOWING_DIR || DATA_DIR_NAME);
  return workspaceLayout(root, cacheDir ? path.resolve(cacheDir) : undefined);
}
