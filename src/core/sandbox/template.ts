import { spawn, type ChildProcessByStdio } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../logger.js";
import { TEMPLATE_SOCKET_DIR, type Confinement } from "./isolation.js";
import { killTree, ownCpuMs } from "./job.js";
import { NATIVE_CAPS, TEMPLATE_PROGRAM, type NativePython } from "./native.js";

/** The longest Unix socket path Linux binds (sun_path is 108 bytes with its NUL); Node binds a longer one truncated. */
const MAX_SOCKET_PATH_BYTES = 107;
/** The hello line an answer process sends first ({"hello": "<32 hex>"}), with room to spare. */
const MAX_HELLO_BYTES = 256;
/** The uid the CPython sandbox runs as when the host is root (isolation.ts dropRoot). */
const SANDBOX_UID = 65534;

/** An answer process forked by the template, connected to the host and not yet sent a job. */
export interface ForkedAnswer {
  /** Its connection, paused, the hello line consumed: the job goes out here and every message comes back here. */
  socket: net.Socket;
  /** What it sent after the hello in the same read (its `ready`, often). */
  head: Buffer;
  /** The answer process's host pid: the host watches its RSS and CPU wait and kills it. */
  pid: number;
  /** Its leader's host pid (the answer process's parent): CPU accounting covers both. */
  leader: number;
  /** /proc/<pid>/stat's start time when it was attached: a pid is only signalled while it still names this process. */
  startTime: string;
}

interface Pending {
  resolve: (f: ForkedAnswer) => void;
  reject: (e: Error) => void;
  socket?: net.Socket;
  head?: Buffer;
  pid?: number;
  leader?: number;
}

/**
 * The warm template of the CPython runtime (issue 26): one trusted interpreter per pool, under bubblewrap, that has
 * run the harness's definitions and never runs an answer. Each answer process is a fork of it that confines itself
 * before it reads its job — its own PID, user, mount and IPC namespaces, its own /proc and /tmp, no capabilities, then
 * the driver's descriptors, rlimits and seccomp filter, as a freshly spawned process (native.ts TEMPLATE_PY). So each
 * answer still runs in a process nothing else has run in and that dies with it, without paying for an interpreter
 * start and the harness's compilation each time.
 *
 * The host side: a Unix socket in a private folder, bound read-only into the template's sandbox, where each answer
 * process connects and says the random token of its fork request (so the host knows which connection is which, and
 * nothing else can pose as an answer process); the template's stdout, written by trusted code only, reports each
 * answer process's host pid and its end.
 */
export class NativeTemplate {
  /** Resolves once the template's interpreter is up and the socket listens; rejects if either fails. */
  readonly ready: Promise<void>;
  private readonly dir: string;
  private readonly socketPath: string;
  private readonly server: net.Server;
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private readonly pending = new Map<string, Pending>();
  private templatePid = 0;
  private ended: Error | undefined;
  private stderrTail = "";
  private outBuffer = "";
  private spawnedAt = 0;

