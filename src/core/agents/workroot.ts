/**
 * The private folder of a harness evaluation (each run's workspace, HOME and proxy socket are made in it), and the
 * sweep of folders that evaluations killed with SIGKILL left behind.
 *
 * The folder is `<tmp>/skill-following-<agent>-<pid>-XXXXXX` and holds a file `owner` with the pid, the process's
 * start time (Linux: field 22 of /proc/<pid>/stat) and its PID namespace, so a later evaluation can tell that its owner is dead, even when the
 * pid has been reused since. A folder whose owner is alive (another evaluation running now) is never touched.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AgentIdSchema } from "../../shared/vocabulary/index.js";
import type { Logger } from "../logger.js";

const IDS = AgentIdSchema.options.filter((id) => id !== "builtin").join("|");
const FOLDER = new RegExp(`^skill-following-(?:${IDS})-(\\d+)-[A-Za-z0-9]{6}$`);
const OWNER_FILE = "owner";

/** A process's start time in clock ticks since boot (Linux), or undefined where /proc cannot tell. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This process's PID namespace (Linux: `pid:[inode]`), or "" where /proc cannot tell. */
function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

/**
 * Whether the evaluation that made a work root is gone: its pid is dead, or now names a process started later. A
 * root made in another PID namespace (another container sharing this temporary folder) is never judged: its pid
 * means nothing here.
 */
export function ownerIsDead(dir: string, pid: number): boolean {
  let owner: string[] | undefined;
  try {
    owner = readFileSync(path.join(dir, OWNER_FILE), "utf8").trim().split(" ");
  } catch {
    owner = undefined;
  }
  if (owner && (owner[2] ?? "") !== pidNamespace()) return false;
  if (!alive(pid)) return true;
  const recorded = owner?.[1];
  const now = startTime(pid);
  return recorded !== undefined && recorded !== "" && now !== undefined && now !== recorded;
}

/** Makes this evaluation's work root, with its owner file. */
export function createWorkRoot(agent: string, tmp: string = os.tmpdir()): string {
  const dir = mkdtempSync(path.join(tmp, `skill-following-${agent}-${process.pid}-`));
  writeFileSync(path.join(dir, OWNER_FILE), `${process.pid} ${startTime(process.pid) ?? ""} ${pidNamespace()}\n`);
  return dir;
}

/**
 * Removes the work roots of harness evaluations whose process is dead (killed before it could clean up); returns the
 * folders removed. One that cannot be removed is reported and left.
 */
export function sweepOrphanedWorkRoots(tmp: string = os.tmpdir(), logger?: Logger): string[] {
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = FOLDER.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const dir = path.join(tmp, name);
    if (pid === process.pid || !ownerIsDead(dir, pid)) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch (err) {
      logger?.warn(`cannot remove ${dir}, left by a harness evaluation that was killed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (removed.length) logger?.info(`removed ${removed.length} folder${removed.length === 1 ? "" : "s"} left by killed harness evaluations`);
  return removed;
}
