import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessMessage } from "./protocol.js";

/** What a job does with each message of its process: wait for more (with a new host deadline), or end. */
export type Step<T> = { next: number } | { settle: T };

/**
 * The host side of one job. Every deadline is the host's: `firstDeadlineMs` when the job is sent, then whatever
 * each accepted message asks for — but never past `totalMs` from the start, which nothing the process says can
 * extend.
 */
export interface Driver<T> {
  readonly firstDeadlineMs: number;
  readonly totalMs: number;
  /** Byte cap of the next line the process may send. */
  maxLineBytes(): number;
  onMessage(msg: ProcessMessage): Step<T>;
  /**
   * The job's clock for deadlines the driver computes itself (phase caps): the process's own time, wall time minus
   * what it waited for a CPU (Linux). Called once, before the first message; without it the driver uses wall time.
   */
  useClock?(now: () => number): void;
  /** The host deadline passed: the process is killed. */
  onTimeout(): T;
  /** The process grew past the RSS limit: it is killed. */
  onMemory(rssBytes: number): T;
  /** The process broke the protocol (oversized line, or too many malformed lines): it is killed. */
  onProtocol(why: string): T;
  /** The process ended before the job did. */
  onEnd(why: string): T;
}

/** Time for a job's deadlines; injectable so tests drive time by events, not by the wall clock. */
export interface JobClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * How long (ms, cumulative) a job's process has waited for a CPU while runnable: time the machine took from it, not
 * time it spent. `fresh` asks for a new reading (on expiry); otherwise the last polled one will do (on arm).
 */
export type CpuWaitProbe = (fresh: boolean) => number;

/** Below this much CPU wait since the deadline was armed, an expiry is final. */
const MIN_EXTENSION_MS = 5;
/** However busy the machine, a job ends within this many times its total, in wall time. */
export const MAX_STRETCH = 4;

export const systemClock: JobClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * One job on one process, settled exactly once: settle() clears the timer, removes the abort listener and resolves
 * or rejects; every later call is a no-op. Nothing of the job stays reachable from the signal afterwards.
 */
export class RunningJob<T> {
  private settled = false;
  private timer: unknown;
  private waitMark = 0;
  private readonly waitAtStart: number;
  /** Deadline time given back because the process waited for a CPU (for the log and tests). */
  extendedMs = 0;
  private readonly started: number;
  private readonly onAbort: () => void;

  constructor(
    readonly driver: Driver<T>,
    private readonly resolve: (v: T) => void,
    private readonly reject: (e: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly onExpire: (job: RunningJob<T>) => void,
    abort: (job: RunningJob<T>) => void,
    private readonly clock: JobClock = systemClock,
    private readonly cpuWait?: CpuWaitProbe,
  ) {
    this.started = clock.now();
    this.waitAtStart = cpuWait?.(false) ?? 0;
    if (cpuWait) driver.useClock?.(() => this.processNow());
    this.onAbort = () => abort(this);
    signal?.addEventListener("abort", this.onAbort, { once: true });
    this.arm(driver.firstDeadlineMs);
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** Re-arms the host deadline to `ms` from now, clamped to the job's fixed total: nothing can move it later. */
  arm(ms: number): void {
    if (this.settled) return;
    this.clock.clearTimeout(this.timer);
    this.waitMark = this.cpuWait?.(false) ?? 0;
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, Math.min(ms, this.left())));
  }

  /** Wall time minus what the process waited for a CPU since the job started: the time it had. */
  private processNow(): number {
    return this.clock.now() - ((this.cpuWait?.(false) ?? 0) - this.waitAtStart);
  }

  /** What is left of the job's total in the process's own time, and never past MAX_STRETCH × the total in wall time. */
  private left(): number {
    const wall = MAX_STRETCH * this.driver.totalMs - (this.clock.now() - this.started);
    return Math.min(this.driver.totalMs - (this.processNow() - this.started), wall);
  }

