/**
 * Issue 23, item 1: an answer inherits nothing. The CLI is started the way a shell or a CI script might start it, with
 * descriptors it does not know about left open: a log file open for appending (fd 30), a secret file open for reading
 * (31), a TCP socket to a server of this test (33) and a pipe holding a secret (251). libuv's spawn does not close them
 * and bubblewrap does not either, so on the original code every sandbox process — answers, reference processes, spares
 * — had them open: a CPython answer read the secret into the run file and wrote into the log.
 *
 * Two views, both runtimes:
 * - from inside: an answer lists /proc/self/fd, reads the inherited numbers, writes to the log's, and returns what it
 *   saw (the verdict's reason carries it into the run file). In Pyodide this is Emscripten's table, not the process's:
 *   the Node process's real table is what escaped code would use, hence
 * - from outside: while the CLI runs, this test reads /proc/<pid>/fd of every sandbox process under it. Only processes
 *   that have used more CPU than a sandbox process needs to start are judged (the probe answer spins for that long), so
 *   a process caught between exec and its trusted start-up code does not count either way; no wall-clock bound.
 * The same runs grade a correct and a wrong answer, to show the checker still works.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { bySubstring, pythonAnswer, taskPlanScript } from "../../support/scripts.js";
import { cli, FAKE_KEY, tempWorkspace, verdictsOf } from "./harness.js";

const linux = process.platform === "linux";
const CLK_TCK = 100;
/** CPU a sandbox process has used before it is judged: past its start-up (Pyodide ~0.6–0.9 s, CPython ~0.05 s). */
const JUDGE_AFTER_CPU_S = 1.5;

const PROBE = [
  "import errno, os, time",
  "def probe():",
  "    try:",
  "        listed = sorted(int(f) for f in os.listdir('/proc/self/fd'))",
  "    except OSError as e:",
  "        listed = [type(e).__name__]",
  "    got = []",
  "    for fd in (30, 31, 33, 251):",
  "        try:",
  "            got.append('%d:read=%r' % (fd, os.read(fd, 64)))",
  "        except OSError as e:",
  "            got.append('%d:%s' % (fd, errno.errorcode.get(e.errno)))",
  "    try:",
  "        os.write(30, b'WRITTEN-BY-ANSWER\\n')",
  "        got.append('30:written')",
  "    except OSError as e:",
  "        got.append('30w:%s' % errno.errorcode.get(e.errno))",
  // CPU time, not wall time: long enough that the process is judged from outside while it is surely past start-up.
  "    t = time.process_time()",
  "    while time.process_time() - t < 3:",
  "        pass",
  "    return 'fds=%s %s' % (','.join(map(str, listed)), ' '.join(got))",
].join("\n");

const tasks = [
  { id: "probe", kind: "python-function", prompt: "Write probe().", entryPoint: "probe", canonicalSolution: "def probe():\n    return 'ok'\n", tests: { base: [[]], plus: [] } },
  { id: "add", kind: "python-function", prompt: "Write add(a, b).", entryPoint: "add", canonicalSolution: "def add(a, b):\n    return a + b\n", tests: { base: [[1, 2], [5, 7]], plus: [] } },
  { id: "sub", kind: "python-function", prompt: "Write sub(a, b).", entryPoint: "sub", canonicalSolution: "def sub(a, b):\n    return a - b\n", tests: { base: [[9, 2]], plus: [] } },
];
const same = (code: string) => ({ disabled: pythonAnswer(code), enabled: [{ answer: pythonAnswer(code) }] });
const script = taskPlanScript(
  bySubstring({
    "Write probe()": same(PROBE),
    "Write add(a, b)": same("def add(a, b):\n    return a + b"),
    "Write sub(a, b)": same("def sub(a, b):\n    return a + b"),
  }),
);

/** pid → ppid for every process now. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      out.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  return out;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

interface Seen {
  judged: number;
  leaks: Set<string>;
}

/** Every sandbox process under `root` that has run past its start-up: what its descriptors point at, if inherited. */
function sample(root: number, inherited: Map<string, string>, seen: Seen, runtime: string): void {
  const ppid = parents();
  const under = (pid: number) => {
    for (let p = ppid.get(pid); p !== undefined && p > 1; p = ppid.get(p)) if (p === root) return true;
    return false;
  };
  for (const pid of ppid.keys()) {
    if (!under(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("sandbox-worker.js") && !cmd.includes("_sf_proto_send")) continue;
      if (cmd.startsWith("/usr/bin/bwrap") || cmd.includes("setpriv")) continue; // the wrappers, not the interpreter
      if (cpuSeconds(pid) < JUDGE_AFTER_CPU_S) continue;
      seen.judged++;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        let target: string;
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const what = inherited.get(target);
        if (what) seen.leaks.add(`${runtime} pid ${pid} fd ${fd} → ${what} (${target})`);
      }
    } catch {
      // the process ended meanwhile
    }
  }
}

