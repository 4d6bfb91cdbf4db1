import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SkillFollowingError } from "../errors.js";

/** How generated code is contained; recorded in the run header. */
export type Isolation = "process-permission" | "worker-fallback";

export interface SandboxFiles {
  distDir: string;
  workerFile: string;
  /** With a trailing separator, as loadPyodide's indexURL wants it. */
  pyodideDir: string;
  /** Node flags for the child: the permission flag and the read allow-list (nothing else is granted). */
  permissionArgs: string[];
  /** Command prefix that puts the child in a network namespace without network (Linux, where allowed), else []. */
  networkPrefix: string[];
}

const RUNTIME_FILES = ["pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];

/**
 * The folder with sandbox-worker.js and pyodide/: the given one, else the folder of the running bundle when
 * it holds the worker (the shipped extension and CLI), else <repo>/dist (running from sources via tsx).
 */
export function defaultDistDir(): string {
  if (existsSync(path.join(__dirname, "sandbox-worker.js"))) return __dirname;
  return path.resolve(__dirname, "../../../dist");
}

export function locateSandboxFiles(distDir?: string): SandboxFiles {
  const dist = path.resolve(distDir ?? defaultDistDir());
  const workerFile = path.join(dist, "sandbox-worker.js");
  const pyodideDir = path.join(dist, "pyodide") + path.sep;
  const missing = [workerFile, ...RUNTIME_FILES.map((f) => path.join(pyodideDir, f))].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    // A missing runtime file would crash the worker with an unhandled rejection, so check first.
    throw new SkillFollowingError(`The Python sandbox is not built: missing ${missing.map((m) => path.relative(dist, m)).join(", ")} in ${dist}`, {
      hint: "Run `npm run build` (it bundles the sandbox worker and copies Pyodide's runtime files into dist/).",
      action: "showLog",
    });
  }
  return { distDir: dist, workerFile, pyodideDir, permissionArgs: [], networkPrefix: [] };
}

/**
 * Finds the permission flag this runtime honours (`--permission` on Node >= 22, `--experimental-permission`
 * on 20) and checks it is enforced, not just accepted: a probe child allowed to read only the Pyodide folder
 * must get ERR_ACCESS_DENIED reading the node binary. Fills `files.permissionArgs` on success.
 */
/**
 * Linux: the command prefix that starts a worker in a network namespace of its own (no interface but a loopback
 * that is down), or undefined where this kernel or container does not allow one. Checked, not assumed: the probe
 * child must get ENETUNREACH connecting to 127.0.0.1. Unprivileged users need user namespaces (`--user
 * --map-root-user`); root in a container without them may still have `--net` alone. Probed once per process.
 */
let networkPrefix: string[] | null | undefined;
export function probeNetworkIsolation(): string[] | undefined {
  if (networkPrefix !== undefined) return networkPrefix ?? undefined;
  networkPrefix = null;
  const unshare = process.platform === "linux" && existsSync("/usr/bin/unshare") ? "/usr/bin/unshare" : undefined;
  if (!unshare) return undefined;
  const probe = `const s = require("net").connect(9, "127.0.0.1"); s.on("connect", () => process.exit(3)); s.on("error", (e) => process.exit(e.code === "ENETUNREACH" ? 0 : 4)); setTimeout(() => process.exit(5), 5000);`;
  for (const flags of [["--user", "--map-root-user", "--net"], ["--net"]]) {
    const r = spawnSync(unshare, [...flags, "--", process.execPath, "-e", probe], { env: { ELECTRON_RUN_AS_NODE: "1" }, timeout: 15000, stdio: "ignore" });
    if (r.status === 0) {
      networkPrefix = [unshare, ...flags, "--"];
      return networkPrefix;
    }
  }
  return undefined;
}

export function probeIsolation(files: SandboxFiles): Isolation {
  const probe = `try { require("fs").readFileSync(${JSON.stringify(process.execPath)}); process.exit(3) } catch (e) { process.exit(e && e.code === "ERR_ACCESS_DENIED" ? 0 : 4) }`;
  for (const flag of ["--permission", "--experimental-permission"]) {
    const args = [flag, `--allow-fs-read=${files.pyodideDir}`, `--allow-fs-read=${files.workerFile}`];
    const r = spawnSync(process.execPath, [...args, "-e", probe], { env: { ELECTRON_RUN_AS_NODE: "1" }, timeout: 15000, stdio: "ignore" });
    if (r.status === 0) {
      files.permissionArgs = args;
      return "process-permission";
    }
  }
  return "worker-fallback";
}

/** What the Python runtime is (Pyodide's version, CPython's, the ABI): part of every cached verdict's key. */
export function runtimeFingerprint(files: SandboxFiles): string {
  const read = (f: string): unknown => {
    try {
      return JSON.parse(readFileSync(path.join(files.pyodideDir, f), "utf8")) as unknown;
    } catch {
      return null;
    }
  };
  const lock = read("pyodide-lock.json") as { info?: unknown } | null;
  const pkg = read("package.json") as { version?: unknown } | null;
  return JSON.stringify({ pyodide: pkg?.version ?? null, info: lock?.info ?? null });
}
