/**
 * Hostile answers against the real sandbox: the attacks the red team used against the old sandbox (issue 10). Each
 * case asserts the verdict (FAIL, with a reason of the expected kind), the host's state (no marker file created or
 * appended, the sacrificial process alive and unsignalled, the host sockets untouched, the shared runtime unchanged),
 * and what comes next, graded afresh: a wrong answer fails and the canonical answer passes in the same pool; at the
 * end a later pool sharing the caches grades correctly too. The harness and the two graders (`normal`, the product's
 * sandbox; `redTeam`, where escaped Python may run JavaScript) are in hostile-support.ts. New variants of each class
 * are in hostile-variants.test.ts, and the same attacks without OS namespaces in hostile-unconfined.test.ts.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { addReturning, assertLaterPoolGrades, hostileCases, js, secretTask, startHarness, tagReturning, type Case, type Harness } from "./hostile-support.js";

let h: Harness;
before(async () => {
  h = await startHarness("hostile");
});
after(async () => {
  await h?.dispose();
});

const cases: Case[] = [
  // --- forging a verdict without escaping ---
  { name: "returns an object whose __eq__ always says True", code: "class Yes:\n    def __eq__(self, o):\n        return True\n    __hash__ = None\n" + addReturning("Yes()"), reason: /got <Yes object> \(only Python's builtin types are compared/ },
  { name: "returns a subclass of int that equals everything", code: "class I(int):\n    def __eq__(self, o):\n        return True\n" + addReturning("I(0)"), reason: /got <I object>/ },
  { name: "returns a str subclass with a forged __eq__ and __repr__", code: "class S(str):\n    def __eq__(self, o):\n        return True\n    def __repr__(self):\n        return '3'\n" + tagReturning("S('x')"), task: secretTask, reason: /got <S object>/ },
  { name: "patches the harness's serializer through sys.modules['__main__']", code: "import sys\nm = sys.modules['__main__']\nm._sf_json = lambda v, cap: '3'\nm._sf_tag = lambda v, depth=0: 3\n" + tagReturning("None"), task: secretTask, reason: /expected '[0-9a-f]{12}', got 3/ },
  { name: "wraps json.dumps and replaces builtins.bool", code: "import json, builtins\n_d = json.dumps\njson.dumps = lambda *a, **k: _d({'type': 'done', 'count': 3})\nbuiltins.bool = lambda x: True\n" + tagReturning("None"), task: secretTask, reason: /broke the sandbox protocol/ },
  { name: "reads expected outputs from the harness frames", code: "import sys\ndef tag(a, b):\n    f = sys._getframe(1)\n    found = []\n    while f:\n        found += [v for v in f.f_locals.values() if isinstance(v, str) and len(v) == 12]\n        f = f.f_back\n    return found[0] if found else 'nothing'\n", task: secretTask, reason: /expected '[0-9a-f]{12}', got /, },
  { name: "searches every object in the interpreter for the expected outputs", code: "import gc\ndef tag(a, b):\n    cands = [o for o in gc.get_objects() if isinstance(o, (list, dict)) and len(o) in (3, 2, 1)]\n    return str(len(cands))[:0] + 'none-found'\n", task: secretTask, reason: /expected '[0-9a-f]{12}', got 'none-found'/ },
  { name: "swaps the __code__ of harness functions found through gc", code: "import gc, sys\nm = sys.modules['__main__']\ndef fake(v, cap):\n    return '\"forged\"'\nm._sf_json.__code__ = fake.__code__\n" + tagReturning("1"), task: secretTask, reason: /got 'forged'/ },
  { name: "announces 'done' before running anything", code: "import sys\nctl = sys._getframe(1).f_locals['ctl']\nctl.send('{\"type\":\"done\",\"count\":3}')\n" + tagReturning("1"), task: secretTask, reason: /broke the sandbox protocol/ },
  { name: "forges the old protocol's passing result line", code: "import sys\nctl = sys._getframe(1).f_locals['ctl']\nctl.send('{\"type\":\"result\",\"id\":1,\"nonce\":\"x\",\"result\":{\"status\":\"pass\",\"count\":3}}')\n" + tagReturning("'x'"), task: secretTask, reason: /got 'x'/ },
  // --- escaping to JavaScript (blocked in the product; allowed for the red team) ---
  { name: "tries to run JavaScript through js.constructor.constructor", code: js("return 1") + addReturning("a + b"), only: "normal", reason: /Code generation from strings disallowed/ },
  { name: "patches JSON.stringify and writeSync in its own process to forge outputs", code: js("const fs = process.getBuiltinModule ? process.getBuiltinModule('fs') : null; JSON.stringify = () => '{\"type\":\"done\",\"count\":3}'; return 1") + tagReturning("'x'"), task: secretTask, only: "redTeam", reason: /got 'x'/ },
  { name: "writes forged output lines straight to the protocol pipe", code: js("const fs = process.getBuiltinModule('fs'); for (let i = 0; i < 3; i++) fs.writeSync(1, JSON.stringify({type: 'out', i, v: 'guess'}) + '\\n'); fs.writeSync(1, '{\"type\":\"done\",\"count\":3}\\n'); return 1") + tagReturning("'x'"), task: secretTask, only: "redTeam", reason: /broke the sandbox protocol|got 'guess'/ },
  // --- poisoning what comes after ---
  { name: "poisons JS globals, timers and Python modules for later answers", code: js("Object.prototype.toJSON = function () { return 'p' }; setInterval(() => { JSON.parse = () => ({}) }, 1); return 1") + "import math, builtins\nmath.pi = 3\nbuiltins.repr = lambda x: '3'\n" + addReturning("a - b"), only: "redTeam", reason: /expected 3, got -1/ },
  { name: "tries to write poisoned entries into the expected-output cache", code: js("const fs = process.getBuiltinModule('fs'); try { fs.mkdirSync(TMP + '/expected', { recursive: true }); fs.writeFileSync(TMP + '/expected/poison.json', '{}') } catch (e) { return String(e.code || e.message) } return 'written'") + addReturning("str(_r)"), only: "redTeam", reason: /got '(ERR_ACCESS_DENIED|EROFS|ENOENT)/, hostCheck: (h) => assert.ok(!existsSync(path.join(h.tmp, "expected", "poison.json"))) },
  // --- hangs through the control object ---
  { name: "disarms its own interrupt and loops", code: "import sys\ndef add(a, b):\n    ctl = sys._getframe(1).f_locals['ctl']\n    ctl.disarm()\n    while True:\n        ctl.arm(10 ** 9)", reason: /^timeout .*killed after the deadline/ },
  { name: "sleeps in C with the real time.sleep", code: "import time\nreal = time.sleep.__defaults__[0]\ndef add(a, b):\n    real(1000)", reason: /^timeout .*killed after the deadline/ },
  { name: "swallows every interrupt", code: "def add(a, b):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass", reason: /^timeout/ },
  { name: "announces 'loaded' again and again to restart the clock", code: "import sys\nctl = sys._getframe(1).f_locals['ctl']\nfor i in range(5):\n    ctl.send('{\"type\":\"loaded\"}')\n" + addReturning("a + b"), reason: /broke the sandbox protocol \(loaded twice\)/ },
  // --- floods ---
  { name: "floods the protocol pipe with garbage lines", code: "import sys\nctl = sys._getframe(1).f_locals['ctl']\nfor i in range(100000):\n    ctl.send('garbage %d' % i)\n" + addReturning("a + b"), reason: /more than 8 lines that are not protocol messages/ },
  { name: "writes a 700 MB line without a newline", code: js("const fs = process.getBuiltinModule('fs'); const mb = 'x'.repeat(1 << 20); for (let i = 0; i < 700; i++) fs.writeSync(1, mb); return 1") + addReturning("a + b"), only: "redTeam", reason: /a line of more than \d+ bytes/ },
  { name: "prints without end", code: "def add(a, b):\n    while True:\n        print('x' * 1000)", reason: /output limit/ },
  { name: "floods the raw file descriptor", code: "import os\ndef add(a, b):\n    while True:\n        os.write(1, b'x' * 100000)", reason: /output limit/ },
  { name: "returns an output vastly larger than the expected one", code: addReturning("'x' * (50 * 1024 * 1024)"), reason: /larger than \d+ bytes/ },
  // --- the host ---
  { name: "signals a host process (and the host) with process._kill", code: js("let out = []; for (const p of [PID, HOSTPID]) { try { process._kill(p, 9); out.push('killed ' + p) } catch (e) { out.push(e.code || e.message) } } return out.join(',')") + addReturning("str(_r)"), only: "redTeam", reason: /got '/, hostCheck: (h) => assert.equal(h.sacrificial.exitCode, null, "the sacrificial process is alive") },
  { name: "connects to a pathname Unix socket of the host", code: js("const net = process.mainModule.require('net'); const s = net.connect(SOCK); s.on('error', () => {}); return 'tried'") + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox|got 'tried'/ },
  { name: "connects to a TCP server on the host's loopback", code: js("const net = process.mainModule.require('net'); const s = new net.Socket(); s.on('error', () => {}); s.connect(PORT, '127.0.0.1'); return 'tried'") + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox|got 'tried'/ },
  { name: "appends to a shell start-up file through a V8 log flag", code: js(`const v8 = process.mainModule.require('v8'); v8.setFlagsFromString('--logfile=' + TMP + '/profile'); v8.setFlagsFromString('--log-all'); return 1`) + addReturning("a + b"), only: "redTeam", reason: /disabled in the sandbox/, hostCheck: (h) => assert.equal(readFileSync(h.marker("profile"), "utf8"), "# a shell start-up file\n") },
  { name: "turns on trace events (which write into the working folder)", code: js("const te = process.mainModule.require('trace_events'); te.createTracing({ categories: ['v8', 'node'] }).enable(); return 1") + addReturning("a + b"), only: "redTeam", reason: /disabled in the sandbox/ },
  { name: "reads a host file through the FFI", code: js("return process.getBuiltinModule('fs').readFileSync(TMP + '/secret.txt', 'utf8')") + addReturning("_r"), only: "redTeam", reason: /ERR_ACCESS_DENIED|restricted|denied/i },
  { name: "spawns a host process through the FFI", code: js(`process.getBuiltinModule('child_process').execSync('touch ' + TMP + '/spawned'); return 1`) + addReturning("a + b"), only: "redTeam", reason: /disabled in the sandbox|restricted|denied/i, hostCheck: (h) => assert.ok(!existsSync(h.marker("spawned"))) },
  { name: "grows memory from JavaScript in the background", code: js("globalThis.keep = []; setInterval(() => { const b = new Uint8Array(64 << 20); b.fill(1); globalThis.keep.push(b) }, 5); return 1") + "import time\ndef add(a, b):\n    t = time.monotonic()\n    while time.monotonic() - t < 30:\n        time.sleep(0.01)\n    return a + b", only: "redTeam", reason: /out of memory .*killed at \d+ MB resident memory|timeout/ },
  { name: "allocates past the wasm cap", code: "def add(a, b):\n    keep = []\n    while True:\n        keep.append(bytearray(10 ** 7))", reason: /out of memory|MemoryError|^timeout/ },
  { name: "runs os.system", code: `import os\nos.system("touch " + TMP + "/os-system")\n` + addReturning("a + b"), reason: /os\.system is disabled/, hostCheck: (h) => assert.ok(!existsSync(h.marker("os-system"))) },
  { name: "mounts the host file system with pyodide_js.mountNodeFS", code: `import pyodide_js\npyodide_js.mountNodeFS("/host", TMP)\ndata = open("/host/secret.txt").read()\n` + addReturning("data"), reason: /Error/ },
  { name: "opens a Python socket to the host's loopback", code: `import socket\ns = socket.create_connection(("127.0.0.1", PORT), timeout=0.2)\n` + addReturning("a + b"), reason: /Error|timeout/ },
  { name: "exits the interpreter", code: "import sys\ndef add(a, b):\n    sys.exit(0)", reason: /SystemExit/ },
  // Node's permission model checks paths, never an open descriptor: what this (test) process inherited without
  // close-on-exec — here at least fd 251, a pipe of the calling shell — must be closed before Pyodide loads. The CLI
  // case with a file, a pipe and a socket at fds 30, 31, 33 and 251 is cli/inherited-fds.test.ts.
  { name: "reads and writes the descriptors the host inherited (fstat, read, write on each)", code: js("const fs = process.getBuiltinModule('fs'); return INHERITED_FDS.map((fd) => { try { fs.fstatSync(fd); fs.writeSync(fd, ''); return fd + ':open'; } catch (e) { return fd + ':' + e.code; } }).join(' ')") + addReturning("'fds ' + str(_r)"), only: "redTeam", reason: /got 'fds ((\d+:EBADF ?)*)'/ },
];

hostileCases("hostile answers", () => h, cases);

test("after the attacks: the host is intact, and a later run sharing the caches still grades correctly", async () => {
  for (const name of ["os-system", "spawned", "expected/poison.json", "node_trace.1.log"]) assert.ok(!existsSync(h.marker(name)), name);
  await assertLaterPoolGrades(h);
});

test("the sandbox runs with an empty environment and its own PID namespace", async () => {
  const pool = h.graders.redTeam.pool;
  const r = await pool.exec(js("return JSON.stringify({ env: Object.keys(process.env), pwd: process.env.PWD, pid: process.pid })") + "print(_r)", 10_000);
  const seen = JSON.parse(r.stdout.trim()) as { env: string[]; pwd?: string; pid: number };
  assert.ok(seen.pwd === undefined || seen.pwd === "/tmp", `PWD is the sandbox's own folder, not the host's: ${seen.pwd}`);
  // bubblewrap sets PWD for the folder it starts the process in (its own empty /tmp); nothing else is passed on.
  assert.deepEqual(seen.env.filter((k) => k !== "PWD"), ["ELECTRON_RUN_AS_NODE"]);
  if (pool.confinement.kind !== "none") assert.ok(seen.pid <= 2, `own PID namespace (pid ${seen.pid})`);
});

test("bubblewrap's private root: below the permission model, a process sees none of the host's files", { skip: process.platform !== "linux" ? "Linux only" : false }, () => {
  const confinement = h.graders.redTeam.pool.confinement;
  if (process.env.CI === "true") assert.equal(confinement.kind, "bubblewrap", "CI installs bubblewrap: the strongest confinement must be in force");
  if (confinement.kind !== "bubblewrap") return;
  // No permission flags here: this is the OS layer alone.
  const probe = "const fs = require('fs'); process.stdout.write(JSON.stringify({ root: fs.readdirSync('/'), tmp: fs.readdirSync('/tmp'), write: (() => { try { fs.writeFileSync('/usr/x', 'x'); return 'written' } catch (e) { return e.code } })() }))";
  const [cmd, ...args] = [...confinement.prefix([]), process.execPath, "-e", probe];
  const r = spawnSync(cmd!, args, { env: { ELECTRON_RUN_AS_NODE: "1" }, encoding: "utf8" });
  const seen = JSON.parse(r.stdout) as { root: string[]; tmp: string[]; write: string };
  assert.deepEqual(seen.root.filter((d) => !["usr", "lib", "lib64", "lib32", "libx32", "proc", "dev", "tmp", "bin", "sbin"].includes(d)), [], `only the runtime's folders: ${seen.root.join(", ")}`);
  assert.deepEqual(seen.tmp, [], "an empty private /tmp");
  assert.equal(seen.write, "EROFS", "the runtime's folders are read-only");
});
