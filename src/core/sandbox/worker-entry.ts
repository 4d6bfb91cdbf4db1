/**
 * A sandbox process (bundled by esbuild.mjs to dist/sandbox-worker.js; it must not import anything unbundled).
 * Normally a child process under Node's permission model (read access to the Pyodide files, this file and the
 * snapshot only; no writes, no child processes, no workers, no code generation from strings, an empty
 * environment), inside OS namespaces where the platform has them (see confine.ts). In fallback mode a worker
 * thread with the same messages.
 *
 * Roles (WorkerConfig.role):
 * - `snapshot`: load Pyodide, import the common modules, define the harness, and write a memory snapshot to stdout
 *   (one header line, then the raw bytes). Runs before anything else and never runs a job.
 * - `answer`: restore an interpreter from the snapshot, say `ready`, run exactly ONE job (a model's program), then
 *   exit. The host kills it anyway: nothing an answer does can outlive it.
 * - `reference`: restore from the snapshot and run trusted `expected` jobs, one at a time, for as long as the host
 *   keeps it. It never runs an answer.
 */
import { closeSync, constants as fsConstants, readFileSync, writeSync } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { PyodideAPI, loadPyodide as loadPyodideType } from "pyodide";
import type { PyDict } from "pyodide/ffi";
import { HARNESS_PY, PRELOAD_PY } from "./harness-py.js";
import type { Job, WorkerConfig } from "./protocol.js";
import { parseHostLine, parseWorkerConfig, PROTOCOL_VERSION } from "./wire.js";

// Pyodide's own types (its shipped .d.ts); the runtime itself is loaded from the shipped files at run time.
type PyodideApi = PyodideAPI;
type LoadPyodide = typeof loadPyodideType;

// Captured before any other code runs: later monkey-patching by escaped code cannot intercept them.
const rawWrite = writeSync;
const bufferFrom = Buffer.from.bind(Buffer);
const napArray = new Int32Array(new SharedArrayBuffer(4));

/** Writes a whole buffer to fd 1: a pipe may take only part of it (or say EAGAIN) when the host reads slowly. */
function writeAll(buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) {
    try {
      off += rawWrite(1, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(napArray, 0, 0, 2);
    }
  }
}

const sendLine: (line: string) => void = isMainThread ? (line) => writeAll(bufferFrom(line + "\n", "utf8")) : (line) => parentPort!.postMessage(line);
const send = (msg: object) => sendLine(JSON.stringify(msg));

function readConfig(): WorkerConfig {
  const raw: unknown = isMainThread ? JSON.parse(process.argv[2] ?? "{}") : workerData;
  return parseWorkerConfig(raw);
}

/** Pyodide's NODEFS reads `process.binding('constants')`, which the permission model denies; and the memory cap. */
function installShims(memoryMb: number): void {
  const proc = process as unknown as { binding: (name: string) => unknown };
  const original = proc.binding.bind(process);
  proc.binding = (name: string) => (name === "constants" ? { fs: fsConstants, os: osConstants } : original(name));
  // Wasm memory is not covered by V8's heap limit: cap growth so a runaway allocation gets MemoryError.
  const cap = memoryMb * 1024 * 1024;
  const wasm = (globalThis as unknown as { WebAssembly: { Memory: { prototype: unknown } } }).WebAssembly;
  const memoryProto = wasm.Memory.prototype as { grow: (delta: number) => number; buffer: ArrayBuffer };
  const grow = memoryProto.grow;
  memoryProto.grow = function (this: { buffer: ArrayBuffer }, delta: number): number {
    if (this.buffer.byteLength + delta * 65536 > cap) throw new RangeError("sandbox memory cap reached");
    return grow.call(this, delta);
  };
  // Pyodide and escaped code may log through console; stdout is the protocol channel.
  const toStderr = (...args: unknown[]) => void process.stderr.write(args.map(String).join(" ") + "\n");
  // eslint-disable-next-line no-console -- redirecting console is the point: it must never reach the protocol channel
  console.log = console.info = console.warn = console.error = console.debug = toStderr;
}

/**
 * Defence in depth, after Pyodide has loaded and before the answer runs: the APIs the red team reached from
 * escaped code (signals, V8 flags that write files, trace events, sockets, processes, workers) throw. The design
 * does not rest on this — the answer's process holds nothing trusted, lives for one answer, and the OS confines it.
 */
