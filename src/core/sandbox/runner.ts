import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { Worker } from "node:worker_threads";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { CancelledError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { locateSandboxFiles, probeIsolation, probeNetworkIsolation, runtimeFingerprint, type Isolation, type SandboxFiles } from "./isolation.js";
import { WorkerMessageSchema, type HostMessage, type Job, type JobResult, type WorkerConfig, type WorkerMessage } from "./protocol.js";

export type { Isolation } from "./isolation.js";

/** util-linux's setpriv, where present (Linux), to tie each worker's life to its host's (see start()). */
const SETPRIV = process.platform === "linux" && existsSync("/usr/bin/setpriv") ? "/usr/bin/setpriv" : undefined;

export interface SandboxOptions {
  logger?: Logger;
  /** Concurrent sandbox processes (default 2). Each holds one warm interpreter and one spare (~150-250 MB). */
  poolSize?: number;
  /** Folder holding sandbox-worker.js and pyodide/ (default: beside the running bundle, else <repo>/dist). */
  distDir?: string;
  /** Cap on wasm memory per interpreter (default 512 MB). */
  memoryMb?: number;
  /** Output a job may print before it is stopped (default 8 MB). */
  outputCapBytes?: number;
  /** Time between a missed deadline and SIGKILL (default 150 ms): the interrupt gets this long to land. */
  graceMs?: number;
  /** Replace a process whose RSS passed this after a job (default 3.5 GB). */
  rssLimitBytes?: number;
  /** Test hook: behave as if the permission model were unavailable. */
  forceFallback?: boolean;
}

export interface RunOutcome {
  result: JobResult;
  /** Fresh-interpreter cost paid for this job, ms. */
  interpreterMs: number;
  /** Wall time from dispatch to result, ms. */
  wallMs: number;
  /** RSS of the worker process after the job (0 when the worker was killed). */
  rssBytes?: number;
}

interface Pending {
  job: Job;
  signal?: AbortSignal;
  resolve: (o: RunOutcome) => void;
  reject: (e: unknown) => void;
}

type Channel =
  | { kind: "process"; child: ChildProcessByStdio<Writable, Readable, Readable> }
  | { kind: "thread"; worker: Worker };

/** One sandbox process (or thread) and the job it is running. */
class Slot {
  ready: Promise<void>;
  busy: { id: number; nonce: string; pending: Pending; timer?: NodeJS.Timeout; lastIndex?: number; started: number } | undefined;
  dead = false;
  killedByUs = false;
  isReady = false;
  coldStartMs = 0;
  private stderrTail = "";
  private channel!: Channel;
  private onReady!: () => void;
  private onReadyFail!: (e: Error) => void;

  constructor(
    private readonly pool: SandboxPool,
    private readonly files: SandboxFiles,
    private readonly config: WorkerConfig,
  ) {
    this.ready = new Promise((res, rej) => {
      this.onReady = res;
      this.onReadyFail = rej;
    });
    this.ready.catch(() => {}); // surfaced through run()
    this.start();
  }

  private start(): void {
    if (this.pool.isolation === "process-permission") {
      const args = [...this.files.permissionArgs, this.files.workerFile, JSON.stringify(this.config)];
      // Under setpriv the kernel SIGKILLs the worker when its host dies, even a host killed with SIGKILL while the
      // worker's only thread is stuck in C code (where neither the interrupt buffer nor stdin 'end' can reach it).
      // Under unshare (probed), the worker has no network: not even loopback, which the permission model cannot deny.
      // unshare and setpriv each exec the next program, so the child's pid is the worker's.
      const node = [process.execPath, ...args];
      const full = [...this.files.networkPrefix, ...(SETPRIV ? [SETPRIV, "--pdeathsig", "KILL", "--", ...node] : node)];
      const [command, argv] = [full[0]!, full.slice(1)];
      const child = spawn(command, argv, {
        // Empty environment: nothing of the user's (keys, tokens, paths) reaches the sandbox.
        env: { ELECTRON_RUN_AS_NODE: "1" },
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      this.channel = { kind: "process", child };
      createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
      child.stderr.on("data", (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-4000);
      });
      child.stdin.on("error", () => {}); // EPIPE after a kill
      child.on("exit", (code, sig) => this.onExit(`exit code ${code ?? "-"}${sig ? `, signal ${sig}` : ""}`));
      child.on("error", (e) => this.onExit(`spawn failed: ${e.message}`));
    } else {
      const worker = new Worker(this.files.workerFile, { workerData: this.config, env: {}, stdout: true, stderr: true });
      this.channel = { kind: "thread", worker };
      worker.on("message", (m: unknown) => this.onLine(String(m)));
      worker.stderr.on("data", (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-4000);
      });
      worker.on("exit", (code) => this.onExit(`worker exit code ${code}`));
      worker.on("error", (e) => this.onExit(`worker error: ${e.message}`));
    }
  }

  send(msg: HostMessage): void {
    const line = JSON.stringify(msg);
    if (this.channel.kind === "process") this.channel.child.stdin.write(line + "\n");
    else this.channel.worker.postMessage(line);
  }

  kill(): void {
    this.killedByUs = true;
    if (this.channel.kind === "process") this.channel.child.kill("SIGKILL");
    else void this.channel.worker.terminate();
  }

  armTimer(ms: number): void {
    if (!this.busy) return;
    clearTimeout(this.busy.timer);
    this.busy.timer = setTimeout(() => this.pool.hardTimeout(this), ms + this.pool.graceMs);
  }

  private onLine(line: string): void {
    let msg: WorkerMessage;
    try {
      const parsed = WorkerMessageSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message);
      msg = parsed.data;
    } catch {
      this.pool.logger.debug(`sandbox: ignored a line that is not protocol: ${line.slice(0, 120)}`);
      return;
    }
    if (msg.type === "ready") {
      this.coldStartMs = msg.coldStartMs;
      this.isReady = true;
      this.onReady();
      return;
    }
    if (msg.type === "fatal") {
      this.pool.logger.warn(`sandbox worker fatal: ${msg.message}`);
      this.kill();
      return;
    }
    if (!this.busy || msg.id !== this.busy.id || msg.nonce !== this.busy.nonce) {
      this.pool.logger.warn("sandbox: a message with a wrong job id or nonce was ignored (forged output?)");
      return;
    }
    if (msg.type === "progress") {
      if (msg.index >= 0) this.busy.lastIndex = msg.index;
      this.armTimer(msg.limitMs);
      return;
    }
    this.pool.finishJob(this, { result: msg.result, interpreterMs: msg.interpreterMs, wallMs: performance.now() - this.busy.started, rssBytes: msg.heapBytes }, msg.dying === true || msg.heapBytes > this.pool.rssLimitBytes);
  }

  private onExit(why: string): void {
    if (this.dead) return;
    this.dead = true;
    this.onReadyFail(new Error(`sandbox worker failed to start (${why}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`));
    this.pool.slotDied(this, why, !this.isReady);
  }
}

