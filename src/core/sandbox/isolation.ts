import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SkillFollowingError } from "../errors.js";
import { NATIVE_CAPS } from "./native.js";

/** How generated code is contained; recorded in the run header. */
export type Isolation = "process-permission" | "native-confined" | "worker-fallback";

/**
 * The OS layer around each sandbox process, strongest first:
 * - `bubblewrap`: own PID, mount, IPC, UTS and network namespaces; a private root where only the system's library
 *   folders, the node binary, the Pyodide runtime and the snapshot are visible, read-only; an empty tmpfs as the
 *   working folder; dies with its parent; no capabilities; a new session.
 * - `unshare`: own PID, IPC and network namespaces (bubblewrap is not installed): no network and no signals to host
 *   processes, but the host's file tree stays visible (read-only to the process only through the permission model).
 * - `none`: no namespaces (macOS, Windows, kernels or containers that forbid them): the permission model, the
 *   per-answer process and the host-side checks are all there is; escaped code could reach loopback or LAN.
 */
export type ConfinementKind = "bubblewrap" | "unshare" | "none";

export interface Confinement {
  kind: ConfinementKind;
  /**
   * The command prefix for a process that may read `readable` (absolute paths). `native`: the process is a native
   * interpreter with no permission model of its own (native.ts), so bubblewrap also makes the root and /dev read-only,
   * caps /tmp at 16 MB and forbids further user namespaces. `template` (native only): the warm template's process
   * (template.ts), which stays in the host's PID namespace and may create user namespaces, because it forks each
   * answer into namespaces of its own (a PID, user, mount and IPC namespace per answer); `socketDir` is bound at
   * TEMPLATE_SOCKET_DIR for the answers' connections to the host.
   */
  prefix(readable: string[], options?: { native?: boolean; template?: { socketDir: string } }): string[];
  /** One line for the run header and the log. */
  describe: string;
  /** Whether sandbox processes have any network at all. */
  network: "namespace" | "host";
  /**
   * bubblewrap as probed, for the run header's runtime choice: its version when it is the confinement ("bwrap 0.8.0"),
   * else why it is not ("bwrap not found", "bwrap failed its probe", "SF_SANDBOX_CONFINE=unshare").
   */
  bubblewrap?: string;
}

export interface SandboxFiles {
  distDir: string;
  workerFile: string;
  /** With a trailing separator, as loadPyodide's indexURL wants it. */
  pyodideDir: string;
  /** Node's permission flag this runtime honours (`--permission` or `--experimental-permission`), or undefined. */
  permissionFlag?: string;
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
      hintIds: ["log"],
    });
  }
  return { distDir: dist, workerFile, pyodideDir };
}

/**
 * Finds the permission flag this runtime honours (`--permission` on Node >= 22, `--experimental-permission` on 20)
 * and checks it is enforced, not just accepted: a probe child allowed to read only the Pyodide folder must get
 * ERR_ACCESS_DENIED reading the node binary. Probed once per process.
 */
let permissionProbe: string | null | undefined;
export function probeIsolation(files: SandboxFiles): Isolation {
  if (permissionProbe === undefined) {
    permissionProbe = null;
    const probe = `try { require("fs").readFileSync(${JSON.stringify(process.execPath)}); process.exit(3) } catch (e) { process.exit(e && e.code === "ERR_ACCESS_DENIED" ? 0 : 4) }`;
    for (const flag of ["--permission", "--experimental-permission"]) {
      const r = spawnSync(process.execPath, [flag, `--allow-fs-read=${files.pyodideDir}`, "-e", probe], { env: { ELECTRON_RUN_AS_NODE: "1" }, timeout: 15000, stdio: "ignore" });
      if (r.status === 0) {
        permissionProbe = flag;
        break;
      }
    }
  }
  if (permissionProbe) files.permissionFlag = permissionProbe;
  return permissionProbe ? "process-permission" : "worker-fallback";
}

/** Node flags of a sandbox process: the permission model with a read allow-list, and no code from strings. */
export function nodeArgs(files: SandboxFiles, readable: string[], maxOldSpaceMb: number, allowCodeGeneration = false): string[] {
  return [
    files.permissionFlag!,
    ...readable.map((p) => `--allow-fs-read=${p}`),
    // `Function("...")` and eval are how escaped Python ran JavaScript; Pyodide needs neither.
    ...(allowCodeGeneration ? [] : ["--disallow-code-generation-from-strings"]),
    `--max-old-space-size=${maxOldSpaceMb}`,
    "--no-warnings",
  ];
}

