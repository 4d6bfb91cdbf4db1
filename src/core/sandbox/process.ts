import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { Worker } from "node:worker_threads";
import { CancelledError } from "../errors.js";
import type { Logger } from "../logger.js";
import { inheritedFds, nodeArgs, type Confinement, type SandboxFiles } from "./isolation.js";
import { NATIVE_PROGRAM, type NativePython } from "./native.js";
import { killTree, RunningJob, systemClock, treeCpuMs, treeRss, treeStats, type CpuWaitProbe, type Driver } from "./job.js";
import { ProcessMessageSchema, type HostMessage, type ProcessMessage, type WorkerConfig } from "./protocol.js";
import { killForked, type ForkedAnswer, type NativeTemplate } from "./template.js";

export { RunningJob, type CpuWaitProbe, type Driver, type Step } from "./job.js";

/**
 * Splits a byte stream into lines with the host's own cap: a line longer than `maxLine()` bytes is never
 * assembled (the 700 MB line that crashed readline stops at the cap), it is reported and the stream is dropped.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private stopped = false;

  constructor(
    private readonly maxLine: () => number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.stopped) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.size + piece.length > this.maxLine()) {
        this.stopped = true;
        this.parts = [];
        this.onOversize(this.size + piece.length);
        return;
      }
      if (nl < 0) {
        if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
        return;
      }
      const line = this.parts.length === 0 ? piece.toString("utf8") : Buffer.concat([...this.parts, piece]).toString("utf8");
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      this.onLine(line);
    }
  }
}

/** Malformed lines a process may send before it is killed (each is logged once, as a count, when it ends). */
export const MALFORMED_BUDGET = 8;

type Channel =
  | { kind: "process"; child: ChildProcessByStdio<Writable, Readable, Readable> }
  | { kind: "thread"; worker: Worker }
  /** A fork of the CPython runtime's warm template (template.ts); `answer` once it has connected. */
  | { kind: "forked"; answer?: ForkedAnswer };

export interface ProcessSpec {
  files: SandboxFiles;
  confinement: Confinement;
  config: WorkerConfig;
  /** Run as a worker thread of this process (no permission model available): accident-proof only. */
  thread: boolean;
  maxOldSpaceMb: number;
  /** Red-team tests only: let escaped Python run JavaScript, to show the layers beneath still hold. */
  allowCodeGeneration?: boolean;
  /** V8 flags for this role (compiler tiers; see runner.ts), after the sandbox's own flags. */
  v8Flags?: string[];
  /** Run a native CPython (native.ts) instead of node with Pyodide. */
  native?: NativePython;
  /** Fork the process from this warm template instead of spawning it (CPython answer processes; template.ts). */
  template?: NativeTemplate;
  /** Kill the process when its RSS (with its descendants) passes this while a job runs (Linux). */
  rssLimitBytes: number;
  logger: Logger;
}

/**
 * One sandbox process: spawned confined, read through a capped line splitter, watched for RSS, killed on any
 * protocol violation. It runs one job at a time through a Driver.
 */
export class SandboxProcess {
  readonly ready: Promise<void>;
  /** Spawn → `ready` (restoring an interpreter from the snapshot), ms. */
  startMs = 0;
  pyodideVersion = "";
  private readonly spawnedAt = performance.now();
  private channel!: Channel;
  private job: RunningJob<unknown> | undefined;
  private isReady = false;
  private dead = false;
  private malformed = 0;
  private jobsDone = 0;
  private killed = false;
  private firstMalformed = "";
  private stderrTail = "";
  private rssTimer: NodeJS.Timeout | undefined;
  private lastWaitMs = 0;
  private onReady!: () => void;
  private onReadyFail!: (e: Error) => void;
  /** Resolves once the process has ended, however it ended (never rejects). */
  readonly exited: Promise<void>;
  private onExited!: () => void;

  constructor(private readonly spec: ProcessSpec) {
    this.ready = new Promise((res, rej) => {
      this.onReady = res;
      this.onReadyFail = rej;
    });
    this.ready.catch(() => {}); // surfaced through run()
    this.exited = new Promise((res) => (this.onExited = res));
    this.start();
  }

  get alive(): boolean {
    return !this.dead;
  }

