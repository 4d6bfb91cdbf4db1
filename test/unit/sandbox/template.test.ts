/**
 * The CPython runtime's warm template (template.ts, native.ts TEMPLATE_PY): each answer process is a fork of a trusted
 * interpreter that never ran an answer. What must hold is what a freshly spawned process gave: two answers never share
 * a process or anything one of them left behind, an answer cannot reach the template (or the host) it was forked from,
 * the per-answer caps stay per answer, and a template that dies or cannot start costs speed, never a verdict.
 * The hostile suites (native.test.ts, hostile-variants.test.ts) run through the template as well, since it is the
 * default.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { descendants } from "../../../src/core/sandbox/job.js";
import { NATIVE_CAPS } from "../../../src/core/sandbox/native.js";
import { SandboxPool } from "../../../src/core/sandbox/runner.js";

const linux = process.platform === "linux";
const skip = linux ? false : "the CPython runtime is Linux only";

let pool: SandboxPool;
const dispatched: number[] = [];
before(() => {
  if (linux) pool = SandboxPool.create({ python: "cpython", poolSize: 2, onDispatch: (p) => dispatched.push(p.pid ?? -1) });
});
after(async () => {
  await pool?.finish();
});

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** The host pids of the running templates below this test process: a python whose parent is bubblewrap and whose program is the template's. */
function templates(): number[] {
  return descendants(process.pid).filter((p) => read(`/proc/${p}/cmdline`).includes("_sf_template()") && read(`/proc/${p}/comm`).startsWith("python") && read(`/proc/${read(`/proc/${p}/stat`).split(") ")[1]?.split(" ")[1]}/comm`).trim() === "bwrap");
}

/** Counted polls (no clock): until `ok()` holds, or a generous number of turns. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(ok(), `waited for ${what}`);
}

/** No process by that pid any more, or only its zombie. */
const gone = (pid: number) => {
  const state = read(`/proc/${pid}/stat`).split(") ")[1]?.[0];
  return state === undefined || state === "Z" || state === "X";
};

test("each answer runs in a process of its own, forked from one template, that nothing ran in before and that is gone afterwards", { skip }, async () => {
  await pool.exec("pass", 5000);
  const [template] = templates();
  assert.ok(template, "one template runs below this process");
  const first = dispatched.length;
  const code = [
    "import builtins, json, os, random",
    "seen = getattr(builtins, '_sf_mark', None)",
    "builtins._sf_mark = 'set by an earlier answer'",
    "tmp = sorted(os.listdir('/tmp'))",
    "open('/tmp/left-behind', 'w').write('x')",
    "print(json.dumps({'seen': seen, 'tmp': tmp, 'pid': os.getpid(), 'rand': random.random()}))",
  ].join("\n");
  const runs = await Promise.all(Array.from({ length: 6 }, () => pool.exec(code, 10_000)));
  const outs = runs.map((r) => {
    assert.equal(r.error, undefined, r.error);
    return JSON.parse(r.stdout) as { seen: unknown; tmp: string[]; pid: number; rand: number };
  });
  for (const o of outs) {
    assert.equal(o.seen, null, "no answer sees what another set in its interpreter");
    assert.deepEqual(o.tmp, [], "no answer sees a file another left in /tmp");
    assert.equal(o.pid, 2, "the answer is the second process of its own PID namespace (its init is the first)");
  }
  assert.equal(new Set(outs.map((o) => o.rand)).size, 6, "random is reseeded in each answer process, not the template's sequence");
  const pids = dispatched.slice(first);
  assert.equal(pids.length, 6);
  assert.ok(pids.every((p) => p > 0));
  assert.equal(new Set(pids).size, 6, "six answers, six host processes");
  assert.deepEqual(templates(), [template], "the same template forked them all, and it is not one of them");
  assert.ok(!pids.includes(template));
  await until(() => pids.every(gone), "every answer process to be gone");
  assert.match(pool.detail, /each answer process forked from a warm template/);
});

