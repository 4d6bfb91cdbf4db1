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

/** Processes (bwrap, the forwarder, the harness) whose command line names `binary` and a folder under `root` or the sandbox's run folder. */
export function harnessProcesses(root: string, binary: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes(binary) && (cmd.includes(root) || cmd.includes("/run/skill-following/"))) out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
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
