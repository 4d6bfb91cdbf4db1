/**
 * The attacks on the host again, with no OS namespaces at all (SF_SANDBOX_CONFINE=none): what a sandbox process gets on
 * macOS and Windows, or on a Linux that forbids namespaces. There the host's processes, loopback and files are in
 * reach of the process, so only the layers inside it stand between an escaped answer and the host: Node's permission
 * model and the lock-down of process-level APIs before the answer runs (worker-entry.ts). The red-team grader lets
 * escaped Python run JavaScript, as if code generation from strings were not off. Same checks per case as
 * hostile.test.ts (hostile-support.ts).
 */
process.env.SF_SANDBOX_CONFINE = "none";

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { TRY, addReturning, assertLaterPoolGrades, hostileCases, js, startHarness, type Case, type Harness } from "./hostile-support.js";

let h: Harness;
before(async () => {
  h = await startHarness("hostile-unconfined");
});
after(async () => {
  await h?.dispose();
});

/** Python that waits in small sleeps, so that JavaScript the answer scheduled gets the event loop meanwhile. */
const wait = (s: number) => `import time\n_t0 = time.monotonic()\nwhile time.monotonic() - _t0 < ${s}:\n    time.sleep(0.02)\n`;

const cases: Case[] = [
  { name: "kills a host process and the host with process._kill", code: js(`${TRY} return [PID, HOSTPID].map((p) => t(() => process._kill(p, 9))).join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got '.*disabled in the sandbox/ },
  { name: "kills a host process with process.kill", code: js(`${TRY} return t(() => process.kill(PID, 'SIGKILL'))`) + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox/ },
  { name: "sends SIGUSR1 to a host process and the host with process._debugProcess", code: js(`${TRY} return [PID, HOSTPID].map((p) => t(() => process._debugProcess(p))).join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got '.*disabled in the sandbox/ },
  { name: "signals a host process with os.kill from Python", code: "import os\nfor sig in (9, 10, 15):\n    try:\n        os.kill(PID, sig)\n    except OSError:\n        pass\n" + addReturning("a - b"), reason: /expected 3, got -1/, only: "normal" },
  { name: "connects to the host's loopback and Unix socket with net", code: js(`${TRY} const net = process.mainModule.require('net'); return [t(() => net.connect(PORT, '127.0.0.1')), t(() => net.connect(SOCK))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox/ },
  { name: "fetches from the host's loopback with the global fetch", code: js(`globalThis.__f = 'pending'; try { fetch('http://127.0.0.1:PORT/').then(() => {}, () => {}) } catch (e) { globalThis.__f = e.message } return 1`) + wait(0.5) + addReturning("a - b"), only: "redTeam", reason: /expected 3, got -1|disabled in the sandbox/ },
  { name: "schedules a fetch to the host's loopback from Python (pyodide.http)", code: "import pyodide.http, asyncio\nasyncio.ensure_future(pyodide.http.pyfetch('http://127.0.0.1:PORT/'))\n" + wait(0.5) + addReturning("a - b"), reason: /expected 3, got -1|the answer failed to load/ },
  { name: "opens a Python socket to the host's loopback", code: `import socket\ns = socket.create_connection(("127.0.0.1", PORT), timeout=0.2)\n` + addReturning("a + b"), reason: /Error|timeout/, only: "normal" },
  { name: "reads a host file and writes markers, a report and a heap snapshot into the host's folder", code: js(`${TRY} const fs = process.getBuiltinModule('fs'); return [t(() => fs.readFileSync(TMP + '/secret.txt', 'utf8')), t(() => fs.writeFileSync(TMP + '/written', 'x')), t(() => process.report.writeReport(TMP + '/report.json')), t(() => process.mainModule.require('v8').writeHeapSnapshot(TMP + '/heap.heapsnapshot'))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /got 'ERR ERR_ACCESS_DENIED [^|]*\| ERR ERR_ACCESS_DENIED [^|]*\| ERR ERR_ACCESS_DENIED [^|]*\| ERR {2}v8 is disabled in the sandbox'/ },
  { name: "appends to a shell start-up file through a V8 log flag, and turns on trace events", code: js(`${TRY} return [t(() => process.mainModule.require('v8').setFlagsFromString('--logfile=' + TMP + '/profile')), t(() => process.mainModule.require('trace_events').createTracing({ categories: ['node'] }).enable())].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox.*disabled in the sandbox/ },
  { name: "spawns a host process through child_process and process.binding", code: js(`${TRY} return [t(() => process.getBuiltinModule('child_process').execSync('touch ' + TMP + '/spawned')), t(() => process.binding('spawn_sync').spawn({ file: '/bin/sh', args: ['sh', '-c', 'touch ' + TMP + '/spawned'] }))].join(' | ')`) + addReturning("str(_r)"), only: "redTeam", reason: /disabled in the sandbox.*ERR_ACCESS_DENIED/ },
  { name: "mounts the host file system with pyodide_js.mountNodeFS", code: `import pyodide_js\npyodide_js.mountNodeFS("/host", TMP)\ndata = open("/host/secret.txt").read()\n` + addReturning("data"), reason: /Error/, only: "normal" },
];

hostileCases("hostile answers without OS namespaces", () => h, cases);

test("without namespaces the sandbox runs unconfined, and says so", () => {
  assert.equal(h.graders.redTeam.pool.confinement.kind, "none");
  assert.match(h.graders.redTeam.pool.confinement.describe, /no OS confinement|none|namespaces/i);
});

test("after the attacks: the host is intact, and a later pool sharing the caches grades correctly", async () => {
  for (const name of ["written", "spawned", "report.json", "heap.heapsnapshot"]) assert.ok(!existsSync(h.marker(name)), name);
  await assertLaterPoolGrades(h);
});