describe("cli: an answer inherits none of the descriptors the CLI was started with (a file, a pipe, a socket at fds 30, 31, 33, 251)", { skip: linux ? false : "Linux only" }, () => {
  let server: ScriptedServer;
  let tcp: Server;
  let ws: string;
  const received: string[] = [];
  const sockets: Socket[] = [];
  before(async () => {
    server = await startScriptedServer({ script });
    ws = tempWorkspace();
    writeFileSync(path.join(ws, "tasks.jsonl"), tasks.map((t) => JSON.stringify(t)).join("\n") + "\n");
    writeFileSync(path.join(ws, "secret.txt"), "FILE-SECRET-31\n");
    tcp = createServer((s) => {
      sockets.push(s);
      s.on("data", (d: Buffer) => received.push(d.toString()));
      s.on("error", () => {});
      s.write("SOCKET-SECRET-33\n");
    });
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    tcp?.close();
    await server?.close();
  });

  for (const runtime of ["pyodide", "cpython"] as const) {
    it(`${runtime}: only stdin, stdout, stderr and the protocol channel are open in every sandbox process; the log, the secret, the pipe and the socket are out of reach; a right and a wrong answer are still graded right`, async () => {
      const log = path.join(ws, `host-${runtime}.log`);
      writeFileSync(log, "");
      const out = path.join(ws, "runs", `${runtime}.jsonl`);
      const port = (tcp.address() as { port: number }).port;
      // As a shell would start it: `node dist/cli.js run … 30>>host.log 31<secret.txt 33<>/dev/tcp/… 251< <(printf …)`.
      const shell = [
        'exec 30>>"$1" 31<"$2" 33<>"/dev/tcp/127.0.0.1/$3" 251< <(printf PIPE-SECRET-251)',
        "shift 3",
        'exec "$@"',
      ].join("\n");
      const args = ["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--python", runtime, "--out", out];
      const child = spawn("bash", ["-c", shell, "sh", log, path.join(ws, "secret.txt"), String(port), process.execPath, cli, ...args], {
        cwd: ws,
        env: { PATH: process.env.PATH ?? "", HOME: ws, OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: server.url },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const done = new Promise<number | null>((r) => child.on("close", r));
      // What the CLI's inherited descriptors point at, read from the CLI itself once bash has exec'd it.
      const inherited = new Map<string, string>();
      const seen: Seen = { judged: 0, leaks: new Set() };
      let closed = false;
      void done.then(() => (closed = true));
      while (!closed) {
        const pid = child.pid!;
        if (inherited.size < 4) {
          try {
            if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(cli)) {
              for (const [fd, what] of [["30", "the host log"], ["31", "the secret file"], ["33", "the socket"], ["251", "the pipe"]] as const) inherited.set(readlinkSync(`/proc/${pid}/fd/${fd}`), what);
            }
          } catch {
            // not exec'd yet
          }
        } else {
          sample(pid, inherited, seen, runtime);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const code = await done;
      assert.equal(code, 0, stderr + stdout);
      assert.equal(inherited.size, 4, "the CLI had the four descriptors open");
      assert.ok(seen.judged > 0, "at least one sandbox process was judged past its start-up");
      assert.deepEqual([...seen.leaks], [], "no sandbox process holds a descriptor the CLI inherited");
      assert.equal(readFileSync(log, "utf8"), "", "nothing was written to the host log");
      assert.ok(!received.some((r) => r.length > 0), "the socket's server received nothing");
      const runText = readFileSync(out, "utf8");
      for (const secret of ["FILE-SECRET-31", "SOCKET-SECRET-33", "PIPE-SECRET-251"]) assert.ok(!runText.includes(secret), `${secret} is not in the run file`);
      const verdicts = Object.entries(verdictsOf(out));
      const of = (id: string) => verdicts.filter(([k]) => k.includes(id)).map(([, v]) => v);
      assert.equal(of("add").length, 2);
      for (const v of of("add")) assert.match(v, /^pass: passed all 2 inputs/);
      for (const v of of("sub")) assert.match(v, /^fail: base input #0 \[9, 2\]: expected 7, got 11/);
      for (const v of of("probe")) {
        // Reads of 30, 31, 33 and 251 and the write to 30 all fail: no such descriptor.
        assert.match(v, / 30:EBADF 31:EBADF 33:EBADF 251:EBADF 30w:EBADF'/, v);
        // CPython's own table: 0-2, the protocol channel (3) and the listing's descriptor (4).
        if (runtime === "cpython") assert.match(v, /got 'fds=0,1,2,3,4 /, v);
      }
    });
  }
});