  private start(): void {
    const { files, confinement, config } = this.spec;
    const splitter = new LineSplitter(
      () => this.maxLine(),
      (line) => this.onLine(line),
      (bytes) => this.violation(`a line of more than ${bytes} bytes (cap ${this.maxLine()})`),
    );
    const template = this.spec.template;
    if (template) {
      const channel: Channel & { kind: "forked" } = { kind: "forked" };
      this.channel = channel;
      template.fork().then(
        (answer) => {
          channel.answer = answer;
          answer.socket.on("data", (d: Buffer) => splitter.push(d));
          answer.socket.on("close", () => {
            // The connection ends with the process, or because the answer closed it: either way it is killed.
            killForked(answer);
            this.onExit("its connection closed");
          });
          if (answer.head.length > 0) splitter.push(answer.head);
          answer.socket.resume();
          if (this.killed) killForked(answer);
        },
        (e: unknown) => this.onExit(e instanceof Error ? e.message : String(e)),
      );
    } else if (!this.spec.thread) {
      const native = this.spec.native;
      const readable = [files.workerFile, files.pyodideDir, ...(config.snapshotFile ? [config.snapshotFile] : [])];
      const command = native
        ? [...confinement.prefix(native.mounts, { native: true }), native.bin, "-I", "-S", "-B", "-c", NATIVE_PROGRAM, JSON.stringify(config)]
        : [...confinement.prefix(readable), process.execPath, ...nodeArgs(files, readable, this.spec.maxOldSpaceMb, this.spec.allowCodeGeneration), ...(this.spec.v8Flags ?? []), files.workerFile, JSON.stringify({ ...config, closeFds: inheritedFds() })];
      const child = spawn(command[0]!, command.slice(1), {
        // Its own process group, so that a kill reaches whatever the confinement wrapper has forked but not yet
        // moved to a session of its own (killTree).
        detached: process.platform === "linux",
        // Empty environment: nothing of the user's (keys, tokens, paths) reaches the sandbox.
        env: { ELECTRON_RUN_AS_NODE: "1" },
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      this.channel = { kind: "process", child };
      child.stdout.on("data", (d: Buffer) => splitter.push(d));
      child.stderr.on("data", (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-4000);
      });
      child.stdin.on("error", () => {}); // EPIPE after a kill
      child.on("exit", (code, sig) => this.onExit(`exit code ${code ?? "-"}${sig ? `, signal ${sig}` : ""}`));
      child.on("error", (e) => this.onExit(`spawn failed: ${e.message}`));
    } else {
      const worker = new Worker(files.workerFile, { workerData: config, env: {}, stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: this.spec.maxOldSpaceMb } });
      this.channel = { kind: "thread", worker };
      worker.on("message", (m: unknown) => {
        const line = String(m);
        if (Buffer.byteLength(line) > this.maxLine()) this.violation(`a message of more than ${this.maxLine()} bytes`);
        else this.onLine(line);
      });
      worker.stderr.on("data", (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-4000);
      });
      worker.stdout.on("data", () => {});
      worker.on("exit", (code) => this.onExit(`worker exit code ${code}`));
      worker.on("error", (e) => this.onExit(`worker error: ${e.message}`));
    }
  }

  private maxLine(): number {
    return this.job ? this.job.driver.maxLineBytes() : 64 * 1024;
  }

  /** Runs one job: sends it, feeds every message to the driver, and settles exactly once. */
  run<T>(message: HostMessage, driver: Driver<T>, signal?: AbortSignal): Promise<T> {
    if (this.dead) return Promise.resolve(driver.onEnd(`the sandbox process had already ended (${this.endReason()})`));
    if (this.job) return Promise.reject(new Error("sandbox process is busy"));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise<T>((resolve, reject) => {
      const job = new RunningJob<T>(
        driver,
        resolve,
        reject,
        signal,
        (j) => this.finish(j, { value: j.driver.onTimeout() }, true),
        (j) => this.finish(j, { error: new CancelledError() }, true),
        systemClock,
        this.cpuWaitProbe(),
      );
      this.job = job as RunningJob<unknown>;
      this.watchRss();
      const line = JSON.stringify(message);
      if (this.channel.kind === "process") this.channel.child.stdin.write(line + "\n");
      else if (this.channel.kind === "forked") this.channel.answer?.socket.write(line + "\n");
      else this.channel.worker.postMessage(line);
    });
  }

  private finish<T>(job: RunningJob<T>, outcome: { value: T } | { error: unknown }, kill: boolean): void {
    if (this.job !== (job as RunningJob<unknown>)) return;
    this.job = undefined;
    this.jobsDone++;
    clearInterval(this.rssTimer);
    job.settle(outcome);
    // kill() resolves (never rejects) once the process has exited; the job is already settled, so nothing waits.
    if (kill) void this.kill();
  }

  private onLine(line: string): void {
    if (this.dead || this.killed) return;
    let msg: ProcessMessage | undefined;
    let why = "not JSON";
    try {
      const parsed = ProcessMessageSchema.safeParse(JSON.parse(line));
      if (parsed.success) msg = parsed.data;
      else why = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ").slice(0, 300);
    } catch {
      msg = undefined;
    }
    if (!msg) {
      // A reference process runs trusted code: a line it gets wrong is a bug to name, not noise to budget.
      if (this.spec.config.role === "reference" && this.job) return this.violation(`an invalid message (${why}): ${line.slice(0, 120)}`);
      return this.malformedLine(line);
    }
    if (msg.type === "ready") {
      if (this.isReady) return this.malformedLine(line);
      this.isReady = true;
      this.startMs = performance.now() - this.spawnedAt;
      this.pyodideVersion = msg.pyodide;
      this.onReady();
      return;
    }
    if (msg.type === "fatal") {
      this.spec.logger.debug(`sandbox process fatal: ${msg.message}`);
      if (this.job) this.finish(this.job, { value: this.job.driver.onEnd(`the sandbox process stopped: ${msg.message}`) }, true);
      else void this.kill(); // fire-and-forget: exit is observed by the pool through the process's exit event
      return;
    }
    const job = this.job;
    // An answer process may still be writing when its job has been decided (first failure): it is being killed.
    if (!job) return this.jobsDone > 0 && this.spec.config.role === "answer" ? undefined : this.malformedLine(line);
    const step = job.driver.onMessage(msg);
    if ("settle" in step) this.finish(job, { value: step.settle }, false);
    else job.arm(step.next);
  }

  private malformedLine(line: string): void {
    this.malformed++;
    if (this.malformed === 1) this.firstMalformed = line.slice(0, 120);
    if (this.malformed > MALFORMED_BUDGET) this.violation(`more than ${MALFORMED_BUDGET} lines that are not protocol messages`);
  }

  private violation(why: string): void {
    if (this.job) this.finish(this.job, { value: this.job.driver.onProtocol(why) }, true);
    else void this.kill(); // fire-and-forget: exit is observed by the pool through the process's exit event
  }

  /** Linux: the CPU wait of the process tree, from the last poll or read now; elsewhere none (wall time only). */
  private cpuWaitProbe(): CpuWaitProbe | undefined {
    const pid = this.watchedPid();
    if (pid === undefined) return undefined;
    this.lastWaitMs = treeStats(pid).cpuWaitMs;
    return (fresh) => (fresh ? (this.lastWaitMs = treeStats(pid).cpuWaitMs) : this.lastWaitMs);
  }

  /** Linux: the RSS of the process and its descendants (wrappers such as bwrap fork), polled while a job runs. */
  private watchRss(): void {
    const pid = this.watchedPid();
    if (pid === undefined) return;
    clearInterval(this.rssTimer);
    this.rssTimer = setInterval(() => {
      const { rss, cpuWaitMs } = treeStats(pid);
      this.lastWaitMs = cpuWaitMs;
      if (rss > this.spec.rssLimitBytes && this.job) this.finish(this.job, { value: this.job.driver.onMemory(rss) }, true);
    }, 50);
    this.rssTimer.unref();
  }

  private onExit(why: string): void {
    if (this.dead) return;
    this.dead = true;
    this.exitWhy = why;
    clearInterval(this.rssTimer);
    if (this.malformed > 0) this.spec.logger.warn(`sandbox: ignored ${this.malformed} line(s) that were not protocol messages from a sandbox process (first: ${JSON.stringify(this.firstMalformed)})`);
    this.onReadyFail(new Error(`sandbox process failed to start (${why}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`));
    if (this.job) this.finish(this.job, { value: this.job.driver.onEnd(`the sandbox process ended (${why})`) }, false);
    this.onExited();
  }

  private exitWhy = "";
  private endReason(): string {
    return this.exitWhy || "killed";
  }

  /**
   * The process whose tree the host reads in /proc (Linux): the spawned process (a wrapper's descendants included),
   * or a forked answer process; undefined for a worker thread or elsewhere.
   */
  private watchedPid(): number | undefined {
    if (process.platform !== "linux") return undefined;
    if (this.channel.kind === "process") return this.channel.child.pid;
    return this.channel.kind === "forked" ? this.channel.answer?.pid : undefined;
  }

  /** The host pid of the process that runs the job (the spawned process, or a forked answer process once connected). */
  get pid(): number | undefined {
    if (this.channel.kind === "process") return this.channel.child.pid;
    return this.channel.kind === "forked" ? this.channel.answer?.pid : undefined;
  }

  /** CPU time the process and its descendants have used so far, ms (Linux; 0 elsewhere or once it is gone). A forked answer process counts its leader's too. */
  cpuMs(): number {
    if (this.dead) return 0;
    const root = this.channel.kind === "forked" ? this.channel.answer?.leader : this.watchedPid();
    return root === undefined ? 0 : treeCpuMs(root);
  }

  /** Resident memory of the process and its descendants now (Linux; 0 elsewhere). */
  rss(): number {
    const pid = this.watchedPid();
    return pid === undefined ? 0 : treeRss(pid);
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Ends a running job with CancelledError (the pool is finishing), then kills. */
  cancel(): Promise<void> {
    if (this.job) this.finish(this.job, { error: new CancelledError("sandbox pool finished") }, false);
    return this.kill();
  }

  /** Kills the process (SIGKILL; a confining wrapper takes its whole namespace with it). Idempotent. */
  kill(): Promise<void> {
    this.killed = true;
    if (this.channel.kind === "process") killTree(this.channel.child, this.dead);
    else if (this.channel.kind === "forked") {
      if (this.channel.answer && !this.dead) killForked(this.channel.answer);
    } else if (!this.dead) void this.channel.worker.terminate();
    return this.exited;
  }
}
