import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createPythonGrader, type PythonGrader } from "../../../src/core/grading/python-grader.js";
import type { PythonFunctionTask } from "../../../src/core/tasks/schema.js";
import { sandboxDist } from "./support.js";

// Hostile answers to a trivial task. Each must: fail with a reason, end within its deadline plus grace,
// leave the host untouched, and leave the grader able to grade the next (honest) answer.
const LIMIT_MS = 1000;
const GRACE_MS = 150;
// Interpreter creation and scheduling on a loaded 2-core CI box; the deadline itself is LIMIT_MS + GRACE_MS.
const SLACK_MS = 2500;
// A replacement sandbox process's cold start (Pyodide load) on a loaded 2-core box, before a re-check can run.
const RESPAWN_MS = 6000;

const task: PythonFunctionTask = {
  id: "hostile/add",
  kind: "python-function",
  prompt: "Write add(a, b).",
  entryPoint: "add",
  canonicalSolution: "def add(a, b):\n    return a + b\n",
  tests: { base: [[1, 2], [3, 4]], plus: [], atol: 0, oracle: "default" },
};

let grader: PythonGrader;
let tmp: string;
let secret: string;
let server: Server;
let port = 0;
let connections = 0;

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "sf-hostile-"));
  secret = path.join(tmp, "secret.txt");
  writeFileSync(secret, "TOP-SECRET");
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as { port: number }).port;
  grader = createPythonGrader({ distDir: await sandboxDist(), poolSize: 1, memoryMb: 256, minTimeLimitMs: LIMIT_MS, graceMs: GRACE_MS, taskCapMs: 3000 });
  await grader.ready();
});

after(async () => {
  await grader.dispose();
  await grader.dispose(); // idempotent
  server.close();
  rmSync(tmp, { recursive: true, force: true });
});

const ffi = (js: string) => `import js\nf = js.constructor.constructor(${JSON.stringify(js)})\nr = f()\ndef add(a, b):\n    return str(r)\n`;
const marker = (name: string) => path.join(tmp, name);

interface Case {
  name: string;
  code: () => string;
  reason: RegExp;
  hostCheck?: () => void;
}

const cases: Case[] = [
  { name: "reads a host file with open()", code: () => `data = open(${JSON.stringify(secret)}).read()\ndef add(a, b):\n    return data`, reason: /FileNotFoundError|No such file/ },
  { name: "reads a host file through the FFI", code: () => ffi(`return process.getBuiltinModule('fs').readFileSync(${JSON.stringify(secret)}, 'utf8')`), reason: /restricted|ERR_ACCESS_DENIED|denied/i },
  { name: "writes a host file through the FFI", code: () => ffi(`process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(marker("ffi-write"))}, 'x'); return 1`), reason: /restricted|denied/i, hostCheck: () => assert.ok(!existsSync(marker("ffi-write"))) },
  { name: "runs os.system", code: () => `import os\nos.system("touch ${marker("os-system")}")\ndef add(a, b):\n    return a + b`, reason: /os\.system is disabled/, hostCheck: () => assert.ok(!existsSync(marker("os-system"))) },
  { name: "runs posix.system after restoring os.system", code: () => `import posix, importlib, os\nimportlib.reload(os)\nposix.system("touch ${marker("posix-system")}")\ndef add(a, b):\n    return a + b`, reason: /disabled|denied|restricted|Error/i, hostCheck: () => assert.ok(!existsSync(marker("posix-system"))) },
  { name: "spawns a host process via js.constructor.constructor", code: () => ffi(`return process.getBuiltinModule('child_process').execSync('touch ${marker("ffi-exec")}').toString()`), reason: /restricted|denied/i, hostCheck: () => assert.ok(!existsSync(marker("ffi-exec"))) },
  { name: "mounts the host file system with pyodide_js.mountNodeFS", code: () => `import pyodide_js\npyodide_js.mountNodeFS("/host", ${JSON.stringify(tmp)})\ndata = open("/host/secret.txt").read()\ndef add(a, b):\n    return data`, reason: /Error/ },
  { name: "starts a worker thread", code: () => ffi(`const W = process.getBuiltinModule('worker_threads').Worker; new W(\`require('fs').writeFileSync('${marker("worker")}', 'x')\`, { eval: true }); return 1`), reason: /restricted|denied/i, hostCheck: () => assert.ok(!existsSync(marker("worker"))) },
  { name: "calls process.binding", code: () => ffi(`return Object.keys(process.binding('fs')).length`), reason: /restricted|denied|ERR_ACCESS_DENIED/i },
  { name: "requires ws from the repo's node_modules", code: () => ffi(`return process.getBuiltinModule('module').createRequire(${JSON.stringify(path.join(__dirname, "x.js"))})('ws').toString()`), reason: /restricted|denied|Cannot find/i },
  { name: "fork-bombs", code: () => `import os\nwhile True:\n    os.fork()\ndef add(a, b):\n    return a + b`, reason: /OSError|not supported|AttributeError|Error/ },
  { name: "loops forever", code: () => `def add(a, b):\n    while True:\n        pass`, reason: /timeout/ },
  { name: "sleeps", code: () => `import time\ndef add(a, b):\n    time.sleep(1000)\n    return a + b`, reason: /timeout/ },
  { name: "swallows KeyboardInterrupt and BaseException", code: () => `def add(a, b):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass`, reason: /timeout/ },
  { name: "allocates 8 GB", code: () => `def add(a, b):\n    x = [0] * (8 * 1024 ** 3 // 8)\n    return a + b`, reason: /memory|MemoryError|OverflowError/i },
  { name: "grows memory until the cap", code: () => `def add(a, b):\n    keep = []\n    while True:\n        keep.append(bytearray(10 ** 7))`, reason: /out of memory|timeout/ },
  { name: "recurses without end after raising the limit", code: () => `import sys\nsys.setrecursionlimit(10 ** 6)\ndef f(n):\n    return f(n + 1)\ndef add(a, b):\n    return f(0)`, reason: /timeout|RecursionError|sandbox|memory/i },
  { name: "floods stdout with prints", code: () => `def add(a, b):\n    while True:\n        print("x" * 1000)`, reason: /output limit/ },
  { name: "prints one 100 MB string", code: () => `def add(a, b):\n    print("x" * 10 ** 8)\n    return a + b`, reason: /output limit|memory/ },
  { name: "floods the raw file descriptor", code: () => `import os\ndef add(a, b):\n    while True:\n        os.write(1, b"x" * 100000)`, reason: /output limit/ },
  { name: "opens a Python socket to a loopback server", code: () => `import socket\ns = socket.create_connection(("127.0.0.1", PORT), timeout=1)\ndef add(a, b):\n    return a + b`, reason: /Error/ },
  { name: "forges a passing result on the protocol channel", code: () => ffi(`process.stdout.write(JSON.stringify({type: 'result', id: 1, nonce: 'guess', result: {status: 'pass', count: 2}, heapBytes: 1, interpreterMs: 0}) + '\\n'); return 'forged'`), reason: /expected 3, got 'forged'/ },
  { name: "exits the interpreter", code: () => `import sys\ndef add(a, b):\n    sys.exit(0)`, reason: /SystemExit/ },
];