function lockDown(): void {
  const deny = (what: string) =>
    function denied(): never {
      throw new Error(`${what} is disabled in the sandbox`);
    };
  const proc = process as unknown as Record<string, unknown>;
  // _kill is what process.kill calls, and _debugProcess sends SIGUSR1 (a node process then opens its inspector): without
  // PID namespaces (macOS, Windows, SF_SANDBOX_CONFINE=none) both reach the host's processes.
  for (const name of ["kill", "_kill", "_debugProcess", "_debugEnd", "dlopen", "setuid", "setgid", "seteuid", "setegid", "setgroups", "initgroups", "chdir", "umask"]) {
    if (typeof proc[name] === "function") proc[name] = deny(`process.${name}`);
  }
  // The network APIs on the global object (net's are stubbed below): without a network namespace they reach the host.
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of ["fetch", "WebSocket", "EventSource"]) if (typeof global[name] === "function") global[name] = deny(name);
  const blocked = new Set(["child_process", "cluster", "dgram", "dns", "http", "http2", "https", "inspector", "net", "tls", "trace_events", "v8", "vm", "worker_threads", "repl", "module", "wasi"]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the already-loaded module objects, to neuter them in place
  const v8 = require("node:v8") as Record<string, unknown>;
  v8.setFlagsFromString = deny("v8.setFlagsFromString");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const net = require("node:net") as { Socket: { prototype: Record<string, unknown> } } & Record<string, unknown>;
  for (const k of ["connect", "createConnection", "createServer"]) net[k] = deny(`net.${k}`);
  net.Socket.prototype.connect = deny("net.Socket.connect");
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Module._load is how `process.mainModule.require` loads
  const Module = require("node:module") as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    if (blocked.has(String(request).replace(/^node:/, ""))) throw new Error(`${request} is disabled in the sandbox`);
    return load.call(this, request, ...rest);
  };
  for (const name of ["trace_events", "worker_threads", "child_process", "dgram"]) {
    const m = load.call(Module, name, null, false) as Record<string, unknown>;
    for (const k of Object.keys(m)) if (typeof m[k] === "function") m[k] = deny(`${name}.${k}`);
  }
  const getBuiltin = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (getBuiltin) {
    proc.getBuiltinModule = (id: string) => {
      if (blocked.has(String(id).replace(/^node:/, ""))) throw new Error(`${id} is disabled in the sandbox`);
      return getBuiltin.call(process, id);
    };
  }
  Object.freeze(JSON);
}