  /**
   * A deadline passed. Time the process spent waiting for a CPU that the machine gave to others (a busy 2-core box)
   * is given back, as many times as it happens, within the job's fixed total counted the same way, and never past
   * MAX_STRETCH × that total in wall time. A process that sleeps or blocks is not waiting for a CPU, so a sleeping
   * answer still times out at its limit; only time it was runnable and not running is added.
   */
  private fire(): void {
    if (this.settled) return;
    const waited = this.cpuWait ? this.cpuWait(true) - this.waitMark : 0;
    const left = this.left();
    if (waited >= MIN_EXTENSION_MS && left > 0) {
      this.waitMark += waited;
      this.extendedMs += waited;
      this.timer = this.clock.setTimeout(() => this.fire(), Math.min(waited, left));
      return;
    }
    this.onExpire(this);
  }

  settle(outcome: { value: T } | { error: unknown }): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener("abort", this.onAbort);
    if ("value" in outcome) this.resolve(outcome.value);
    else this.reject(outcome.error);
    return true;
  }
}

/**
 * Linux /proc, over a process and its descendants: the sum of VmRSS, and the most any one of them has waited on a run
 * queue (schedstat's second field: runnable but not running). The interpreter runs on the main thread of the one node
 * process in the tree (bwrap and unshare wait), so the maximum is that thread's wait. Zeros where unreadable.
 */
export function treeStats(pid: number): { rss: number; cpuWaitMs: number } {
  let rss = 0;
  let cpuWaitMs = 0;
  const stack = [pid];
  let guard = 0;
  while (stack.length > 0 && guard++ < 64) {
    const p = stack.pop()!;
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      if (m) rss += Number(m[1]) * 1024;
      const wait = Number(readFileSync(`/proc/${p}/schedstat`, "utf8").split(" ")[1]) / 1e6;
      if (Number.isFinite(wait) && wait > cpuWaitMs) cpuWaitMs = wait;
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/)) if (c) stack.push(Number(c));
    } catch {
      // gone, or not Linux
    }
  }
  return { rss, cpuWaitMs };
}

/** CPU time (user + system, all threads, ms) of a process and its descendants (Linux /proc); 0 where unreadable. */
export function treeCpuMs(pid: number): number {
  let ms = 0;
  for (const p of [pid, ...descendants(pid)]) ms += ownCpuMs(p);
  return ms;
}

/**
 * CPU time (ms) of one process, without its children (Linux /proc); 0 where unreadable. /proc/<pid>/stat counts every
 * thread, the exited ones too, but in whole clock ticks (10 ms), so a process that ran 4 ms reads 0; the scheduler's
 * nanosecond count (/proc/<pid>/task/<tid>/schedstat, first field) is exact but covers live threads only. The larger
 * of the two.
 */
export function ownCpuMs(pid: number): number {
  let ticks: number;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    ticks = Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    // gone while being read, or no schedstat: the ticks stand
  }
  // USER_HZ is 100 on every Linux architecture node runs on.
  return Math.max(Number.isFinite(ticks) ? ticks * 10 : 0, Number.isFinite(ns) ? ns / 1e6 : 0);
}

/** Sum of VmRSS over a process and its descendants (Linux /proc); 0 where unreadable. */
export function treeRss(pid: number): number {
  return treeStats(pid).rss;
}

/** A process's descendants (Linux /proc), deepest last; empty elsewhere or when it is gone. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0 && out.length < 64) {
    const p = stack.pop()!;
    try {
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/)) {
        if (!c) continue;
        out.push(Number(c));
        stack.push(Number(c));
      }
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}

/**
 * SIGKILL for a sandbox process and everything below it. Killing only the wrapper is not enough: bwrap killed while
 * it sets up leaves its namespace's init blocked for ever (seen under load: orphans waiting on an eventfd, holding the
 * host's pipes). So: the process group (what was forked before its setsid), the wrapper, and every descendant found
 * in /proc (what is past its setsid) — all from the host, which is in the ancestor PID namespace.
 */
export function killTree(child: ChildProcess, exited: boolean): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const below = descendants(pid);
  if (process.platform === "linux") {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // no such group any more
    }
  }
  if (!exited) child.kill("SIGKILL");
  for (const p of below) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
