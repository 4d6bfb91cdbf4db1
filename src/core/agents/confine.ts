/**
 * Confinement of a harness run with bubblewrap. Inside: a private root on tmpfs holding read-only system folders
 * (/usr and its merged-usr links, /etc), the harness's own files and node read-only; the workspace at /workspace
 * and a private HOME at /home/agent, the only writable folders that outlive the run; own PID, IPC, UTS, cgroup
 * and network namespaces, so the only network is loopback. The model proxy is a Unix socket on the host,
 * bind-mounted in; a small forwarder (node, started first inside the sandbox) listens on 127.0.0.1:FORWARD_PORT and
 * pipes each connection to that socket, then runs the harness as its child. The environment is cleared: the
 * harness gets only what the runner sets (never the user's key).
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";

export const SANDBOX_WORKSPACE = "/workspace";
export const SANDBOX_HOME = "/home/agent";
const SANDBOX_RUN = "/run/skill-following";
export const SANDBOX_SOCKET = `${SANDBOX_RUN}/proxy.sock`;
export const SANDBOX_FORWARDER = `${SANDBOX_RUN}/forwarder.cjs`;
/** The loopback port the forwarder listens on inside the sandbox's own network namespace. */
export const FORWARD_PORT = 18080;

/**
 * The forwarder: TCP on loopback → the proxy's Unix socket; then runs the harness and exits with its status. Its
 * descriptor 3 is a lifeline, a pipe whose only writer is the evaluation: when the evaluation dies (SIGKILL
 * included) the pipe reads end-of-file and the forwarder kills the harness and exits, so the sandbox goes with it.
 * bubblewrap's --die-with-parent alone misses an evaluation killed before bwrap has set it up (seen under load: a
 * sandbox left running, its parent gone).
 */
export const FORWARDER_SOURCE = `"use strict";
const net = require("net");
const { spawn } = require("child_process");
const [socketPath, port, ...command] = process.argv.slice(2);
let child;
const lifeline = new net.Socket({ fd: 3, readable: true, writable: false });
const orphaned = () => { if (child) child.kill("SIGKILL"); process.exit(137); };
lifeline.on("data", () => {});
lifeline.on("end", orphaned);
lifeline.on("error", orphaned);
// No Nagle on the harness's side: its requests and the proxy's replies would otherwise wait for delayed ACKs.
const server = net.createServer({ noDelay: true }, (client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(Number(port), "127.0.0.1", () => {
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => { process.stderr.write("cannot start the harness: " + err.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code === null ? 128 + (signal === "SIGKILL" ? 9 : 15) : code));
});
`;

export function findBwrap(): string | undefined {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin", ...(process.env.PATH ?? "").split(path.delimiter)]) {
    if (!dir) continue;
    const p = path.join(dir, "bwrap");
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Whether bubblewrap really starts namespaces here (user namespaces can be disabled even where it is installed). */
export function bwrapWorks(bwrap: string): boolean {
  const r = spawnSync(bwrap, ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 15_000 });
  return r.status === 0;
}

export interface BwrapLayout {
  bwrap: string;
  /** Host folders bound read-write at SANDBOX_WORKSPACE and SANDBOX_HOME. */
  workspace: string;
  home: string;
  /** Host path of the proxy's Unix socket and of the forwarder script. */
  socket: string;
  forwarder: string;
  /** Host folders the harness needs read-only at the same path (its package's files). */
  readOnly: readonly string[];
  /** The environment inside (HOME, PATH, … and the adapter's); nothing else passes. */
  env: Record<string, string>;
}

/** The folders of the system a shell and node need, bound read-only (symlinks kept as links). */
function systemMounts(): string[] {
  const args: string[] = [];
  for (const dir of ["/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    let stat: string | undefined;
    try {
      stat = realpathSync(dir);
    } catch {
      continue;
    }
    if (stat !== dir) args.push("--symlink", path.relative("/", stat), dir);
    else args.push("--ro-bind", dir, dir);
  }
  return args;
}

/** bwrap's argv up to and including `--`; what follows is node, the forwarder, and the harness's argv. */
export function bwrapArgv(layout: BwrapLayout): string[] {
  const node = path.dirname(realpathSync(process.execPath));
  const extra = [node, ...layout.readOnly].filter((d) => !d.startsWith("/usr/"));
  return [
    layout.bwrap,
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    ...Object.entries(layout.env).flatMap(([k, v]) => ["--setenv", k, v]),
    "--setenv",
    "ELECTRON_RUN_AS_NODE",
    "1",
    "--tmpfs",
    "/",
    ...systemMounts(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    ...[...new Set(extra)].flatMap((d) => ["--ro-bind", d, d]),
    "--dir",
    SANDBOX_RUN,
    "--ro-bind",
    layout.forwarder,
    SANDBOX_FORWARDER,
    "--bind",
    layout.socket,
    SANDBOX_SOCKET,
    "--bind",
    layout.workspace,
    SANDBOX_WORKSPACE,
    "--bind",
    layout.home,
    SANDBOX_HOME,
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_WORKSPACE,
    "--",
    process.execPath,
    SANDBOX_FORWARDER,
    SANDBOX_SOCKET,
    String(FORWARD_PORT),
  ];
}