/**
 * A pool of long-lived sandbox workers. Jobs queue FIFO; each worker runs one at a time. A worker that misses
 * a hard deadline, crashes or grows too large is replaced and the queue goes on. `finish()` is idempotent.
 */
export class SandboxPool {
  readonly logger: Logger;
  readonly graceMs: number;
  readonly rssLimitBytes: number;
  readonly isolation: Isolation;
  /** The shipped Python runtime's versions (Pyodide, CPython, ABI), for cache keys. */
  readonly runtime: string;
  /** "namespace": workers have no network at all (Linux network namespace); "host": they share the host's. */
  readonly network: "namespace" | "host";
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly size: number;
  private readonly config: WorkerConfig;
  private nextId = 1;
  private finished = false;
  private startFailures = 0;

  private constructor(
    private readonly files: SandboxFiles,
    isolation: Isolation,
    options: SandboxOptions,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.graceMs = options.graceMs ?? 150;
    this.rssLimitBytes = options.rssLimitBytes ?? 3.5 * 1024 ** 3;
    this.size = Math.max(1, options.poolSize ?? 2);
    this.isolation = isolation;
    this.runtime = runtimeFingerprint(files);
    this.network = isolation === "process-permission" && files.networkPrefix.length > 0 ? "namespace" : "host";
    this.config = { pyodideDir: files.pyodideDir, memoryMb: options.memoryMb ?? 512, outputCapBytes: options.outputCapBytes ?? 8 * 1024 * 1024 };
  }

  /** Locates the shipped files, probes the permission model once, and starts the workers. */
  static create(options: SandboxOptions = {}): SandboxPool {
    const files = locateSandboxFiles(options.distDir);
    const logger = options.logger ?? silentLogger;
    const isolation = options.forceFallback ? "worker-fallback" : probeIsolation(files);
    if (isolation === "process-permission") files.networkPrefix = probeNetworkIsolation() ?? [];
    if (isolation === "worker-fallback") {
      logger.warn(
        "SANDBOX FALLBACK: Node's permission model is unavailable here, so generated code runs in a worker thread " +
          "of this process. This is accident-proof, not attack-proof: hostile code could reach the host. The run header records isolation=worker-fallback.",
      );
    } else {
      logger.info(`sandbox: isolated child processes (${files.permissionArgs[0]}), read-only access to ${files.pyodideDir}`);
      if (files.networkPrefix.length === 0) {
        logger.warn("sandbox: no network namespace here (Linux with unshare only), so code that escapes through Pyodide's FFI could open TCP connections (Python sockets still fail).");
      }
    }
    const pool = new SandboxPool(files, isolation, options);
    for (let i = 0; i < pool.size; i++) pool.slots.push(new Slot(pool, files, pool.config));
    return pool;
  }

  /** Resolves when every worker has its interpreter loaded; returns the slowest cold start in ms. */
  async ready(): Promise<number> {
    await Promise.all(this.slots.map((s) => s.ready));
    return Math.max(...this.slots.map((s) => s.coldStartMs));
  }