  constructor(
    native: NativePython,
    confinement: Confinement,
    config: { memoryMb: number; outputCapBytes: number },
    private readonly logger: Logger,
  ) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), "sf-tpl-"));
    this.socketPath = path.join(this.dir, "s");
    this.server = net.createServer((socket) => this.onConnection(socket));
    this.ready = this.start(native, confinement, config);
    this.ready.catch(() => {}); // surfaced through fork()
  }

  private async start(native: NativePython, confinement: Confinement, config: { memoryMb: number; outputCapBytes: number }): Promise<void> {
    if (Buffer.byteLength(this.socketPath) > MAX_SOCKET_PATH_BYTES) throw new Error(`the template's socket path ${this.socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes (set TMPDIR to a shorter folder)`);
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.socketPath, () => resolve());
    });
    // As root the sandbox runs as an unprivileged uid (isolation.ts): the folder and the socket are handed to it, and
    // stay closed to every other user.
    if (process.getuid?.() === 0) {
      chownSync(this.dir, SANDBOX_UID, SANDBOX_UID);
      chownSync(this.socketPath, SANDBOX_UID, SANDBOX_UID);
    }
    chmodSync(this.socketPath, 0o600);
    const cfg = { role: "answer", memoryMb: config.memoryMb, outputCapBytes: config.outputCapBytes, socket: `${TEMPLATE_SOCKET_DIR}/s`, tmpMb: NATIVE_CAPS.tmpMb };
    const command = [...confinement.prefix(native.mounts, { native: true, template: { socketDir: this.dir } }), native.bin, "-I", "-S", "-B", "-c", TEMPLATE_PROGRAM, JSON.stringify(cfg)];
    this.spawnedAt = performance.now();
    const child = spawn(command[0]!, command.slice(1), { detached: true, env: {}, stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    child.stdin.on("error", () => {});
    child.stderr.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-4000);
    });
    let onReady!: () => void;
    const readyLine = new Promise<void>((res) => (onReady = res));
    child.stdout.on("data", (d: Buffer) => this.onTemplateOutput(d.toString("utf8"), onReady));
    const exited = new Promise<never>((_, reject) => {
      const end = (why: string) => {
        const e = new Error(`the sandbox's warm template ended (${why}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`);
        this.end(e);
        reject(e);
      };
      child.on("exit", (code, sig) => end(`exit code ${code ?? "-"}${sig ? `, signal ${sig}` : ""}`));
      child.on("error", (e) => end(`spawn failed: ${e.message}`));
    });
    exited.catch(() => {});
    await Promise.race([readyLine, exited]);
    this.logger.debug(`sandbox: warm template ready in ${Math.round(performance.now() - this.spawnedAt)} ms (pid ${this.templatePid})`);
  }

  /** Lines from the template's stdout: trusted (the template and its leaders write them; answers never hold it). */
  private onTemplateOutput(text: string, onReady: () => void): void {
    this.outBuffer += text;
    let nl: number;
    while ((nl = this.outBuffer.indexOf("\n")) >= 0) {
      const line = this.outBuffer.slice(0, nl);
      this.outBuffer = this.outBuffer.slice(nl + 1);
      let m: { type?: string; token?: string; pid?: number; leader?: number; message?: string };
      try {
        m = JSON.parse(line) as typeof m;
      } catch {
        this.logger.warn(`sandbox: the warm template said something that is not JSON: ${line.slice(0, 200)}`);
        continue;
      }
      if (m.type === "ready") {
        this.templatePid = Number(m.pid);
        onReady();
        continue;
      }
      const p = m.token === undefined ? undefined : this.pending.get(m.token);
      if (m.type === "forked" && p) {
        p.pid = Number(m.pid);
        p.leader = Number(m.leader);
        this.complete(m.token!, p);
      } else if (m.type === "failed" && p) {
        this.pending.delete(m.token!);
        p.reject(new Error(`an answer process could not be set up: ${m.message}`));
        p.socket?.destroy();
      } else if (m.type === "exited" && p && !p.socket) {
        this.pending.delete(m.token!);
        p.reject(new Error("an answer process ended before it connected"));
      }
    }
  }

  private onConnection(socket: net.Socket): void {
    socket.on("error", () => {});
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const nl = head.indexOf(10);
      if (nl < 0) {
        if (head.length > MAX_HELLO_BYTES) socket.destroy();
        return;
      }
      socket.off("data", onData);
      socket.pause();
      let token: unknown;
      try {
        token = (JSON.parse(head.subarray(0, nl).toString("utf8")) as { hello?: unknown }).hello;
      } catch {
        token = undefined;
      }
      const p = typeof token === "string" ? this.pending.get(token) : undefined;
      if (!p || p.socket) return void socket.destroy();
      p.socket = socket;
      p.head = head.subarray(nl + 1);
      this.complete(token as string, p);
    };
    socket.on("data", onData);
  }

  private complete(token: string, p: Pending): void {
    if (!p.socket || p.pid === undefined || p.leader === undefined) return;
    this.pending.delete(token);
    p.resolve({ socket: p.socket, head: p.head ?? Buffer.alloc(0), pid: p.pid, leader: p.leader, startTime: startTime(p.pid) });
  }

  /** Forks a fresh answer process; resolves once it has connected and its pid is known (it then confines itself and says `ready`). */
  fork(): Promise<ForkedAnswer> {
    if (this.ended) return Promise.reject(this.ended);
    const token = randomBytes(16).toString("hex");
    const forked = new Promise<ForkedAnswer>((resolve, reject) => this.pending.set(token, { resolve, reject }));
    void this.ready.then(
      () => this.child?.stdin.write(JSON.stringify({ fork: token }) + "\n"),
      (e: unknown) => this.fail(token, e instanceof Error ? e : new Error(String(e))),
    );
    return forked;
  }

  private fail(token: string, e: Error): void {
    const p = this.pending.get(token);
    this.pending.delete(token);
    p?.reject(e);
  }

  /** Whether the template can still fork. */
  get alive(): boolean {
    return this.ended === undefined;
  }

  private end(e: Error): void {
    if (this.ended) return;
    this.ended = e;
    for (const [token, p] of this.pending) {
      p.reject(e);
      p.socket?.destroy();
      this.pending.delete(token);
    }
    // Its leaders die with it (PR_SET_PDEATHSIG), and their answer processes with them; their connections close.
  }

  /** CPU time of the template itself and its bubblewrap (ms; Linux): the forks' cost on the template's side. */
  cpuMs(): number {
    const pid = this.child?.pid;
    return (pid ? ownCpuMs(pid) : 0) + (this.templatePid ? ownCpuMs(this.templatePid) : 0);
  }

  /** Kills the template (its leaders and answer processes die with it) and removes its socket folder. Idempotent. */
  dispose(): void {
    this.end(new Error("the sandbox's warm template was disposed"));
    if (this.child) killTree(this.child, this.child.exitCode !== null || this.child.signalCode !== null);
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** /proc/<pid>/stat's start time (field 22), "" where unreadable. */
export function startTime(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

/** SIGKILL to a forked answer process and its leader, only while the pid still names the process that was attached. */
export function killForked(f: ForkedAnswer): void {
  const now = startTime(f.pid);
  if (now === "" || now !== f.startTime) return;
  for (const pid of [f.pid, f.leader]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}