test("an answer cannot see, signal or read the template, the host's socket or its own capabilities", { skip }, async () => {
  await pool.exec("pass", 5000);
  const [template] = templates();
  assert.ok(template);
  const code = [
    "import json, os, socket",
    "r = {}",
    `T = ${template}`,
    "try:\n    os.kill(T, 0)\n    r['kill'] = 'sent'\nexcept OSError as e:\n    r['kill'] = e.errno",
    "try:\n    open('/proc/%d/mem' % T, 'rb')\n    r['mem'] = 'opened'\nexcept OSError as e:\n    r['mem'] = e.errno",
    "r['proc'] = sorted(p for p in os.listdir('/proc') if p.isdigit())",
    "r['ppid'] = os.getppid()",
    "r['run'] = os.listdir('/run/sf')",
    "try:\n    socket.socket(socket.AF_UNIX)\n    r['socket'] = 'made'\nexcept OSError as e:\n    r['socket'] = e.errno",
    "r['caps'] = [l.split()[1] for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapPrm', 'CapInh'))]",
    "r['fds'] = {fd: os.readlink('/proc/self/fd/%s' % fd).split(':')[0] for fd in ('0', '1', '2', '3')}",
    "r['sid'] = os.getsid(0) == os.getpid()",
    "print(json.dumps(r))",
  ].join("\n");
  const r = await pool.exec(code, 10_000);
  assert.equal(r.error, undefined, r.error);
  const got = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(got, {
    kill: 3, // ESRCH: the template has no pid in the answer's namespace
    mem: 2, // ENOENT: nor an entry in its /proc
    proc: ["1", "2"],
    ppid: 0,
    run: [],
    socket: 1, // EPERM: the seccomp filter
    caps: ["0000000000000000", "0000000000000000", "0000000000000000"],
    // The job comes in on 0 and the protocol goes out on 3; what the answer writes to 1 and 2 is dropped.
    fds: { "0": "socket", "1": "/dev/null", "2": "/dev/null", "3": "socket" },
    sid: true,
  });
  // A signal to every process it may signal finds none: its namespace holds only its init (which kill(-1) spares, as
  // it spares the caller).
  const everyone = await pool.exec("import os\nos.kill(-1, 9)", 10_000);
  assert.equal(everyone.error, "ProcessLookupError: [Errno 3] No such process", JSON.stringify(everyone));
  // Its process group is a session of its own: a signal to it reaches only itself.
  for (const attack of ["os.kill(0, 9)", "os.killpg(0, 9)"]) {
    const killed = await pool.exec(`import os\n${attack}\nprint('still here')`, 10_000);
    assert.equal(killed.kind, "sandbox", `${attack}: ${JSON.stringify(killed)}`);
    assert.match(killed.error ?? "", /ended/);
  }
  assert.deepEqual(templates(), [template], "the template outlived them");
  const after = await pool.exec("print(6 * 7)", 10_000);
  assert.equal(after.stdout.trim(), "42");
});

test("the task cap counts each answer's own tasks: an answer holding most of it does not starve the next", { skip }, async () => {
  const hold = 48;
  const abort = new AbortController();
  // Before the call: a warm spare takes the job at once, inside exec().
  const first = dispatched.length;
  const holding = pool.exec(`import threading, time\nthreading.stack_size(32768)\nfor _ in range(${hold}):\n    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()\ntime.sleep(1000)`, 120_000, { signal: abort.signal });
  holding.catch(() => {});
  const threads = (pid: number) => Number(/Threads:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0);
  await until(() => dispatched.length > first && threads(dispatched[first]!) > hold, `the first answer to hold ${hold} threads`);
  const count = await pool.exec("import threading, time\nthreading.stack_size(32768)\nn = 0\ntry:\n    while n < 1000:\n        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()\n        n += 1\nexcept RuntimeError:\n    pass\nprint(n)", 60_000);
  assert.ok(threads(dispatched[first]!) > hold, "the first answer still held its threads meanwhile");
  abort.abort();
  const n = Number(count.stdout.trim());
  // Its leader, its namespace's init and its main thread are three of the cap's tasks.
  assert.equal(n, NATIVE_CAPS.tasks - 3, `the second answer started ${n} threads while the first held ${hold}`);
});

test("a template that dies is replaced: the next answers are graded by a new one", { skip }, async () => {
  await pool.exec("pass", 5000);
  const [template] = templates();
  assert.ok(template);
  process.kill(template, "SIGKILL");
  await until(() => !templates().includes(template), "the template to be gone");
  // The spares forked before the kill (two at most: the pool's size) die with it, and a job handed to one before its
  // end is seen ends as a sandbox failure (which the grader re-checks); what comes after is forked by the new template.
  let r = await pool.exec("print(6 * 7)", 10_000);
  for (let lost = 0; r.kind === "sandbox" && lost < 2; lost++) r = await pool.exec("print(6 * 7)", 10_000);
  assert.equal(r.stdout.trim(), "42", JSON.stringify(r));
  // A spare may also answer in the moment before its end reaches it. Either way the pool starts a new template for
  // the spares that replace them, and the next answer is forked from it.
  await until(() => templates().length === 1 && templates()[0] !== template, "a new template");
  const next = templates()[0]!;
  r = await pool.exec("print(6 * 7)", 10_000);
  for (let lost = 0; r.kind === "sandbox" && lost < 2; lost++) r = await pool.exec("print(6 * 7)", 10_000);
  assert.equal(r.stdout.trim(), "42", JSON.stringify(r));
  assert.deepEqual(templates(), [next]);
});