  run(job: Job, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
    if (this.finished) return Promise.reject(new Error("sandbox pool is finished"));
    if (this.slots.length === 0) return Promise.reject(new Error("the Python sandbox cannot start (see the log)"));
    if (options.signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise<RunOutcome>((resolve, reject) => {
      const pending: Pending = { job, signal: options.signal, resolve, reject };
      options.signal?.addEventListener("abort", () => this.abort(pending), { once: true });
      this.queue.push(pending);
      this.pump();
    });
  }

  private abort(p: Pending): void {
    const qi = this.queue.indexOf(p);
    if (qi >= 0) {
      this.queue.splice(qi, 1);
      p.reject(new CancelledError());
      return;
    }
    const slot = this.slots.find((s) => s.busy?.pending === p);
    if (slot) {
      clearTimeout(slot.busy!.timer);
      slot.busy = undefined;
      p.reject(new CancelledError());
      this.replace(slot);
    }
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || slot.dead) continue;
      const pending = this.queue.shift()!;
      const id = this.nextId++;
      const nonce = randomBytes(12).toString("hex");
      slot.busy = { id, nonce, pending, started: performance.now() };
      slot.ready.then(
        () => {
          if (slot.busy?.id !== id) return;
          slot.busy.started = performance.now();
          // Until the worker says the job started, allow for a fresh interpreter to be made.
          slot.armTimer(initialCapMs(pending.job) + 30_000);
          slot.send({ type: "run", id, nonce, job: pending.job });
        },
        (e: unknown) => {
          if (slot.busy?.id !== id) return;
          slot.busy = undefined;
          pending.reject(e);
        },
      );
    }
  }

  /** @internal called by a slot when its job produced a result. */
  finishJob(slot: Slot, outcome: RunOutcome, recycle: boolean): void {
    const busy = slot.busy!;
    clearTimeout(busy.timer);
    slot.busy = undefined;
    busy.pending.resolve(outcome);
    if (recycle) this.replace(slot);
    this.pump();
  }

  /** @internal the host-side deadline passed: the in-process interrupt did not land, so kill. */
  hardTimeout(slot: Slot): void {
    const busy = slot.busy;
    if (!busy) return;
    slot.busy = undefined;
    const job = busy.pending.job;
    const phase = job.mode === "check" && busy.lastIndex !== undefined ? phaseOf(job, busy.lastIndex) : undefined;
    this.logger.debug(`sandbox: job ${busy.id} missed its hard deadline; killing the worker`);
    busy.pending.resolve({
      result: { status: "fail", kind: "timeout", ...(phase ?? {}), error: "timed out (the sandbox was killed after the deadline)" },
      interpreterMs: 0,
      wallMs: performance.now() - busy.started,
    });
    this.replace(slot);
  }

  /** @internal a worker exited: fail its job (if any) and replace it. */
  slotDied(slot: Slot, why: string, neverReady: boolean): void {
    if (neverReady && !slot.killedByUs) this.startFailures++;
    else if (!neverReady) this.startFailures = 0;
    if (this.startFailures >= 3) {
      // The worker cannot start at all (broken install): stop respawning and fail everything, loudly.
      const error = new Error(`the Python sandbox cannot start (${why})`);
      this.logger.error(error);
      for (const p of this.queue.splice(0)) p.reject(error);
      if (slot.busy) {
        clearTimeout(slot.busy.timer);
        slot.busy.pending.reject(error);
        slot.busy = undefined;
      }
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      return;
    }
    const busy = slot.busy;
    if (busy) {
      slot.busy = undefined;
      clearTimeout(busy.timer);
      busy.pending.resolve({ result: { status: "fail", kind: "sandbox", error: `the sandbox process ended (${why})` }, interpreterMs: 0, wallMs: performance.now() - busy.started });
    }
    if (!this.finished && this.slots.includes(slot)) this.replace(slot);
  }

  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    slot.dead = true;
    slot.kill();
    if (this.finished) return;
    this.slots[i] = new Slot(this, this.files, this.config);
    this.pump();
  }

  /** Stops every worker and fails queued jobs. Idempotent. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    for (const p of this.queue.splice(0)) p.reject(new CancelledError("sandbox pool finished"));
    for (const slot of this.slots) {
      if (slot.busy) {
        clearTimeout(slot.busy.timer);
        slot.busy.pending.reject(new CancelledError("sandbox pool finished"));
        slot.busy = undefined;
      }
      slot.dead = true;
      slot.kill();
    }
    this.slots.length = 0;
  }

  dispose(): Promise<void> {
    return this.finish();
  }
}

function initialCapMs(job: Job): number {
  if (job.mode === "check") return job.phases[0]?.capMs ?? 4000;
  return job.capMs;
}

function phaseOf(job: Extract<Job, { mode: "check" }>, index: number): { phase: string; index: number } | undefined {
  let start = 0;
  for (const p of job.phases) {
    if (index < start + p.count) return { phase: p.name, index: index - start };
    start += p.count;
  }
  return undefined;
}
