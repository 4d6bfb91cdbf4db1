import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Logger } from "../logger.js";
import { HARNESS_PY, PRELOAD_PY } from "./harness-py.js";
import { inheritedFds, nodeArgs, runtimeFingerprint, type Confinement, type SandboxFiles } from "./isolation.js";
import { PROTOCOL_VERSION, type WorkerConfig } from "./protocol.js";

/** A snapshot is ~31 MB; anything far larger is not one. */
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

export interface SnapshotOptions {
  files: SandboxFiles;
  confinement: Confinement;
  thread: boolean;
  memoryMb: number;
  /** Keep the snapshot here between runs (checked against its sha256 before use); else a private temp folder. */
  cacheDir?: string;
  logger: Logger;
}

/**
 * The Pyodide memory snapshot every sandbox interpreter is restored from: Pyodide loaded, the common modules
 * imported and the harness defined. It is made by a process of its own that never runs a job, so no answer can
 * have touched it; a cached copy is used only when its sha256 matches the one written beside it.
 */
export class SnapshotStore {
  private file: Promise<string> | undefined;
  private tmpDir: string | undefined;
  /** Time spent making the snapshot (0 when it came from the cache), ms. */
  makeMs = 0;

  constructor(private readonly options: SnapshotOptions) {}

  /** The snapshot file (made once; later calls share it). */
  get(): Promise<string> {
    this.file ??= this.load();
    return this.file;
  }

  private key(): string {
    const worker = createHash("sha256").update(readFileSync(this.options.files.workerFile)).digest("hex");
    return createHash("sha256")
      .update(JSON.stringify({ v: PROTOCOL_VERSION, runtime: runtimeFingerprint(this.options.files), harness: HARNESS_PY, preload: PRELOAD_PY, worker }))
      .digest("hex")
      .slice(0, 24);
  }

  private async load(): Promise<string> {
    const { cacheDir, logger } = this.options;
    const name = `pyodide-snapshot-${this.key()}.bin`;
    if (cacheDir) {
      const file = path.join(cacheDir, name);
      try {
        if (existsSync(file)) {
          const want = readFileSync(`${file}.sha256`, "utf8").trim();
          if (createHash("sha256").update(readFileSync(file)).digest("hex") === want) return file;
          logger.warn(`sandbox: the cached interpreter snapshot ${file} does not match its checksum; making a new one`);
        }
      } catch {
        // unreadable: make a new one
      }
    }
    const t0 = performance.now();
    const bytes = await this.make();
    this.makeMs = performance.now() - t0;
    const sum = createHash("sha256").update(bytes).digest("hex");
    if (cacheDir) {
      try {
        mkdirSync(cacheDir, { recursive: true });
        const file = path.join(cacheDir, name);
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, bytes);
        writeFileSync(`${file}.sha256.${process.pid}.tmp`, sum);
        renameSync(tmp, file);
        renameSync(`${file}.sha256.${process.pid}.tmp`, `${file}.sha256`);
        return file;
      } catch (e) {
        logger.warn(`sandbox: could not cache the interpreter snapshot in ${cacheDir}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.tmpDir = mkdtempSync(path.join(os.tmpdir(), "sf-sandbox-"));
    const file = path.join(this.tmpDir, name);
    writeFileSync(file, bytes, { mode: 0o400 });
    return file;
  }

  private make(): Promise<Buffer> {
    const { files, confinement, memoryMb } = this.options;
    const config: WorkerConfig = { role: "snapshot", pyodideDir: files.pyodideDir, memoryMb, outputCapBytes: 1 };
    if (this.options.thread) {
      return new Promise((resolve, reject) => {
        const worker = new Worker(files.workerFile, { workerData: config, env: {}, stdout: true, stderr: true });
        worker.once("message", (m: unknown) => {
          void worker.terminate();
          if (m instanceof Uint8Array) resolve(Buffer.from(m));
          else reject(new Error(`the sandbox could not make its interpreter snapshot: ${String(m).slice(0, 300)}`));
        });
        worker.once("error", (e) => reject(e));
      });
    }
    return new Promise((resolve, reject) => {
      const readable = [files.workerFile, files.pyodideDir];
      const command = [...confinement.prefix(readable), process.execPath, ...nodeArgs(files, readable, 512), files.workerFile, JSON.stringify({ ...config, closeFds: inheritedFds() })];
      const child = spawn(command[0]!, command.slice(1), { env: { ELECTRON_RUN_AS_NODE: "1" }, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        size += d.length;
        if (size > MAX_SNAPSHOT_BYTES + 4096) child.kill("SIGKILL");
        else chunks.push(d);
      });
      child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-2000)));
      child.on("error", reject);
      child.on("exit", (code) => {
        const all = Buffer.concat(chunks);
        const nl = all.indexOf(10);
        try {
          if (code !== 0 || nl < 0) throw new Error(`exit code ${code}`);
          const header = JSON.parse(all.subarray(0, nl).toString("utf8")) as { type?: string; bytes?: number };
          const body = all.subarray(nl + 1);
          if (header.type !== "snapshot" || header.bytes !== body.length) throw new Error("truncated output");
          resolve(body);
        } catch (e) {
          reject(new Error(`the sandbox could not make its interpreter snapshot (${e instanceof Error ? e.message : String(e)}): ${stderr.trim().split("\n").slice(-3).join(" | ")}`));
        }
      });
    });
  }

  /** Removes a temporary snapshot (a cached one stays). */
  dispose(): void {
    if (this.tmpDir) rmSync(this.tmpDir, { recursive: true, force: true });
    this.tmpDir = undefined;
  }
}