for (const c of cases) {
  test(`hostile: ${c.name}`, async () => {
    await grader.ready();
    const t0 = performance.now();
    const verdict = await grader.grade(task, c.code().replace("PORT", String(port)));
    const elapsed = performance.now() - t0;
    assert.equal(verdict.pass, false, `${c.name} must fail`);
    assert.match(verdict.reason, c.reason);
    // Every attempt is bounded by the answer-load cap (taskCapMs-derived) or one input's limit, plus grace. A timeout
    // or a dead sandbox is checked a second time (a loaded machine can starve a correct answer), on a process that
    // may first need a cold start when the first attempt had to be killed.
    const rechecked = /\(on a second attempt too\)$/.test(verdict.reason);
    assert.equal(rechecked, /^(timeout|sandbox failure)/.test(verdict.reason), `re-checked exactly when the failure can come from load: ${verdict.reason}`);
    const bound = rechecked ? 2 * (3000 + 1000 + GRACE_MS) + RESPAWN_MS + SLACK_MS : 3000 + 1000 + GRACE_MS + SLACK_MS;
    assert.ok(elapsed < bound, `${c.name} took ${Math.round(elapsed)} ms`);
    c.hostCheck?.();
    // The next task still runs and passes.
    const honest = await grader.grade(task, "def add(a, b):\n    return a + b\n");
    assert.equal(honest.pass, true, honest.reason);
  });
}

/** Whether this system lets an unprivileged child have a network namespace of its own (what the pool probes). */
const netnsPossible = process.platform === "linux" && existsSync("/usr/bin/unshare") && [["--user", "--map-root-user", "--net"], ["--net"]].some((f) => spawnSync("/usr/bin/unshare", [...f, "--", "true"]).status === 0);

test("hostile: a TCP connection opened through the FFI (net.connect) goes nowhere: the worker has no network", { skip: netnsPossible ? false : "no network namespaces on this system (documented gap: escaped code can reach loopback)" }, async () => {
  assert.equal(grader.network, "namespace");
  const before = connections;
  const js = `const net = process.getBuiltinModule ? process.getBuiltinModule('net') : process.mainModule.require('net'); const s = net.connect(${port}, '127.0.0.1'); s.on('error', () => {}); return 'sent'`;
  const verdict = await grader.grade(task, ffi(js));
  assert.match(verdict.reason, /got 'sent'/, "the escape itself worked: only the namespace stops the connection");
  // The connect runs on the worker's event loop after the job; give it time, with another job in between.
  assert.equal((await grader.grade(task, "def add(a, b):\n    return a + b\n")).pass, true);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(connections, before);
});

test("hostile: nothing reached the loopback server and the host files are intact", () => {
  assert.equal(connections, 0);
  for (const name of ["ffi-write", "os-system", "posix-system", "ffi-exec", "worker"]) assert.ok(!existsSync(marker(name)), name);
});

test("the sandbox runs with an empty environment and permission-model isolation", async () => {
  assert.equal(grader.isolation, "process-permission");
  const v = await grader.grade(task, ffi(`return Object.keys(process.env).sort().join(',')`));
  assert.match(v.reason, /got 'ELECTRON_RUN_AS_NODE'/);
});
