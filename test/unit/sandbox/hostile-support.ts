/**
 * The harness of the hostile suites (hostile.test.ts, hostile-variants.test.ts, hostile-unconfined.test.ts): the host
 * resources an attack aims at, two graders, and the checks every case makes.
 *
 * Host resources: a marker folder (a fake shell start-up file, a secret file), a TCP server on the loopback and a
 * pathname Unix socket that count connections, a sacrificial process that writes a marker when it gets SIGUSR1
 * (what opens a node process's inspector), and the sha256 of every runtime file the sandbox processes share.
 *
 * Graders: `normal` is the product's sandbox, where escaped Python cannot run JavaScript at all (no code generation
 * from strings). `redTeam` lets escaped Python run JavaScript inside the answer's process, to show that the layers
 * beneath hold on their own. Each grader has its own caches, so a later grader can share them.
 *
 * Every case asserts: the verdict (FAIL, with a reason of the expected kind); the host's state; and what comes next,
 * graded afresh (answers no cache has seen): a wrong answer fails and the canonical answer passes in the same pool.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import inspector from "node:inspector";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { createPythonGrader, type PythonGrader } from "../../../src/core/grading/python-grader.js";
import { inheritedFds } from "../../../src/core/sandbox/isolation.js";
import type { PythonFunctionTask } from "../../../src/core/tasks/schema.js";
import { sandboxDist, snapshotCache } from "./support.js";

export const LIMIT_MS = 1000;

// Expected outputs an answer cannot compute: the canonical solution mixes in a secret that only it holds. An answer
// that passes must have read the expected outputs from somewhere — which it must never be able to.
const SECRET = "s3cr3t-" + Math.random().toString(36).slice(2);
export const secretTask: PythonFunctionTask = {
  id: "hostile/secret",
  kind: "python-function",
  prompt: "Write tag(a, b).",
  entryPoint: "tag",
  canonicalSolution: `import hashlib\ndef tag(a, b):\n    return hashlib.sha256(repr((a, b, ${JSON.stringify(SECRET)})).encode()).hexdigest()[:12]\n`,
  tests: { base: [[1, 2], [3, 4]], plus: [[10, 5]], atol: 0, oracle: "default" },
};
export const addTask: PythonFunctionTask = {
  id: "hostile/add",
  kind: "python-function",
  prompt: "Write add(a, b).",
  entryPoint: "add",
  canonicalSolution: "def add(a, b):\n    return a + b\n",
  tests: { base: [[1, 2], [3, 4]], plus: [[10, 5]], atol: 0, oracle: "default" },
};
/** Float outputs, for the NaN and infinity cases. */
export const halfTask: PythonFunctionTask = {
  id: "hostile/half",
  kind: "python-function",
  prompt: "Write half(a).",
  entryPoint: "half",
  canonicalSolution: "def half(a):\n    return a / 2\n",
  tests: { base: [[1], [3]], plus: [[0]], atol: 0, oracle: "default" },
};
export const WRONG = "def add(a, b):\n    return a - b\n";

/** Python that runs a JavaScript snippet through the FFI and keeps its result (works only where code generation is allowed). */
export const js = (code: string) => `import js\n_r = js.constructor.constructor(${JSON.stringify(code)})()\n`;
/** A JS snippet's helper: runs `f` and returns its result or the error's code and message, as a string. */
export const TRY = "const t = (f) => { try { return String(f()); } catch (e) { return 'ERR ' + (e.code || '') + ' ' + e.message; } };";
export const addReturning = (expr: string) => `def add(a, b):\n    return ${expr}\n`;
export const tagReturning = (expr: string) => `def tag(a, b):\n    return ${expr}\n`;

/** `native`: the opt-in CPython runtime (native.ts), where the answer is native code with every system call the filter allows. */
export type Mode = "normal" | "redTeam" | "native";

export interface Case {
  name: string;
  /** The answer's code; PORT, SOCK, HOSTPID, PID, TMP are filled in. */
  code: string;
  task?: PythonFunctionTask;
  reason: RegExp;
  /**
   * Which graders run it. Default: both when the answer runs JavaScript (`js(…)`), else only `normal` — for Python
   * alone the two graders are the same sandbox (they differ only in whether code generation from strings is allowed).
   */
  only?: Mode;
  hostCheck?: (h: Harness) => void;
}

