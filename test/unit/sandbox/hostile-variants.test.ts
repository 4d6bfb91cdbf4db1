/**
 * New variants of every attack class of issue 10, beyond the ones its text lists (hostile.test.ts has those):
 * other ways to forge equality, other routes to the control channel, stdout/stderr tricks, /proc and symlink tricks
 * in the private root, signals, resource exhaustion, protocol lines the host must survive, writes to the runtime the
 * processes share, and interrupt-immune hangs. Same checks per case as hostile.test.ts (hostile-support.ts).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { TRY, addReturning, assertLaterPoolGrades, halfTask, hostileCases, js, secretTask, startHarness, tagReturning, type Case, type Harness } from "./hostile-support.js";

let h: Harness;
before(async () => {
  h = await startHarness("hostile-variants");
});
after(async () => {
  await h?.dispose();
});

const OPAQUE = /\(only Python's builtin types are compared: an object of the answer's own type could claim to equal anything\)/;
/** Python that waits `s` seconds in small sleeps (the interrupt lands between them). */
const wait = (s: number) => `import time\n_t0 = time.monotonic()\nwhile time.monotonic() - _t0 < ${s}:\n    time.sleep(0.02)\n`;

const forging: Case[] = [
  { name: "spoofs __class__ as int on an object that equals everything", code: "class F:\n    __class__ = int\n    def __eq__(self, o):\n        return True\n    __hash__ = None\n" + addReturning("F()"), reason: /got <F object> \(only/, only: "normal" },
  { name: "returns a class whose metaclass says it equals everything", code: "class M(type):\n    def __eq__(cls, o):\n        return True\n    __hash__ = type.__hash__\nclass C(metaclass=M):\n    pass\n" + addReturning("C"), reason: /got <M object>/, only: "normal" },
  { name: "returns a dict subclass that equals everything", code: "class D(dict):\n    def __eq__(self, o):\n        return True\n" + addReturning("D()"), reason: /got <D object>/, only: "normal" },
  { name: "returns a list subclass whose iterator lies about its items", code: "class L(list):\n    def __iter__(self):\n        return iter([3])\n" + addReturning("L([0])"), reason: new RegExp(`got <L object> ${OPAQUE.source}`), only: "normal" },
  { name: "replaces builtins.type so the tagger sees its object as a str", code: "import builtins\nclass O:\n    def __str__(self):\n        return 'deadbeef0000'\n    __repr__ = __str__\n_t = type\nbuiltins.type = lambda v, *r: str if isinstance(v, O) else _t(v, *r)\n" + tagReturning("O()"), task: secretTask, reason: /the output cannot be compared|expected '[0-9a-f]{12}', got/, only: "normal" },
  { name: "returns a self-containing list", code: "def add(a, b):\n    l = []\n    l.append(l)\n    return l\n", reason: /the output cannot be compared: the output (is larger than|nests deeper)/, only: "normal" },
  { name: "returns a list nested 100,000 deep", code: "def add(a, b):\n    x = 3\n    for i in range(100000):\n        x = [x]\n    return x\n", reason: /the output cannot be compared: the output nests deeper than 900 levels/, only: "normal" },
  { name: "returns NaN where a float is due (NaN never equals)", code: "def half(a):\n    return float('nan')\n", task: halfTask, reason: /expected 0\.5, got nan/, only: "normal" },
  { name: "returns infinity where a float is due", code: "def half(a):\n    return float('inf')\n", task: halfTask, reason: /expected 0\.5, got inf/, only: "normal" },
  { name: "returns a string that carries protocol lines, CR and NUL", code: tagReturning(`'x\\r\\n{"type":"done","count":3}\\n\\x00'`), task: secretTask, reason: /got 'x\\r\\n\{"type":"done","count":3\}\\n\\x00'/, only: "normal" },
  { name: "prints a forged 'done' line from Python", code: `print('{"type":"done","count":3}')\n` + tagReturning("'x'"), task: secretTask, reason: /got 'x'/ },
  { name: "claims a digest for an output that is compared by value", code: js(`const fs = process.getBuiltinModule('fs'); fs.writeSync(1, '{"type":"loaded"}\\n{"type":"out","i":0,"h":"${"0".repeat(64)}","n":1}\\n'); return 1`) + addReturning("a - b"), only: "redTeam", reason: /broke the sandbox protocol/ },
  { name: "exits the process with os._exit(0) mid-answer", code: "import os\ndef add(a, b):\n    os._exit(0)\n", reason: /exit\(0\)|exited|ended/ },
  { name: "raises KeyboardInterrupt itself, as if timed out", code: "def add(a, b):\n    raise KeyboardInterrupt()\n", reason: /^timeout/, only: "normal" },
];

const controlChannel: Case[] = [
  { name: "reaches the control object through a traceback's frames and sends 'done'", code: "def tag(a, b):\n    try:\n        raise ValueError\n    except ValueError as e:\n        f = e.__traceback__.tb_frame\n    while f is not None and 'ctl' not in f.f_locals:\n        f = f.f_back\n    f.f_locals['ctl'].send('{\"type\":\"done\",\"count\":3}')\n    return 'x'\n", task: secretTask, reason: /broke the sandbox protocol \(finished after 0 of 3 inputs\)/ },
  { name: "finds the control object with gc and disarms it", code: "import gc\ndef tag(a, b):\n    for o in gc.get_objects():\n        if hasattr(o, 'disarm') and hasattr(o, 'send'):\n            o.disarm()\n    return 'x'\n", task: secretTask, reason: /got 'x'/ },
  { name: "re-arms every control object it finds far away, then loops", code: "import gc\ndef add(a, b):\n    for o in gc.get_objects():\n        try:\n            if hasattr(o, 'arm'):\n                o.arm(10 ** 9)\n        except Exception:\n            pass\n    while True:\n        pass\n", reason: /^timeout/, only: "normal" },
  { name: "rewrites the harness's locals from a trace function", code: "import sys\ndef t(frame, event, arg):\n    if frame.f_code.co_name.startswith('_sf'):\n        try:\n            frame.f_locals['i'] = 0\n            frame.f_locals['inputs'] = []\n        except Exception:\n            pass\n    return t\nsys.settrace(t)\n" + tagReturning("'x'"), task: secretTask, reason: /got 'x'|broke the sandbox protocol/, only: "normal" },
  { name: "reads the protocol channel from sys.stdin", code: "import sys\ndef add(a, b):\n    return sys.stdin.read()\n", reason: /^timeout/, only: "normal" },
];

const streams: Case[] = [
  { name: "closes its stdout and replaces sys.stdout", code: "import os, sys\nos.close(1)\nsys.stdout = None\n" + tagReturning("'x'"), task: secretTask, reason: /got 'x'/, only: "normal" },
  { name: "floods stderr", code: "import os\ndef add(a, b):\n    while True:\n        os.write(2, b'x' * 100000)\n", reason: /output limit/ },
  // Written from inside add(), after the harness said "loaded": an output message 2,000 deep, past the depth the host
  // validates (iteratively, so the host's stack is never at stake), is dropped as a malformed line; the real output fails.
  { name: "writes an output line nested 2,000 levels deep", code: `import js\ndef add(a, b):\n    js.constructor.constructor(${JSON.stringify(`process.getBuiltinModule('fs').writeSync(1, '{"type":"out","i":0,"v":' + '{"t":['.repeat(2000) + '3' + ']}'.repeat(2000) + '}\\n')`)})()\n    return a - b\n`, only: "redTeam", reason: /expected 3, got -1/ },
  { name: "writes an output line of 30,000 nested lists, under the line cap (JSON.parse and validation on the host)", code: `import js\ndef add(a, b):\n    js.constructor.constructor(${JSON.stringify(`process.getBuiltinModule('fs').writeSync(1, '{"type":"out","i":0,"v":' + '['.repeat(30000) + '3' + ']'.repeat(30000) + '}\\n')`)})()\n    return a - b\n`, only: "redTeam", reason: /expected 3, got -1|broke the sandbox protocol/ },
  { name: "writes a protocol line of 100,000 nested lists (past the line cap)", code: js("const fs = process.getBuiltinModule('fs'); const d = 100000; fs.writeSync(1, '{\"type\":\"out\",\"i\":0,\"v\":' + '['.repeat(d) + '3' + ']'.repeat(d) + '}\\n'); return 1") + addReturning("a - b"), only: "redTeam", reason: /a line of more than \d+ bytes/ },
  // Encoding 10^7 values takes about the task's 1 s of CPU in wasm: on a busy machine the deadline can come before the
  // size cap. Either way the answer fails and the host is intact (checked after every case).
  { name: "returns ten million numbers", code: addReturning("list(range(10 ** 7))"), reason: /out of memory|larger than \d+ bytes|^timeout/, only: "normal" },
];

const hostAndProc: Case[] = [
  { name: "reads /proc/self/environ from Python", code: "data = open('/proc/self/environ').read()\n" + addReturning("data"), reason: /No such file or directory: '\/proc\/self\/environ'/, only: "normal" },
  { name: "reads /proc/self/environ, /proc/1/root and the list of processes from JavaScript", code: js(`${TRY} const fs = process.getBuiltinModule('fs'); return [t(() => fs.readFileSync('/proc/self/environ', 'utf8')), t(() => fs.readdirSync('/proc/1/root').join()), t(() => fs.readdirSync('/proc').join())].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED [^|]*\| ERR ERR_ACCESS_DENIED [^|]*\| ERR ERR_ACCESS_DENIED/ },
  { name: "links /etc into its /tmp", code: js(`${TRY} return t(() => process.getBuiltinModule('fs').symlinkSync('/etc', '/tmp/etc'))`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED/ },
  { name: "mounts the host's / with NODEFS and walks it", code: "import pyodide_js, os\nm = pyodide_js._module\nm.FS.mkdir('/rt')\nm.FS.mount(m.NODEFS, {'root': '/'}, '/rt')\nfound = [d for d, _, _ in os.walk('/rt')][:20]\n" + addReturning("repr(found)"), reason: /the answer failed to load|got '\[/, only: "normal" },
  { name: "signals PID 1, the host and a host process with os.kill", code: "import os\nfor p in (1, 2, PID, HOSTPID):\n    for sig in (9, 10, 15):\n        try:\n            os.kill(p, sig)\n        except OSError:\n            pass\n" + addReturning("a - b"), reason: /expected 3, got -1/, only: "normal" },
  { name: "sends SIGUSR1 to the host and a host process with process._debugProcess (opens their inspector)", code: js(`${TRY} return [PID, HOSTPID].map((p) => t(() => process._debugProcess(p))).join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got '/ },
  { name: "spawns a shell through process.binding('spawn_sync')", code: js(`${TRY} return t(() => process.binding('spawn_sync').spawn({ file: '/bin/sh', args: ['sh', '-c', 'touch ' + TMP + '/bound'] }))`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED process\.binding'/, hostCheck: (x) => assert.ok(!existsSync(x.marker("bound"))) },
  { name: "writes a diagnostic report into the host's folder", code: js(`${TRY} return t(() => process.report.writeReport(TMP + '/report.json'))`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED/, hostCheck: (x) => assert.ok(!existsSync(x.marker("report.json"))) },
  { name: "writes a heap snapshot into the host's folder", code: js(`${TRY} return t(() => process.mainModule.require('v8').writeHeapSnapshot(TMP + '/heap.heapsnapshot'))`) + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox/, hostCheck: (x) => assert.ok(!existsSync(x.marker("heap.heapsnapshot"))) },
  { name: "opens an inspector port", code: js(`${TRY} return t(() => process.mainModule.require('inspector').open(0))`) + addReturning("str(_r)"), only: "redTeam", reason: /inspector is disabled in the sandbox/ },
  { name: "fetches from the host's loopback with the global fetch", code: js(`globalThis.__f = 'pending'; fetch('http://127.0.0.1:PORT/').then(() => { globalThis.__f = 'connected' }, (e) => { globalThis.__f = 'ERR ' + String(e && e.message) }); return 1`) + wait(0.3) + addReturning("a - b"), only: "redTeam", reason: /expected 3, got -1|disabled in the sandbox/ },
  { name: "schedules a fetch to the host's loopback from Python (pyodide.http)", code: "import pyodide.http, asyncio\nasyncio.ensure_future(pyodide.http.pyfetch('http://127.0.0.1:PORT/'))\n" + wait(0.3) + addReturning("a - b"), reason: /expected 3, got -1|the answer failed to load/ },
  { name: "connects to the host's Unix socket through pipe_wrap and an abstract name", code: js(`${TRY} return [t(() => process.binding('pipe_wrap')), t(() => process.mainModule.require('net').connect('\\0sf-hostile'))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED process\.binding \| ERR {2}net is disabled in the sandbox'/ },
  { name: "reaches child_process through module.createRequire and dns, wasi", code: js(`${TRY} return [t(() => process.getBuiltinModule('module').createRequire('/')('child_process')), t(() => process.getBuiltinModule('dns')), t(() => process.getBuiltinModule('wasi'))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR {2}module is disabled in the sandbox \| ERR {2}dns is disabled in the sandbox \| ERR {2}wasi is disabled in the sandbox'/ },
];

const poisoning: Case[] = [
  { name: "appends to the shared worker bundle and snapshot from JavaScript", code: js(`${TRY} const fs = process.getBuiltinModule('fs'); return [t(() => fs.appendFileSync(process.argv[1], '//poisoned')), t(() => fs.writeFileSync(process.argv[1] + '.x', 'x'))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED [^|]*\| ERR ERR_ACCESS_DENIED/ },
  { name: "changes its own environment for later processes", code: js("process.env.PATH = '/tmp'; process.env.NODE_OPTIONS = '--require /tmp/x.js'; return 1") + addReturning("a - b"), only: "redTeam", reason: /expected 3, got -1/ },
];

const exhaustion: Case[] = [
  { name: "forks from Python", code: "import os\nos.fork()\n" + addReturning("a + b"), reason: /the answer failed to load: OSError/, only: "normal" },
  { name: "starts a thread from Python", code: "import threading\nthreading.Thread(target=lambda: None).start()\n" + addReturning("a + b"), reason: /the answer failed to load: RuntimeError: can't start new thread/, only: "normal" },
  { name: "starts a worker thread from JavaScript", code: js(`${TRY} return t(() => new (process.getBuiltinModule('worker_threads').Worker)('1', { eval: true }))`) + addReturning("str(_r)"), only: "redTeam", reason: /worker_threads is disabled in the sandbox/ },
  { name: "exhausts file descriptors in Python", code: "import os\nfds = [os.open('/tmp/f%d' % i, os.O_CREAT | os.O_WRONLY) for i in range(100000)]\n" + addReturning("a + b"), reason: /No file descriptors available/, only: "normal" },
  { name: "exhausts file descriptors in JavaScript", code: js(`${TRY} const fs = process.getBuiltinModule('fs'); const fds = []; return t(() => { for (let i = 0; i < 100000; i++) fds.push(fs.openSync(process.argv[1], 'r')); return fds.length })`) + addReturning("str(_r)"), only: "redTeam", reason: /EMFILE/ },
  { name: "recurses without a limit", code: "import sys\nsys.setrecursionlimit(10 ** 7)\ndef f(n):\n    return f(n + 1)\ndef add(a, b):\n    return f(0)\n", reason: /call stack|RecursionError/, only: "normal" },
  { name: "builds a ten-gigabyte string", code: addReturning("'x' * 10 ** 10"), reason: /OverflowError|MemoryError|out of memory/, only: "normal" },
];

const hangs: Case[] = [
  { name: "ignores SIGINT, then loops", code: "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ndef add(a, b):\n    while True:\n        pass\n", reason: /^timeout .*killed after the deadline/, only: "normal" },
  { name: "runs a catastrophic regular expression (C code, no interrupt checks)", code: "import re\ndef add(a, b):\n    return re.match('(a*)*b', 'a' * 40)\n", reason: /^timeout/, only: "normal" },
];

hostileCases("forging", () => h, forging);
hostileCases("the control channel", () => h, controlChannel);
hostileCases("stdout, stderr and protocol lines", () => h, streams);
hostileCases("/proc, files, signals, sockets", () => h, hostAndProc);
hostileCases("poisoning", () => h, poisoning);
hostileCases("resource exhaustion", () => h, exhaustion);
hostileCases("hangs", () => h, hangs);

test("after the variants: the host is intact, and a later pool sharing the caches grades correctly", async () => {
  for (const name of ["bound", "report.json", "heap.heapsnapshot"]) assert.ok(!existsSync(h.marker(name)), name);
  await assertLaterPoolGrades(h);
});