function which(cmd: string): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin", ...(process.env.PATH ?? "").split(path.delimiter)]) {
    const p = path.join(dir, cmd);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

/** Folders a confined node needs to start: its binary's folder and the system library folders. */
function runtimeMounts(): string[] {
  const exec = realpathSync(process.execPath);
  const dirs = ["/usr", "/lib", "/lib64", "/lib32", "/libx32"].filter((d) => existsSync(d));
  const execDir = path.dirname(exec);
  if (!dirs.some((d) => execDir === d || execDir.startsWith(d + "/"))) dirs.push(execDir);
  return dirs;
}

/** setpriv to the overflow uid/gid ("nobody"), which owns no file the sandbox could use. */
function dropRoot(): string[] {
  const setpriv = which("setpriv");
  if (!setpriv) throw new SkillFollowingError("The CPython sandbox runs as root here and needs util-linux's setpriv to start as an unprivileged user.", { hint: "Install util-linux, or choose the pyodide runtime.", hintIds: ["sandboxPython"] });
  return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"];
}

/** Where the warm template's answers find the host's socket (a folder of the host's, bound read-only). */
export const TEMPLATE_SOCKET_DIR = "/run/sf";

function bubblewrapPrefix(bwrap: string): Confinement["prefix"] {
  const mounts = runtimeMounts();
  return (readable, options) => {
    const binds = [...mounts, ...readable].flatMap((p) => ["--ro-bind", p, p]);
    const native = options?.native === true;
    const template = native ? options?.template : undefined;
    return [
      // As root, the kernel never applies RLIMIT_NPROC (the driver's thread cap, native.ts): the CPython sandbox then
      // starts as an unprivileged uid, which owns its own user namespace all the same.
      ...(native && process.getuid?.() === 0 ? dropRoot() : []),
      bwrap,
      // The template keeps the host's PID namespace, so that the pids it reports are the host's (the host watches and
      // kills each answer by pid); every answer it forks gets a PID namespace of its own (template.ts).
      ...(template ? ["--unshare-user", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"] : ["--unshare-all"]),
      ...(native && !template ? ["--unshare-user", "--disable-userns"] : []),
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--clearenv",
      "--setenv",
      "ELECTRON_RUN_AS_NODE",
      "1",
      // The tmpfs first: a bind below /tmp (a temporary snapshot) must land on top of it, not under it.
      ...(native ? ["--size", String(NATIVE_CAPS.tmpMb * 1024 * 1024)] : []),
      "--tmpfs",
      "/tmp",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      ...binds,
      ...(template ? ["--ro-bind", template.socketDir, TEMPLATE_SOCKET_DIR] : []),
      // Last, once every mount point exists: bubblewrap's root and /dev are tmpfs, writable (host memory) otherwise.
      ...(native ? ["--remount-ro", "/dev", "--remount-ro", "/"] : []),
      "--chdir",
      "/tmp",
      "--",
    ];
  };
}

/**
 * Runs a probe node inside a candidate prefix and checks, rather than assumes, what it promises: a network namespace
 * other than the host's with no interface but loopback, a PID namespace other than the host's, and for bubblewrap
 * none of the host's home, working or temporary folders visible.
 */
function probePrefix(prefix: string[], privateRoot: boolean): boolean {
  const hidden = [os.homedir(), process.cwd(), os.tmpdir()].filter((p) => p && p !== "/" && p !== "/tmp");
  const probe = [
    `const fs = require("fs"); const ns = (k) => { try { return fs.readlinkSync("/proc/self/ns/" + k) } catch { return "" } };`,
    `process.stdout.write(JSON.stringify({ net: ns("net"), pid: ns("pid"), ifaces: Object.keys(require("os").networkInterfaces()),`,
    `  seen: ${JSON.stringify(hidden)}.filter((p) => fs.existsSync(p)) }));`,
  ].join(" ");
  const [cmd, ...args] = [...prefix, process.execPath, "-e", probe];
  const r = spawnSync(cmd, args, { env: { ELECTRON_RUN_AS_NODE: "1" }, timeout: 15000, stdio: ["ignore", "pipe", "ignore"], encoding: "utf8" });
  if (r.status !== 0) return false;
  try {
    const got = JSON.parse(r.stdout) as { net: string; pid: string; ifaces: string[]; seen: string[] };
    const own = (k: string) => readlinkSync(`/proc/self/ns/${k}`);
    return got.net !== "" && got.net !== own("net") && got.pid !== "" && got.pid !== own("pid") && got.ifaces.every((i) => i === "lo") && (!privateRoot || got.seen.length === 0);
  } catch {
    return false;
  }
}

/** Linux: util-linux's setpriv, so the kernel kills a sandbox process whose host died, even one stuck in C code. */
function deathSignal(): string[] {
  const setpriv = process.platform === "linux" ? which("setpriv") : undefined;
  return setpriv ? [setpriv, "--pdeathsig", "KILL", "--"] : [];
}

let confinement: Confinement | undefined;

/** The strongest confinement this system really enforces (probed once per process; SF_SANDBOX_CONFINE=none|unshare forces a weaker one). */
export function probeConfinement(): Confinement {
  if (confinement) return confinement;
  const forced = process.env.SF_SANDBOX_CONFINE;
  let bubblewrap = process.platform === "linux" ? "bwrap not found" : `no bubblewrap on ${process.platform}`;
  if (process.platform === "linux" && forced !== "none") {
    const bwrap = forced === "unshare" ? undefined : which("bwrap");
    if (forced === "unshare") bubblewrap = "SF_SANDBOX_CONFINE=unshare";
    if (bwrap) {
      const prefix = bubblewrapPrefix(bwrap);
      if (probePrefix(prefix([]), true)) {
        confinement = {
          kind: "bubblewrap",
          prefix,
          network: "namespace",
          describe: "bubblewrap: own PID, mount, IPC and network namespaces; private read-only root (system libraries, node, the Python runtime); no network",
          bubblewrap: bubblewrapVersion(bwrap),
        };
        return confinement;
      }
      bubblewrap = `${bwrap} failed its probe (no namespaces here?)`;
    }
    const unshare = which("unshare");
    if (unshare) {
      for (const flags of [["--user", "--map-root-user", "--net", "--pid", "--ipc", "--kill-child"], ["--net", "--pid", "--ipc", "--kill-child"]]) {
        // setpriv: the kernel kills unshare when the host dies (even by SIGKILL), and --kill-child takes node with it.
        const prefix = [...deathSignal(), unshare, ...flags, "--"];
        if (probePrefix(prefix, false)) {
          confinement = {
            kind: "unshare",
            prefix: () => prefix,
            network: "namespace",
            describe: "unshare: own PID, IPC and network namespaces; no network; host files visible to the process, readable only through the permission model (install bubblewrap for a private root)",
            bubblewrap,
          };
          return confinement;
        }
      }
    }
  }
  const prefix = deathSignal();
  confinement = {
    kind: "none",
    prefix: () => prefix,
    network: "host",
    describe: "no OS namespaces here: permission model and a fresh process per answer only; code escaping through the FFI could reach the network",
    bubblewrap: forced === "none" ? "SF_SANDBOX_CONFINE=none" : bubblewrap,
  };
  return confinement;
}

/** "bwrap 0.8.0" (`bwrap --version` says "bubblewrap 0.8.0"), or the path when it does not say. */
function bubblewrapVersion(bwrap: string): string {
  const r = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 15000, stdio: ["ignore", "pipe", "ignore"] });
  const v = /(\d+\.\d+(?:\.\d+)?)/.exec(r.stdout ?? "")?.[1];
  return v ? `bwrap ${v}` : `bwrap at ${bwrap}`;
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

/** O_CLOEXEC in /proc/<pid>/fdinfo's octal `flags` field (Linux, every architecture node runs on). */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors every child of this process inherits besides 0-2: those open here without close-on-exec. Node and
 * libuv open everything with O_CLOEXEC, so these are what this process itself inherited (`cli run 30>>log 31<secret`,
 * a pipe the shell left open, descriptors of the editor's host) — and libuv's spawn passes them on to every child.
 * A Pyodide sandbox process closes them (worker-entry.ts) before it loads Pyodide: Node's permission model does not
 * check reads and writes on an already-open descriptor. Read afresh before each spawn (Linux; elsewhere empty, and the
 * README says so). A descriptor listed here occupies its number in the child at exec time, so the child's own
 * descriptors, opened after exec, can never be one of them.
 */
export function inheritedFds(): number[] {
  if (process.platform !== "linux") return [];
  const fds: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return [];
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) fds.push(fd);
    } catch {
      // closed meanwhile (the readdir's own descriptor, or an fs call of this process's thread pool): not inherited
    }
  }
  return fds;
}
