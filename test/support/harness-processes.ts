/**
 * What a killed harness evaluation leaves behind (test code only): harness processes still running, and the work
 * roots (`skill-following-<agent>-<pid>-XXXXXX`, src/core/agents/workroot.ts) in a CLI's temporary folder.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The harness work roots in `<ws>/tmp` (the TMPDIR test/unit/reliability/cli-process.ts gives the CLI). */
export function workRoots(ws: string): string[] {
  return readdirSync(path.join(ws, "tmp")).filter((n) => n.startsWith("skill-following-"));
}

/**
 * Processes (bwrap, the forwarder, the harness) of this evaluation: those whose command line names `binary` and a
 * folder under `root`, and every process descended from one of them (inside the sandbox the forwarder and the harness
 * name only sandbox paths, so they are known by their ancestry; a path such as /run/skill-following/ would also match
 * the sandboxes of other evaluations running on the machine).
 */
export function harnessProcesses(root: string, binary: string): number[] {
  const parent = new Map<number, number>();
  const own = new Set<number>();
  for (const name of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const pid = Number(name);
    try {
      // The parent pid is the 2nd field after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes(binary) && cmd.includes(root)) own.add(pid);
    } catch {
      // gone
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) if (own.has(p)) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => own.has(pid) || descends(pid));
}

/**
 * Polls `ok` (a state on disk or in /proc, which no event announces) every 50 ms until it holds; fails naming `what`
 * after `polls` checks. Counted in checks, never by the clock: on a loaded machine each check only comes later.
 */
export async function waitFor(ok: () => boolean, what: string, polls = 400): Promise<void> {
  for (let i = 0; !ok(); i++) {
    if (i >= polls) throw new Error(`still not ${what} after ${polls} checks`);
    await sleep(50);
  }
}