async function loadInterpreter(config: WorkerConfig, loadPyodide: LoadPyodide, indexURL: string): Promise<PyodideApi> {
  if (config.role === "snapshot") {
    const py = await loadPyodide({ indexURL, jsglobals: {}, _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
    py.runPython(PRELOAD_PY);
    py.runPython(HARNESS_PY);
    return py;
  }
  const snapshot = readFileSync(config.snapshotFile!);
  return loadPyodide({ indexURL, jsglobals: {}, _loadSnapshot: snapshot });
}

/**
 * Deadline and output state of one process.
 *
 * Deadlines belong to the host, which kills the process when one passes (job.ts: time the process waited for a CPU
 * is given back, sleep is not). The process only reports an input that came back after its limit, in CPU time, as a
 * timeout (`expired`, checked once per input). It does not interrupt a running input itself: CPython checks its
 * interrupt source at nearly every call, loop turn and generator step, and answering that check from JavaScript
 * (a getter that reads the clock) made Python code up to 4× slower (bench/README.md). Pyodide is given a plain
 * Int32Array instead, which it reads at the cost of a typed-array load; only output past the cap writes to it, from
 * the raw output sink, so a flood through `os.write` stops at once with KeyboardInterrupt (reported as output-limit).
 */
function interruptState(outputCapBytes: number) {
  const interruptBuffer = new Int32Array(1);
  let deadline = Infinity;
  let limitMs = Infinity;
  let armedCpuMs = 0;
  let rawOutput = 0;
  let rawExceeded = false;
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const over = (now: number): boolean => rawExceeded || (now > deadline && cpuMs() - armedCpuMs >= limitMs);
  return {
    interruptBuffer,
    rawSink: {
      write: (buf: Uint8Array) => {
        rawOutput += buf.length;
        if (rawOutput > outputCapBytes) {
          rawExceeded = true;
          // SIGINT, which Pyodide turns into KeyboardInterrupt at its next check; set again on every further write, so
          // an answer that swallows it and writes on is interrupted again (the host's deadline ends the rest).
          interruptBuffer[0] = 2;
        }
        return buf.length;
      },
    },
    arm: (ms: number) => {
      deadline = performance.now() + ms;
      limitMs = ms;
      armedCpuMs = cpuMs();
    },
    disarm: () => {
      deadline = Infinity;
    },
    expired: () => over(performance.now()),
    rawExceeded: () => rawExceeded,
    startJob: () => {
      rawOutput = 0;
      rawExceeded = false;
    },
    reset: () => {
      deadline = Infinity;
      interruptBuffer[0] = 0;
    },
  };
}

/**
 * Closes the descriptors this process inherited from the host besides 0-2 (the host lists them: isolation.ts
 * inheritedFds), before anything else runs. Node's permission model checks paths, not descriptors: an inherited
 * `31<secret.txt` or `30>>host.log` would be readable and writable from escaped code. Node's own descriptors were
 * opened after exec, so none of them can carry a listed number.
 */
function closeInherited(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // EBADF: already gone
    }
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  if (isMainThread) closeInherited(config.closeFds ?? []);
  installShims(config.memoryMb);
  const indexURL = config.pyodideDir.endsWith(path.sep) ? config.pyodideDir : config.pyodideDir + path.sep;
  // Loaded at run time from the shipped files (never bundled); the permission model allows reading only them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadPyodide } = require(path.join(indexURL, "pyodide.js")) as { loadPyodide: LoadPyodide };

  const limits = interruptState(config.outputCapBytes);

  const py = await loadInterpreter(config, loadPyodide, indexURL);
  if (config.role === "snapshot") {
    const bytes = py.makeMemorySnapshot();
    if (!isMainThread) {
      parentPort!.postMessage(bytes);
      return;
    }
    send({ type: "snapshot", bytes: bytes.length, pyodide: py.version });
    writeAll(bytes);
    process.exit(0);
  }
  py.setStdout(limits.rawSink);
  py.setStderr(limits.rawSink);
  py.setInterruptBuffer(limits.interruptBuffer);
  const ctl = {
    arm: limits.arm,
    disarm: limits.disarm,
    expired: limits.expired,
    raw_exceeded: limits.rawExceeded,
    send: (line: string) => sendLine(String(line)),
  };
  // `globals` is declared as a bare PyProxy; it is the __main__ dict.
  const entry = (py.globals as PyDict).get(config.role === "answer" ? "_sf_answer" : "_sf_expected") as (...args: unknown[]) => unknown;
  if (config.role === "answer" && isMainThread) lockDown();
  send({ type: "ready", version: PROTOCOL_VERSION, pyodide: py.version });

  const runJob = (job: Job): void => {
    limits.startJob();
    try {
      if (config.role === "answer") entry(JSON.stringify(job), ctl, config.outputCapBytes);
      else entry(JSON.stringify(job), ctl);
    } catch (e) {
      // The harness reports the answer's own failures itself; reaching here means the interpreter broke (or, in a
      // reference process, the canonical solution raised). The host reads this as the job's end.
      const message = e instanceof Error ? e.message : String(e);
      const last = message.trim().split("\n").pop() ?? message;
      const kind = /KeyboardInterrupt/.test(last) ? "timeout" : /MemoryError/.test(last) ? "memory" : "error";
      send({ type: "raise", kind, error: last.slice(0, 300) });
    } finally {
      limits.reset();
    }
  };

  let jobs = 0;
  const onLine = (line: string) => {
    if (!line.trim()) return;
    const parsed = parseHostLine(line);
    if ("error" in parsed) {
      send({ type: "fatal", message: `bad host message (${parsed.error}): ${line.slice(0, 200)}` });
      return;
    }
    jobs++;
    if (config.role === "answer" && jobs > 1) {
      send({ type: "fatal", message: "an answer process runs one job only" });
      return;
    }
    runJob(parsed.job);
    if (config.role === "answer") process.exitCode = 0;
  };
  if (isMainThread) {
    createInterface({ input: process.stdin }).on("line", onLine);
    process.stdin.on("end", () => process.exit(0));
  } else {
    parentPort!.on("message", (m: unknown) => onLine(String(m)));
  }
}

main().catch((e: unknown) => {
  try {
    send({ type: "fatal", message: e instanceof Error ? e.message.slice(0, 500) : String(e).slice(0, 500) });
  } finally {
    process.exit(71);
  }
});
