/**
 * What each confinement tier of the sandbox gives at the OS layer alone (no permission model, no lock-down: a plain
 * node process started with the tier's prefix), as the README's Safety section states it per platform:
 * - bubblewrap: own PID, mount, IPC and network namespaces; no host process, socket or file in reach;
 * - unshare (Linux without bubblewrap): own PID, IPC and network namespaces; no signals to host processes and no
 *   network, but the host's files are visible and its pathname Unix sockets are not hidden;
 * - none (macOS, Windows, or a Linux that forbids namespaces): the host's processes, network and files are all in
 *   reach, so the layers inside the process are all there is (hostile-unconfined.test.ts tests those).
 * Each tier is probed in a child process of its own (`SF_SANDBOX_CONFINE`), since a process probes only once.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";

const isolation = path.resolve(__dirname, "../../../src/core/sandbox/isolation.ts");
const linux = process.platform === "linux";

interface Seen {
  pid: number;
  ns: Record<string, string>;
  signal: string;
  tcp: string;
  unix: string;
  file: string;
}

/** The tier's command prefix, from a child that probes with SF_SANDBOX_CONFINE set (empty: the strongest tier). */
function confinement(forced: string): { kind: string; prefix: string[] } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", `const m = await import(${JSON.stringify(isolation)}); const c = (m.probeConfinement ?? m.default.probeConfinement)(); console.log(JSON.stringify({ kind: c.kind, prefix: c.prefix([]) }))`], {
    env: { ...process.env, SF_SANDBOX_CONFINE: forced },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim()) as { kind: string; prefix: string[] };
}

describe("confinement tiers at the OS layer", { skip: linux ? false : "Linux only" }, () => {
  let tmp: string;
  let tcp: Server;
  let unix: Server;
  let port = 0;
  let sock = "";
  let connections = 0;
  let sacrificial: ChildProcess;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "sf-confinement-"));
    writeFileSync(path.join(tmp, "secret.txt"), "TOP-SECRET");
    const count = (s: { destroy(): void }) => {
      connections++;
      s.destroy();
    };
    tcp = createServer(count);
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", () => r()));
    port = (tcp.address() as { port: number }).port;
    sock = path.join(tmp, "host.sock");
    unix = createServer(count);
    await new Promise<void>((r) => unix.listen(sock, () => r()));
    sacrificial = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  });
  after(() => {
    sacrificial?.kill("SIGKILL");
    tcp?.close();
    unix?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs the OS-layer probe under a tier's prefix: namespaces, a signal, a TCP and a Unix connection, a host file. */
  async function probe(prefix: string[]): Promise<Seen> {
    const code = `
      const fs = require("fs"), net = require("net");
      const ns = {}; for (const n of ["pid", "net", "ipc", "mnt"]) { try { ns[n] = fs.readlinkSync("/proc/self/ns/" + n) } catch (e) { ns[n] = e.code } }
      let signal; try { process.kill(${sacrificial.pid}, 0); signal = "delivered" } catch (e) { signal = e.code }
      let file; try { file = fs.readFileSync(${JSON.stringify(path.join(tmp, "secret.txt"))}, "utf8") } catch (e) { file = e.code }
      const connect = (to) => new Promise((r) => { const s = net.connect(to); s.on("connect", () => { s.destroy(); r("connected") }); s.on("error", (e) => r(e.code)) });
      Promise.all([connect({ port: ${port}, host: "127.0.0.1" }), connect(${JSON.stringify(sock)})]).then(([tcp, unix]) => process.stdout.write(JSON.stringify({ pid: process.pid, ns, signal, tcp, unix, file })));`;
    const [cmd, ...args] = [...prefix, process.execPath, "-e", code];
    const child = spawn(cmd!, args, { env: { ELECTRON_RUN_AS_NODE: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await new Promise((r) => child.on("close", r));
    assert.ok(out.trim().startsWith("{"), `probe printed nothing: ${err}`);
    return JSON.parse(out) as Seen;
  }
  const host = (n: string) => readlinkSync(`/proc/self/ns/${n}`);

  it("bubblewrap: own PID, mount, IPC and network namespaces; no host process, socket or file in reach", async () => {
    const c = confinement("");
    if (c.kind !== "bubblewrap") {
      assert.notEqual(process.env.CI, "true", "CI installs bubblewrap: the strongest tier must be in force");
      return;
    }
    const before = connections;
    const seen = await probe(c.prefix);
    for (const n of ["pid", "net", "ipc", "mnt"]) assert.notEqual(seen.ns[n], host(n), `${n} namespace`);
    assert.ok(seen.pid <= 2, `pid ${seen.pid}`);
    assert.equal(seen.signal, "ESRCH", "host processes are not there to signal");
    assert.match(seen.tcp, /^(ECONNREFUSED|ENETUNREACH)$/, "the loopback is the namespace's own");
    assert.equal(seen.unix, "ENOENT", "the host's Unix sockets are not in the private root");
    assert.equal(seen.file, "ENOENT", "the host's files are not in the private root");
    assert.equal(connections, before);
  });

  it("unshare: own PID, IPC and network namespaces (no signals, no network); host files visible, pathname sockets not hidden", async () => {
    const c = confinement("unshare");
    if (c.kind !== "unshare") return; // no usable unshare here: the next tier applies
    const before = connections;
    const seen = await probe(c.prefix);
    for (const n of ["pid", "net", "ipc"]) assert.notEqual(seen.ns[n], host(n), `${n} namespace`);
    assert.equal(seen.ns.mnt, host("mnt"), "the host's mount namespace: its file tree is visible");
    assert.equal(seen.signal, "ESRCH");
    assert.match(seen.tcp, /^(ECONNREFUSED|ENETUNREACH)$/, "the namespace's own network (its loopback may be down)");
    assert.equal(seen.file, "TOP-SECRET", "readable at the OS layer: only the permission model keeps it from an answer");
    assert.equal(seen.unix, "connected", "a pathname Unix socket is a file: a network namespace does not hide it");
    assert.equal(connections, before + 1);
  });

  it("none: the host's processes, loopback, sockets and files are all in reach at the OS layer", async () => {
    const c = confinement("none");
    assert.equal(c.kind, "none");
    const before = connections;
    const seen = await probe(c.prefix);
    for (const n of ["pid", "net", "ipc", "mnt"]) assert.equal(seen.ns[n], host(n), `${n} namespace`);
    assert.equal(seen.signal, "delivered");
    assert.equal(seen.tcp, "connected");
    assert.equal(seen.unix, "connected");
    assert.equal(seen.file, "TOP-SECRET");
    assert.equal(connections, before + 2);
  });
});