export interface Harness {
  tmp: string;
  caches: { cacheDir: string; verdictCacheDir: string };
  graders: Record<"normal" | "redTeam", PythonGrader> & { native?: PythonGrader };
  sacrificial: ChildProcess;
  /** Connections the host's TCP and Unix-socket servers received. */
  connections(): number;
  fill(code: string): string;
  marker(name: string): string;
  graderOptions(): Promise<Parameters<typeof createPythonGrader>[0]>;
  warnings: string[];
  dispose(): Promise<void>;
}

const START_FILE = "# a shell start-up file\n";

/**
 * sha256 of every file under `dir` that sandbox processes share (the Python runtime, the interpreter snapshots).
 * The worker bundle itself is left out: other test files rebuild it (to the same bytes) while this one runs.
 */
function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const f = path.join(dir, name);
    if (/sandbox-worker\.js/.test(name) || !statSync(f).isFile()) continue;
    out.set(f, createHash("sha256").update(readFileSync(f)).digest("hex"));
  }
  return out;
}

export async function startHarness(label: string, options: { native?: boolean } = {}): Promise<Harness> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `sf-${label}-`));
  const caches = { cacheDir: path.join(tmp, "expected"), verdictCacheDir: path.join(tmp, "verdicts") };
  writeFileSync(path.join(tmp, "secret.txt"), "TOP-SECRET");
  writeFileSync(path.join(tmp, "profile"), START_FILE);
  let connections = 0;
  const count = (s: { destroy(): void }) => {
    connections++;
    s.destroy();
  };
  const tcp: Server = createServer(count);
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", () => r()));
  const tcpPort = (tcp.address() as { port: number }).port;
  const unixPath = path.join(tmp, "host.sock");
  const unix: Server = createServer(count);
  await new Promise<void>((r) => unix.listen(unixPath, () => r()));
  // Writes a marker on SIGUSR1 (node's "open the inspector" signal), and dies on any kill.
  const usr1 = path.join(tmp, "usr1-received");
  const sacrificial = spawn(process.execPath, ["-e", `process.on("SIGUSR1", () => require("fs").writeFileSync(${JSON.stringify(usr1)}, "usr1")); setInterval(() => {}, 1000)`], { stdio: "ignore" });
  const distDir = await sandboxDist();
  const runtime = new Map([...hashTree(distDir), ...hashTree(snapshotCache)]);
  const warnings: string[] = [];
  const graderOptions = async () => ({
    distDir,
    poolSize: 2,
    memoryMb: 256,
    minTimeLimitMs: LIMIT_MS,
    taskCapMs: 3000,
    graceMs: 250,
    rssLimitBytes: 1024 * 1024 * 1024,
    logger: { trace() {}, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} },
  });
  const opts = await graderOptions();
  const graders: Harness["graders"] = {
    normal: createPythonGrader({ ...opts, ...caches }),
    redTeam: createPythonGrader({ ...opts, cacheDir: path.join(tmp, "rt-expected"), verdictCacheDir: path.join(tmp, "rt-verdicts"), unsafeAllowCodeGeneration: true }),
    ...(options.native ? { native: createPythonGrader({ ...opts, cacheDir: path.join(tmp, "native-expected"), verdictCacheDir: path.join(tmp, "native-verdicts"), python: "cpython" }) } : {}),
  };
  await Promise.all([graders.normal.ready(), graders.redTeam.ready(), graders.native?.ready()]);
  const fill = (code: string) =>
    code
      .replaceAll("PORT", String(tcpPort))
      .replaceAll("SOCK", `'${unixPath}'`)
      .replaceAll("HOSTPID", String(process.pid))
      .replaceAll("PID", String(sacrificial.pid))
      .replaceAll("TMP", `'${tmp}'`)
      .replaceAll("INHERITED_FDS", JSON.stringify(inheritedFds()));
  return {
    tmp,
    caches,
    graders,
    sacrificial,
    connections: () => connections,
    fill,
    marker: (name) => path.join(tmp, name),
    graderOptions,
    warnings,
    async dispose() {
      await graders.normal.dispose();
      await graders.redTeam.dispose();
      await graders.native?.dispose();
      await graders.normal.dispose(); // idempotent
      sacrificial.kill("SIGKILL");
      tcp.close();
      unix.close();
      const now = new Map([...hashTree(distDir), ...hashTree(snapshotCache)]);
      for (const [f, h] of runtime) if (now.has(f)) assert.equal(now.get(f), h, `${f} changed: a sandbox process wrote to the shared runtime`);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** What every attack must leave as it was. */
export function assertHostUntouched(h: Harness): void {
  assert.equal(h.connections(), 0, "no host socket received a connection");
  assert.equal(h.sacrificial.exitCode, null, "the sacrificial process is alive");
  assert.equal(h.sacrificial.signalCode, null, "the sacrificial process was not killed");
  assert.ok(!existsSync(h.marker("usr1-received")), "the sacrificial process received no SIGUSR1");
  assert.equal(inspector.url(), undefined, "the host's inspector is closed (no SIGUSR1 reached the host)");
  assert.equal(readFileSync(h.marker("profile"), "utf8"), START_FILE, "the shell start-up file is unchanged");
  assert.ok(!existsSync(path.join(process.cwd(), "node_trace.1.log")), "no trace file in the host's working folder");
}

const modesOf = (k: Case): Mode[] => (k.only ? [k.only] : k.code.includes("js.constructor.constructor") ? ["normal", "redTeam"] : ["normal"]);

let fresh = 0;
/** An answer no cache has seen (a comment changes its hash), so it is graded by a new process. */
export const uncached = (code: string) => `${code}\n# fresh ${++fresh} ${process.pid}\n`;

/** Registers the cases for both graders; each runs the attack, checks the host, then grades a wrong and a canonical answer afresh. */
export function hostileCases(title: string, harness: () => Harness, cases: readonly Case[], modes: readonly Mode[] = ["normal", "redTeam"]): void {
  for (const mode of modes) {
    const what = { normal: "the product's sandbox", redTeam: "red team: escaped code may run JavaScript", native: "the CPython runtime: native code under bubblewrap and seccomp" }[mode];
    describe(`${title} (${what})`, () => {
      for (const c of cases.filter((k) => modesOf(k).includes(mode))) {
        test(c.name, async () => {
          const h = harness();
          const grader = h.graders[mode];
          assert.ok(grader, `the harness was started without the ${mode} grader`);
          const task = c.task ?? addTask;
          const verdict = await grader.grade(task, h.fill(c.code));
          assert.equal(verdict.pass, false, `${c.name} must fail: ${verdict.reason}`);
          assert.match(verdict.reason, c.reason);
          c.hostCheck?.(h);
          assertHostUntouched(h);
          // What comes next is unaffected: a wrong answer fails, the canonical answer passes (fresh processes, side by side).
          const [wrong, canonical] = await Promise.all([grader.grade(addTask, uncached(WRONG)), grader.grade(task, uncached(task.canonicalSolution))]);
          assert.equal(wrong.reason, "base input #0 [1, 2]: expected 3, got -1 (stopped there: 2 more inputs not run)");
          assert.equal(canonical.pass, true, canonical.reason);
        });
      }
    });
  }
}

/** A later grader sharing the caches of `normal` grades a wrong answer wrong and the canonical ones right. */
export async function assertLaterPoolGrades(h: Harness): Promise<void> {
  assertHostUntouched(h);
  const later = createPythonGrader({ ...(await h.graderOptions()), ...h.caches });
  try {
    assert.equal((await later.grade(addTask, WRONG)).pass, false);
    assert.equal((await later.grade(addTask, uncached(WRONG))).pass, false);
    assert.equal((await later.grade(secretTask, tagReturning("'x'"))).pass, false);
    assert.equal((await later.grade(secretTask, secretTask.canonicalSolution)).pass, true);
    assert.equal((await later.grade(secretTask, uncached(secretTask.canonicalSolution))).pass, true);
    assert.equal((await later.grade(halfTask, uncached(halfTask.canonicalSolution))).pass, true);
  } finally {
    await later.dispose();
  }
}
