/**
 * Sandbox worker: runs Python (Pyodide) jobs for the host-side runner. Normally a child process under Node's
 * permission model (read-only access to the Pyodide files and this file; no writes, no child processes, no
 * workers, empty environment); in fallback mode a worker thread with the same protocol. Bundled by
 * esbuild.mjs to dist/sandbox-worker.js; it must not import anything that is not bundled.
 */
import { constants as fsConstants, writeSync } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { HARNESS_PY } from "./harness-py.js";
import { HostMessageSchema, PROTOCOL_VERSION, WorkerConfigSchema, type Job, type JobResult, type WorkerConfig, type WorkerMessage } from "./protocol.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- Pyodide is loaded at run time from the shipped files, untyped */
type PyodideApi = any;

// Captured before any user code runs: later monkey-patching of fs/process by escaped code cannot intercept it.
const rawWrite = writeSync;
const napArray = new Int32Array(new SharedArrayBuffer(4));
/** Writes a whole line to fd 1: a pipe may take only part of it (or say EAGAIN) when the host reads slowly. */
function writeAll(text: string): void {
  const buf = Buffer.from(text, "utf8");
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
const send: (msg: WorkerMessage) => void = isMainThread
  ? (msg) => writeAll(JSON.stringify(msg) + "\n")
  : (msg) => parentPort!.postMessage(JSON.stringify(msg));

function readConfig(): WorkerConfig {
  const raw: unknown = isMainThread ? JSON.parse(process.argv[2] ?? "{}") : workerData;
  return WorkerConfigSchema.parse(raw);
}

/** Pyodide's NODEFS reads `process.binding('constants')`, which the permission model denies. */
function installShims(memoryMb: number): void {
  const proc = process as any;
  const original = proc.binding.bind(process);
  proc.binding = (name: string) => (name === "constants" ? { fs: fsConstants, os: osConstants } : original(name));
  // Wasm memory is not covered by resourceLimits: cap growth so a runaway allocation gets MemoryError.
  const cap = memoryMb * 1024 * 1024;
  const memoryProto = (globalThis as any).WebAssembly.Memory.prototype;
  const grow = memoryProto.grow;
  memoryProto.grow = function (this: { buffer: ArrayBuffer }, delta: number): number {
    if (this.buffer.byteLength + delta * 65536 > cap) throw new RangeError("sandbox memory cap reached");
    return grow.call(this, delta);
  };
  // Compile Pyodide's 9.6 MB wasm once and instantiate every fresh interpreter from that module: creation is
  // faster, and all instances share V8's tiered-up code, so a fresh interpreter runs as fast as the warm one
  // that timed the canonical solution (otherwise the per-input limits would be unfair to candidates).
  const wasm = (globalThis as any).WebAssembly;
  const instantiate = wasm.instantiate;
  let compiled: Promise<unknown> | undefined;
  wasm.instantiate = async function (source: any, imports: unknown) {
    if (!(source instanceof wasm.Module) && source?.byteLength > 5_000_000) {
      compiled ??= wasm.compile(source);
      const module = await compiled;
      return { module, instance: await instantiate.call(wasm, module, imports) };
    }
    return instantiate.call(wasm, source, imports);
  };
  // Pyodide and escaped code may log through console; stdout is our protocol channel.
  const toStderr = (...args: unknown[]) => void process.stderr.write(args.map(String).join(" ") + "\n");
  // eslint-disable-next-line no-console -- redirecting console is the point: it must never reach the protocol channel
  console.log = console.info = console.warn = console.error = console.debug = toStderr;
}

interface Interpreter {
  py: PyodideApi;
  run: (jobJson: string, ctl: unknown, cap: number) => string;
  createdMs: number;
}

async function main(): Promise<void> {
  const config = readConfig();
  installShims(config.memoryMb);
  const t0 = performance.now();
  const indexURL = config.pyodideDir.endsWith(path.sep) ? config.pyodideDir : config.pyodideDir + path.sep;
  // Loaded at run time from the shipped files (never bundled); the permission model allows reading only them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadPyodide } = require(path.join(indexURL, "pyodide.js"));

  // Deadline state read by Pyodide's signal check (it reads index 0 of the "interrupt buffer" periodically).
  let deadline = Infinity;
  let nextFire = 0;
  let rawOutput = 0;
  let rawExceeded = false;
  const interruptBuffer = {
    get 0(): number {
      const now = performance.now();
      // Fire repeatedly (every 20 ms) so code that swallows KeyboardInterrupt is hit again; the host's hard
      // kill covers code that swallows forever.
      if (now > deadline && now >= nextFire) {
        nextFire = now + 20;
        return 2;
      }
      return 0;
    },
    set 0(_v: number) {},
  };
  const rawSink = {
    write: (buf: Uint8Array) => {
      rawOutput += buf.length;
      if (rawOutput > config.outputCapBytes) {
        rawExceeded = true;
        deadline = 0;
      }
      return buf.length;
    },
  };

  const base = await loadPyodide({ indexURL, jsglobals: {}, _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
  // Modules the harness and typical solutions import, so each fresh instance starts warm.
  base.runPython("import sys, os, io, json, time, pickle, base64, copy, math, re, posix, collections, itertools, functools, heapq, bisect, string, typing, fractions, decimal, statistics");
  const snapshot: Uint8Array = base.makeMemorySnapshot();
  const version: string = base.version;

  async function fresh(): Promise<Interpreter> {
    const t = performance.now();
    const py = await loadPyodide({ indexURL, jsglobals: {}, _loadSnapshot: snapshot });
    py.setStdout(rawSink);
    py.setStderr(rawSink);
    py.setInterruptBuffer(interruptBuffer);
    py.runPython(HARNESS_PY);
    py.runPython(SLEEP_PATCH);
    const run = py.globals.get("_sf_run");
    return { py, run, createdMs: performance.now() - t };
  }

  let spare: Promise<Interpreter> = fresh();
  let trusted: Interpreter | undefined;
  await spare;
  send({ type: "ready", version: PROTOCOL_VERSION, pyodide: version, coldStartMs: performance.now() - t0 });

  const ctlFor = (id: number, nonce: string) => ({
    arm: (ms: number) => {
      deadline = performance.now() + ms;
      nextFire = 0;
    },
    disarm: () => {
      deadline = Infinity;
    },
    expired: () => performance.now() > deadline,
    progress: (index: number, limitMs: number) => send({ type: "progress", id, nonce, index, limitMs }),
  });

  async function runJob(id: number, nonce: string, job: Job): Promise<void> {
    let interp: Interpreter;
    let interpreterMs = 0;
    if (job.mode === "expected") {
      // Canonical solutions are trusted and share one interpreter, as EvalPlus computes ground truth in one process.
      if (!trusted) {
        trusted = await spare;
        interpreterMs = trusted.createdMs;
        spare = fresh();
      }
      interp = trusted;
    } else {
      interp = await spare;
      interpreterMs = interp.createdMs;
    }
    rawOutput = 0;
    rawExceeded = false;
    // Tell the host the job really starts now, so interpreter creation does not eat into its deadline.
    send({ type: "progress", id, nonce, index: -1, limitMs: job.mode === "check" ? (job.phases[0]?.capMs ?? 4000) : job.capMs });
    let result: JobResult;
    let dying = false;
    try {
      const text = interp.run(JSON.stringify(job), ctlFor(id, nonce), config.outputCapBytes);
      result = JSON.parse(text) as JobResult;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const isPython = e instanceof Error && e.constructor?.name === "PythonError";
      const last = message.trim().split("\n").pop() ?? message;
      const kind = /KeyboardInterrupt/.test(last) ? "timeout" : /MemoryError/.test(last) ? "memory" : isPython ? "error" : "sandbox";
      result = { status: "fail", kind, error: kind === "sandbox" ? `interpreter crashed: ${last.slice(0, 300)}` : last.slice(0, 300) };
      if (!isPython) dying = true;
      if (job.mode === "expected") trusted = undefined;
    } finally {
      deadline = Infinity;
    }
    if (rawExceeded && result.status === "fail") result = { ...result, kind: "output-limit" };
    if (job.mode !== "expected") spare = fresh(); // the used interpreter is dropped; never reused
    send({ type: "result", id, nonce, result, heapBytes: process.memoryUsage().rss, interpreterMs, ...(dying ? { dying } : {}) });
    if (dying) process.exit(70);
  }

  // One job at a time: Python blocks the event loop anyway, and the host never sends a second one early.
  let queue: Promise<void> = Promise.resolve();
  const onLine = (line: string) => {
    if (!line.trim()) return;
    let parsed;
    try {
      parsed = HostMessageSchema.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      send({ type: "fatal", message: `bad host message: ${line.slice(0, 200)}` });
      return;
    }
    const msg = parsed.data;
    queue = queue.then(() => runJob(msg.id, msg.nonce, msg.job));
  };
  if (isMainThread) {
    createInterface({ input: process.stdin }).on("line", onLine);
    process.stdin.on("end", () => process.exit(0));
  } else {
    parentPort!.on("message", (m: unknown) => onLine(String(m)));
  }
}

/** time.sleep in chunks, so the deadline interrupt (checked between bytecodes) can land while "sleeping". */
const SLEEP_PATCH = `
import time as _t
def _sf_sleep(seconds, _real=_t.sleep, _mono=_t.monotonic):
    end = _mono() + seconds
    while True:
        left = end - _mono()
        if left <= 0:
            return
        _real(min(left, 0.02))
_t.sleep = _sf_sleep
del _t
`;

main().catch((e: unknown) => {
  try {
    send({ type: "fatal", message: e instanceof Error ? `${e.message}` : String(e) });
  } finally {
    process.exit(71);
  }
});
