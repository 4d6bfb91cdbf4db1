import { CancelledError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { locateSandboxFiles, probeConfinement, probeIsolation, runtimeFingerprint, type Confinement, type Isolation, type SandboxFiles } from "./isolation.js";
import { SandboxProcess, type Driver, type ProcessSpec } from "./process.js";
import type { PythonRuntime } from "../../shared/vocabulary/index.js";
import type { AnswerJob, ExpectedJob, ProcessMessage, Role } from "./protocol.js";
import { probeNativePython, type NativePython } from "./native.js";
import { SnapshotStore } from "./snapshot.js";
import { NativeTemplate } from "./template.js";
import { tierFlags, type TierRole } from "./tiers.js";

export type { Isolation } from "./isolation.js";
export type { Driver, Step } from "./process.js";

export interface SandboxOptions {
  logger?: Logger;
  /** Answers checked at once (default 2). Each has its own fresh process; as many spares are kept warm. */
  poolSize?: number;
  /** Reference processes computing expected outputs (default 1). */
  referencePoolSize?: number;
  /** Folder holding sandbox-worker.js and pyodide/ (default: beside the running bundle, else <repo>/dist). */
  distDir?: string;
  /** Cap on wasm memory per interpreter (default 512 MB). */
  memoryMb?: number;
  /** Output a job may print before it is stopped (default 8 MB). */
  outputCapBytes?: number;
  /** Time between a missed deadline and the kill (default 250 ms): an input that returns just past its limit is still reported by the process itself. */
  graceMs?: number;
  /** Kill a process whose RSS passes this during a job (default: the wasm cap + 768 MB). */
  rssLimitBytes?: number;
  /** Keep the interpreter snapshot here between runs (checksummed). */
  snapshotCacheDir?: string;
  /** Test hook: behave as if the permission model were unavailable. */
  forceFallback?: boolean;
  /**
   * Red-team tests only (never set by the CLI or the extension): answer processes may run JavaScript from strings,
   * so code escaping through the FFI really reaches JS, and the tests show the other layers still hold.
   */
  unsafeAllowCodeGeneration?: boolean;
  /** Test hook: called as each answer job is handed to its process (e.g. to kill it mid-check); `pid` is its host pid. */
  onDispatch?: (process: { kill: () => void; pid: number | undefined }) => void;
  /** Bench hook: the V8 compiler-tier flags of each role (default: tiers.ts). */
  tierFlags?: (role: TierRole) => string[];
  /**
   * The Python runtime: `pyodide` (every platform, the permission model plus the OS confinement; what an omitted
   * option means, so tests and tools that leave it out never depend on the machine), `cpython` (Linux with
   * bubblewrap: a native interpreter under bubblewrap and a seccomp filter, many times faster, with fewer layers;
   * native.ts; throws a located error where it cannot run, never falls back), or `auto` (RunSettings' default: cpython
   * where its probe passes, else pyodide; `choice` says which and why).
   */
  python?: PythonRuntime;
  /**
   * CPython runtime: fork each answer process from a warm template (template.ts; default true) instead of spawning a
   * fresh interpreter under bubblewrap. Where the template cannot start (no nested user namespaces), answers are
   * spawned as before and the run header says why.
   */
  template?: boolean;
}

/** Template restarts after which a pool spawns its answer processes instead. */
const TEMPLATE_RESTARTS = 3;

/** The runtime a pool runs, and why: the run header's first words about the sandbox. */
export interface RuntimeChoice {
  python: "pyodide" | "cpython";
  native?: NativePython;
  /** "auto: cpython (bwrap 0.8.0, CPython 3.11.2 at /usr/bin/python3.11)", "auto: pyodide (bwrap not found)", "pyodide (set)". */
  why: string;
}

/**
 * Resolves `auto`: the native CPython runtime wherever its probe passes (Linux, bubblewrap that really confines,
 * CPython 3.11+ that starts under the seccomp filter and sees fork, sockets and exec refused), else Pyodide, with the
 * reason. An explicit `cpython` throws where it cannot run; an explicit `pyodide` probes nothing. `probe`: the
 * confinement (tests pass one that fails).
 */
export function chooseRuntime(requested: PythonRuntime, probe: () => Confinement = probeConfinement): RuntimeChoice {
  if (requested === "pyodide") return { python: "pyodide", why: "pyodide (set)" };
  const confinement = probe();
  const found = (native: NativePython) => `${confinement.bubblewrap ?? "bwrap"}, CPython ${native.version} at ${native.bin}`;
  if (requested === "cpython") {
    const native = probeNativePython(confinement);
    return { python: "cpython", native, why: `cpython (set; ${found(native)})` };
  }
  if (process.platform !== "linux") return { python: "pyodide", why: `auto: pyodide (${process.platform}: the CPython runtime is Linux only)` };
  if (confinement.kind !== "bubblewrap") return { python: "pyodide", why: `auto: pyodide (${confinement.bubblewrap ?? "no bubblewrap"})` };
  try {
    const native = probeNativePython(confinement);
    return { python: "cpython", native, why: `auto: cpython (${found(native)})` };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { python: "pyodide", why: `auto: pyodide (${message.replace(/\s+/g, " ").replace(/\.$/, "")})` };
  }
}

export type { PythonRuntime } from "../../shared/vocabulary/index.js";

interface Waiter<T> {
  start: (p: SandboxProcess) => Promise<T>;
  /** Lower runs first; equal ones in arrival order. */
  priority: number;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort: () => void;
}

/**
 * The sandbox: fresh answer processes (one per answer, started ahead as warm spares, killed after their one job)
 * and long-lived reference processes for expected outputs. The two never share a process, an interpreter or a
 * snapshot written by anything but a process of their own. `finish()` is idempotent.
 */
export class SandboxPool {
  readonly logger: Logger;
  readonly graceMs: number;
  readonly isolation: Isolation;
  readonly confinement: Confinement;
  /** The shipped Python runtime's versions (Pyodide, CPython, ABI), for cache keys. */
  readonly runtime: string;
  readonly network: "namespace" | "host";
  private readonly size: number;
  private readonly referenceSize: number;
  private readonly memoryMb: number;
  private readonly outputCapBytes: number;
  private readonly rssLimitBytes: number;
  private readonly snapshots: SnapshotStore;
  /** The native interpreter, when the runtime is CPython: no snapshot, no node. */
  private readonly native: NativePython | undefined;
  /** Which runtime runs and why (the run header's detail starts with it). */
  readonly choice: RuntimeChoice;
  private readonly allowCodeGeneration: boolean;
  private readonly onDispatch: SandboxOptions["onDispatch"];
  private readonly tierFlags: (role: TierRole) => string[];
  private readonly spares: SandboxProcess[] = [];
  private readonly busy = new Set<SandboxProcess>();
  private readonly queue: Array<Waiter<unknown>> = [];
  private readonly references: SandboxProcess[] = [];
  private readonly referenceIdle: SandboxProcess[] = [];
  private readonly referenceQueue: Array<Waiter<unknown>> = [];
  private referenceStarting = 0;
  /** The CPython runtime's warm template, while it is used (template.ts). */
  private template: NativeTemplate | undefined;
  private templateStarts = 0;
  /** Why answers are spawned rather than forked, when the template was wanted and failed. */
  private templateProblem = "";
  private finished = false;
  private startFailures = 0;
  private broken: Error | undefined;

  private constructor(
    private readonly files: SandboxFiles,
    options: SandboxOptions,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.graceMs = options.graceMs ?? 250;
    this.size = Math.max(1, options.poolSize ?? 2);
    this.referenceSize = Math.max(1, options.referencePoolSize ?? 1);
    this.memoryMb = options.memoryMb ?? 512;
    this.outputCapBytes = options.outputCapBytes ?? 8 * 1024 * 1024;
    this.rssLimitBytes = options.rssLimitBytes ?? (this.memoryMb + 768) * 1024 * 1024;
    // The test hooks below are Pyodide's: with them, `auto` means Pyodide.
    const requested = options.python === "auto" && (options.forceFallback || options.unsafeAllowCodeGeneration) ? "pyodide" : (options.python ?? "pyodide");
    this.choice = chooseRuntime(requested);
    if (this.choice.native) {
      this.confinement = probeConfinement();
      this.native = this.choice.native;
      this.isolation = "native-confined";
      this.confinement = { ...this.confinement, describe: `native CPython under bubblewrap: own PID, mount, IPC, network and user namespaces; read-only private root; seccomp (no fork, exec, sockets, ptrace); rlimits; no network` };
      this.runtime = JSON.stringify({ cpython: this.native.version, bin: this.native.bin });
    } else {
      this.isolation = options.forceFallback ? "worker-fallback" : probeIsolation(files);
      this.confinement = this.isolation === "process-permission" ? probeConfinement() : { kind: "none", prefix: () => [], network: "host", describe: "worker thread of the host process: accident-proof, not attack-proof" };
      this.runtime = runtimeFingerprint(files);
    }
    this.network = this.confinement.network;
    this.allowCodeGeneration = options.unsafeAllowCodeGeneration === true;
    this.onDispatch = options.onDispatch;
    this.tierFlags = options.tierFlags ?? tierFlags;
    if (this.native && options.template !== false) this.template = this.newTemplate();
    this.snapshots = new SnapshotStore({ files, confinement: this.confinement, thread: this.isolation === "worker-fallback", memoryMb: this.memoryMb, cacheDir: options.snapshotCacheDir, logger: this.logger });
  }

  /** Locates the shipped files, probes the permission model and the OS confinement once, and starts warming up. */
  static create(options: SandboxOptions = {}): SandboxPool {
    const files = locateSandboxFiles(options.distDir);
    const pool = new SandboxPool(files, options);
    if (pool.isolation === "worker-fallback") {
      pool.logger.warn(
        "SANDBOX FALLBACK: Node's permission model is unavailable here, so generated code runs in a worker thread " +
          "of this process. This is accident-proof, not attack-proof: hostile code could reach the host. The run header records isolation=worker-fallback.",
      );
    } else {
      pool.logger.info(`sandbox: ${pool.choice.why}; one fresh process per answer ${pool.native ? "" : `under ${files.permissionFlag}; `}${pool.confinement.describe}`);
      if (pool.confinement.kind !== "bubblewrap") pool.logger.warn(`sandbox: ${pool.confinement.describe}`);
    }
    pool.fillSpares();
    return pool;
  }

  /** What the run header records about the sandbox: the runtime and why, then the confinement, then how answer processes start. */
  get detail(): string {
    const start = this.template ? "; each answer process forked from a warm template into PID, user, mount and IPC namespaces of its own" : this.templateProblem ? `; each answer process spawned (warm template unavailable: ${this.templateProblem})` : "";
    return `${this.choice.why}; ${this.confinement.describe}${start}`;
  }

  private newTemplate(): NativeTemplate {
    this.templateStarts++;
    return new NativeTemplate(this.native!, this.confinement, { memoryMb: this.memoryMb, outputCapBytes: this.outputCapBytes }, this.logger);
  }

  /** The template to fork the next answer process from, restarted if it died; undefined once it failed for good. */
  private async liveTemplate(): Promise<NativeTemplate | undefined> {
    let template = this.template;
    if (!template) return undefined;
    if (!template.alive && this.templateStarts < TEMPLATE_RESTARTS) {
      this.usage.templateCpuMs += template.cpuMs();
      template.dispose();
      template = this.template = this.newTemplate();
    }
    try {
      await template.ready;
      if (template.alive) return template;
      throw new Error("it ended");
    } catch (e) {
      // The pool finished while the template started (a run that ended early): nothing to say.
      if (this.finished) return undefined;
      if (this.template !== template) return this.liveTemplate();
      this.templateProblem = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 300);
      this.logger.warn(`sandbox: the warm template cannot run, so each answer process is spawned instead: ${this.templateProblem}`);
      this.usage.templateCpuMs += template.cpuMs();
      template.dispose();
      this.template = undefined;
      return undefined;
    }
  }

  /** Resolves when the snapshot exists and a first answer process is warm; returns the time that took (ms). */
  async ready(): Promise<number> {
    const t0 = performance.now();
    await this.snapshotReady();
    await this.firstReady;
    return performance.now() - t0;
  }

  /**
   * CPU time (Linux, ms, user + system over the process tree) of the answer processes that have finished a job (and,
   * once finished, of the spares that never got one) and of the reference processes that have ended, for the
   * benchmark. Read just before each kill.
   */
  readonly usage = { answers: 0, answerCpuMs: 0, referenceCpuMs: 0, templateCpuMs: 0 };

  /** CPU time (ms, Linux) of the running warm template itself so far (its forks), for the benchmark; 0 without one. */
  templateCpuMs(): number {
    return this.template?.cpuMs() ?? 0;
  }

  /** Resolves when the interpreter snapshot exists: from then on reference and answer processes can start. */
  async snapshotReady(): Promise<void> {
    if (this.native) return;
    await this.snapshots.get();
  }

  /** Spawn → ready of the warm answer processes so far (ms), for the benchmark. */
  get spareStartMs(): number[] {
    return [...this.busy, ...this.spares].map((s) => s.startMs).filter((ms) => ms > 0);
  }

  private spec(role: Role, snapshotFile: string): ProcessSpec {
    return {
      files: this.files,
      confinement: this.confinement,
      config: { role, pyodideDir: this.files.pyodideDir, snapshotFile, memoryMb: this.memoryMb, outputCapBytes: this.outputCapBytes },
      thread: this.isolation === "worker-fallback",
      maxOldSpaceMb: role === "reference" ? 2048 : 256,
      allowCodeGeneration: role === "answer" && this.allowCodeGeneration,
      v8Flags: this.tierFlags(role),
      rssLimitBytes: this.rssLimitBytes,
      ...(this.native ? { native: this.native } : {}),
      logger: this.logger,
    };
  }

  private async startProcess(role: Role): Promise<SandboxProcess> {
    if (this.native) {
      const template = role === "answer" ? await this.liveTemplate() : undefined;
      return new SandboxProcess({ ...this.spec(role, ""), ...(template ? { template } : {}) });
    }
    return this.snapshots.get().then((file) => new SandboxProcess(this.spec(role, file)));
  }

  /** Keeps `size` never-used answer processes starting or ready. */
  private fillSpares(): void {
    while (!this.finished && !this.broken && this.spares.length + this.pendingSpares < this.size) {
      this.pendingSpares++;
      this.startProcess("answer").then(
        (p) => {
          this.pendingSpares--;
          if (this.finished) return void p.kill();
          this.spares.push(p);
          // A spare that ends while it waits for a job (its warm template died, or something outside killed it) is
          // replaced; left in the list, it would count as a spare that never takes a job, and queued answers would wait
          // for good. One that ends before it is ready is a failed start instead (spareFailed).
          void p.exited.then(() => {
            const i = this.spares.indexOf(p);
            if (i < 0 || this.finished) return;
            this.spares.splice(i, 1);
            this.fillSpares();
            this.pump();
          });
          p.ready.then(
            () => {
              this.startFailures = 0;
              this.markReady();
              this.pump();
            },
            (e: unknown) => this.spareFailed(p, e),
          );
          this.pump();
        },
        (e: unknown) => {
          this.pendingSpares--;
          this.fail(e instanceof Error ? e : new Error(String(e)));
        },
      );
    }
  }
  private pendingSpares = 0;
  private markReady!: () => void;
  private markBroken!: (e: Error) => void;
  /** Resolves when the first answer process is warm; rejects if the sandbox cannot start at all. */
  private readonly firstReady = new Promise<void>((res, rej) => {
    this.markReady = res;
    this.markBroken = rej;
  });

  private spareFailed(p: SandboxProcess, e: unknown): void {
    const i = this.spares.indexOf(p);
    if (i >= 0) this.spares.splice(i, 1);
    if (this.finished) return;
    // Three failed starts in a row: the install is broken. Stop respawning and fail everything, loudly.
    if (++this.startFailures >= 3) return this.fail(new Error(`the Python sandbox cannot start: ${e instanceof Error ? e.message : String(e)}`));
    this.fillSpares();
  }

  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    this.markBroken(error);
    this.logger.error(error);
    for (const w of this.queue.splice(0)) this.reject(w, error);
    for (const w of this.referenceQueue.splice(0)) this.reject(w, error);
  }

  private reject(w: Waiter<unknown>, e: unknown): void {
    w.signal?.removeEventListener("abort", w.onAbort);
    w.reject(e);
  }

  private enqueue<T>(queue: Array<Waiter<unknown>>, start: (p: SandboxProcess) => Promise<T>, signal: AbortSignal | undefined, kick: () => void, priority = Infinity): Promise<T> {
    if (this.finished) return Promise.reject(new Error("sandbox pool is finished"));
    if (this.broken) return Promise.reject(this.broken);
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { start, priority, resolve, reject, signal, onAbort: () => {} };
      waiter.onAbort = () => {
        const i = queue.indexOf(waiter as Waiter<unknown>);
        if (i >= 0) {
          queue.splice(i, 1);
          reject(new CancelledError());
        }
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      // Behind every waiter of the same or a more urgent priority (a linear scan: queues hold at most a run's tasks).
      let at = queue.length;
      while (at > 0 && queue[at - 1]!.priority > priority) at--;
      queue.splice(at, 0, waiter as Waiter<unknown>);
      kick();
    });
  }

  /**
   * Runs one answer job on a fresh, never-used process, which is killed afterwards whatever happened. Queued jobs
   * start by `priority` (lower first; default last), then in arrival order.
   */
  runAnswer<T>(job: AnswerJob, driver: Driver<T>, options: { signal?: AbortSignal; priority?: number } = {}): Promise<T> {
    return this.enqueue(this.queue, (p) => p.run({ type: "run", job }, driver, options.signal), options.signal, () => this.pump(), options.priority);
  }

  private pump(): void {
    while (!this.finished && this.queue.length > 0 && this.busy.size < this.size) {
      const i = this.spares.findIndex((s) => s.alive && s.startMs > 0);
      if (i < 0) return;
      const proc = this.spares.splice(i, 1)[0]!;
      const waiter = this.queue.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      this.busy.add(proc);
      this.fillSpares();
      const running = waiter.start(proc);
      this.onDispatch?.({ kill: () => void proc.kill(), pid: proc.pid });
      running.then(waiter.resolve, waiter.reject).finally(() => {
        this.busy.delete(proc);
        this.usage.answers++;
        this.usage.answerCpuMs += proc.cpuMs();
        void proc.kill();
        this.pump();
      });
    }
  }

  /** Runs a trusted expected-outputs job on a reference process (never one that ran an answer). */
  runReference<T>(job: ExpectedJob, driver: Driver<T> & { reusable(): boolean }, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.enqueue(
      this.referenceQueue,
      async (p) => {
        const value = await p.run({ type: "run", job }, driver, options.signal);
        // Wasm memory never shrinks: a reference process that grew large is replaced.
        if (!driver.reusable() || !p.alive || p.rss() > this.rssLimitBytes / 2) {
          this.usage.referenceCpuMs += p.cpuMs();
          void p.kill();
        }
        return value;
      },
      options.signal,
      () => this.pumpReference(),
    );
  }

  private pumpReference(): void {
    for (const p of this.references.filter((r) => !r.alive)) this.references.splice(this.references.indexOf(p), 1);
    while (!this.finished && this.referenceQueue.length > 0) {
      const idle = this.referenceIdle.shift();
      if (!idle) {
        if (this.references.length + this.referenceStarting < this.referenceSize) this.startReference();
        return;
      }
      if (!idle.alive) continue;
      const waiter = this.referenceQueue.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.start(idle).then(waiter.resolve, waiter.reject).finally(() => {
        if (idle.alive && !this.finished) this.referenceIdle.push(idle);
        this.pumpReference();
      });
    }
  }

  private startReference(): void {
    this.referenceStarting++;
    this.startProcess("reference").then(
      (p) => {
        p.ready.then(
          () => {
            this.referenceStarting--;
            if (this.finished) return void p.kill();
            this.references.push(p);
            this.referenceIdle.push(p);
            this.pumpReference();
          },
          (e: unknown) => {
            this.referenceStarting--;
            if (++this.startFailures >= 3) this.fail(new Error(`the Python sandbox cannot start: ${e instanceof Error ? e.message : String(e)}`));
            else this.pumpReference();
          },
        );
      },
      (e: unknown) => {
        this.referenceStarting--;
        this.fail(e instanceof Error ? e : new Error(String(e)));
      },
    );
  }

  /** Runs a snippet in a fresh answer process and returns what it printed (diagnostics and tests). */
  exec(code: string, capMs: number, options: { signal?: AbortSignal; priority?: number } = {}): Promise<{ stdout: string; error?: string; kind?: string }> {
    const grace = this.graceMs;
    const driver: Driver<{ stdout: string; error?: string; kind?: string }> = {
      firstDeadlineMs: capMs + grace,
      totalMs: capMs + grace,
      maxLineBytes: () => 256 * 1024,
      onMessage: (m: ProcessMessage) =>
        m.type === "exec"
          ? { settle: { stdout: m.stdout, ...(m.error ? { error: m.error } : {}) } }
          : m.type === "raise"
            ? { settle: { stdout: "", error: m.error, kind: m.kind } }
            : { settle: { stdout: "", error: `unexpected message ${m.type}`, kind: "error" } },
      onTimeout: () => ({ stdout: "", error: "timeout (the sandbox was killed after the deadline)", kind: "timeout" }),
      onMemory: (rss) => ({ stdout: "", error: `killed at ${Math.round(rss / 1048576)} MB resident memory`, kind: "memory" }),
      onProtocol: (why) => ({ stdout: "", error: `protocol violation: ${why}`, kind: "error" }),
      onEnd: (why) => ({ stdout: "", error: why, kind: "sandbox" }),
    };
    return this.runAnswer({ mode: "exec", code, capMs }, driver, options);
  }

  /** Stops every process and fails queued jobs. Idempotent. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    for (const w of this.queue.splice(0)) this.reject(w, new CancelledError("sandbox pool finished"));
    for (const w of this.referenceQueue.splice(0)) this.reject(w, new CancelledError("sandbox pool finished"));
    for (const r of this.references) this.usage.referenceCpuMs += r.cpuMs();
    // Warm spares that never got a job still cost their start-up.
    for (const p of this.spares) this.usage.answerCpuMs += p.cpuMs();
    const all = [...this.spares.splice(0), ...this.busy, ...this.references.splice(0)];
    this.referenceIdle.length = 0;
    await Promise.all(all.map((p) => p.cancel()));
    if (this.template) {
      this.usage.templateCpuMs += this.template.cpuMs();
      this.template.dispose();
    }
    this.snapshots.dispose();
  }

  dispose(): Promise<void> {
    return this.finish();
  }
}
