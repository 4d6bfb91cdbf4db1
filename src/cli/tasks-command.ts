import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { TASK_SET_CATALOG, downloadTaskSet, type TaskSetName } from "../core/tasks/download.js";
import { parse } from "./args.js";
import { taskSetCacheDir } from "../core/layout.js";

export const TASKS_USAGE = `usage: skill-following tasks download <${TASK_SET_CATALOG.map((e) => e.name).join("|")}> [--cache-dir <dir>] [--mirror <url>]
       skill-following tasks list
Downloads a public task set from its official location, checks its sha256 and caches it
(default cache: $XDG_CACHE_HOME/skill-following/task-sets, or SKILL_FOLLOWING_TASKS_CACHE). Prints the cached file's path.
--mirror (or SKILL_FOLLOWING_TASKS_MIRROR) downloads from <mirror>/<name>/<file> instead; checksums are verified either way.
Exit codes: 0 done; 2 bad input; 4 the download failed.`;

const options = {
  "cache-dir": { type: "string" },
  mirror: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

export async function tasksCommand(argv: string[], logger: Logger, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parse(argv, options, TASKS_USAGE, "tasks");
  const [sub, name, ...rest] = positionals;
  if (sub === "list" && !name) {
    for (const e of TASK_SET_CATALOG) process.stdout.write(`${e.name.padEnd(14)} ${e.title}\n`);
    return 0;
  }
  if (sub !== "download" || !name || rest.length) throw new InputError(TASKS_USAGE);
  if (!TASK_SET_CATALOG.some((e) => e.name === name)) throw new InputError(`unknown task set '${name}'\n\n${TASKS_USAGE}`);
  const mirror = values.mirror ?? process.env.SKILL_FOLLOWING_TASKS_MIRROR;
  const result = await downloadTaskSet(name as TaskSetName, {
    cacheDir: values["cache-dir"] ?? taskSetCacheDir(),
    logger,
    signal,
    ...(mirror ? { baseUrl: mirror } : {}),
  });
  logger.info(result.cached ? `using cached ${name} (sha256 ${result.sha256})` : `downloaded ${name} (sha256 ${result.sha256} verified)`);
  process.stdout.write(`${result.file}\n`);
  return 0;
}