/** The host pids of the forked answer processes below this test process: pid 2 of a PID namespace of their own. */
const answerProcesses = () => descendants(process.pid).filter((p) => /^NSpid:\s+\d+\s+2\s*$/m.test(read(`/proc/${p}/status`)) && read(`/proc/${p}/cmdline`).includes("_sf_template()"));

test("spares that end while they wait for a job are replaced (a queued answer waited for good before)", { skip, timeout: 60_000 }, async () => {
  await pool.exec("pass", 5000);
  // Exactly the pool's two: answer processes of the template the test before killed may still be on their way out
  // (one ended between this list and its kill in a CI-like run: ESRCH).
  await until(() => pool.spareStartMs.length >= 2 && answerProcesses().length === 2, "two ready spares, and no other answer process");
  const spares = answerProcesses();
  for (const pid of spares) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (e) {
      // Gone already is what the kill was for.
      if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
    }
  }
  await until(() => spares.every(gone), "the spares to be gone");
  // Replaced: two new answer processes wait, without any job asking for them. (Left in the list, the dead ones kept
  // the pool from starting others, and a queued answer waited for good.)
  await until(() => answerProcesses().filter((p) => !spares.includes(p)).length >= 2, "two new spares");
  const r = await pool.exec("print(6 * 7)", 10_000);
  assert.equal(r.stdout.trim(), "42", JSON.stringify(r));
  assert.ok(!spares.includes(dispatched.at(-1)!), "the answer ran in a new process");
});

test("a namespace's init ends with its leader, however early: nothing of a disposed pool's spares is left", { skip }, async () => {
  // Pools of their own memory size, so that only their processes are counted (the command line holds the config).
  const mine = (p: number) => read(`/proc/${p}/cmdline`).includes('"memoryMb":333,') && read(`/proc/${p}/cmdline`).includes("_sf_template()");
  const inits = () => readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => mine(p) && /^NSpid:\s+\d+\s+1\s*$/m.test(read(`/proc/${p}/status`)) && !gone(p));
  // Pools disposed right after their spares were forked: a leader killed before its init first ran left that init
  // alive for good (a death signal set after the fork never came), under the host's pid 1.
  for (let i = 0; i < 12; i++) {
    const p = SandboxPool.create({ python: "cpython", poolSize: 2, memoryMb: 333 });
    await p.ready();
    await p.finish();
  }
  await until(() => inits().length === 0, "every init of those pools to end");
});

test("where the template cannot start, each answer process is spawned and the run header says why", { skip }, async () => {
  // A temporary folder so deep that the template's socket path cannot be bound (over 107 bytes).
  const deep = path.join(os.tmpdir(), "sf-deep-" + "d".repeat(100));
  mkdirSync(deep, { recursive: true });
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = deep;
  const warnings: string[] = [];
  const spawned = SandboxPool.create({ python: "cpython", poolSize: 1, logger: { debug: () => {}, info: () => {}, warn: (m: string) => warnings.push(m), error: () => {} } as never });
  try {
    const r = await spawned.exec("import os\nprint(os.getpid(), 6 * 7)", 10_000);
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.stdout.trim(), "2 42", "a spawned answer is pid 2 under bubblewrap's init");
    assert.match(spawned.detail, /each answer process spawned \(warm template unavailable: the template's socket path .* is longer than 107 bytes/);
    assert.ok(warnings.some((w) => w.includes("the warm template cannot run")), warnings.join("\n"));
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    await spawned.finish();
    rmSync(deep, { recursive: true, force: true });
  }
});

test("template: false spawns each answer process, as before", { skip }, async () => {
  const spawned = SandboxPool.create({ python: "cpython", poolSize: 1, template: false });
  try {
    const r = await spawned.exec("print(6 * 7)", 10_000);
    assert.equal(r.stdout.trim(), "42");
    assert.doesNotMatch(spawned.detail, /template/);
  } finally {
    await spawned.finish();
  }
});
