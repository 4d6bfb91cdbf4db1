import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { CancelledError } from "../../../src/core/errors.js";
import type { Logger } from "../../../src/core/logger.js";
import { SandboxPool, type Driver } from "../../../src/core/sandbox/runner.js";
import type { ProcessMessage } from "../../../src/core/sandbox/protocol.js";
import { sandboxDist, snapshotCache } from "./support.js";

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, trace() {}, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

test("every answer gets a fresh process: what one answer changes in Python or in JS is gone for the next", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, unsafeAllowCodeGeneration: true });
  try {
    await pool.ready();
    const poison = await pool.exec(
      [
        "import math, builtins, json, js",
        "math.pi = 3",
        "builtins.len = lambda x: 0",
        "json.loads = lambda *a, **k: {}",
        "js.constructor.constructor(\"Object.prototype.poisoned = 'yes'; JSON.stringify = () => 'forged'; globalThis.setInterval(() => {}, 5)\")()",
        "print('poisoned')",
      ].join("\n"),
      5000,
    );
    assert.equal(poison.stdout.trim(), "poisoned", poison.error);
    const next = await pool.exec("import math, js\nprint(math.pi, len('abc'), js.constructor.constructor('return String(({}).poisoned) + JSON.stringify([1])')())", 5000);
    assert.equal(next.stdout.trim(), "3.141592653589793 3 undefined[1]", next.error);
  } finally {
    await pool.finish();
  }
});

test("a crash of a sandbox process fails only its job; the queue goes on with new processes", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, unsafeAllowCodeGeneration: true });
  try {
    await pool.ready();
    const jobs = await Promise.all([
      pool.exec("print('before')", 5000),
      pool.exec("import js\njs.constructor.constructor('process.reallyExit(3)')()", 5000),
      pool.exec("print('after')", 5000),
    ]);
    assert.equal(jobs[0].stdout.trim(), "before");
    assert.equal(jobs[1].kind, "sandbox");
    assert.match(jobs[1].error ?? "", /ended \(exit code 3/);
    assert.equal(jobs[2].stdout.trim(), "after");
  } finally {
    await pool.finish();
  }
});

test("finish() is idempotent, cancels the running job and the queued ones, and later runs are refused", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
  await pool.ready();
  const running = assert.rejects(pool.exec("while True: pass", 60_000), CancelledError);
  const queued = assert.rejects(pool.exec("print(1)", 1000), CancelledError);
  await pool.finish();
  await pool.finish();
  await running;
  await queued;
  await assert.rejects(pool.exec("1", 1000), /finished/);
});

test("an abort signal cancels a running job and kills its process; the next job runs", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
  try {
    await pool.ready();
    const ac = new AbortController();
    const p = pool.exec("while True: pass", 60_000, { signal: ac.signal });
    setImmediate(() => ac.abort());
    await assert.rejects(p, CancelledError);
    assert.equal((await pool.exec("print(2)", 5000)).stdout.trim(), "2");
  } finally {
    await pool.finish();
  }
});

test("the host owns the deadline: an answer that disarms its own interrupt and re-arms it far away is killed at the host's", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, graceMs: 200 });
  try {
    await pool.ready();
    // The control object is reachable from the answer's frame; nothing it does reaches the host's timer.
    const code = "import sys\nctl = sys._getframe(1).f_locals['ctl']\nctl.disarm()\nctl.arm(10 ** 9)\nwhile True:\n    ctl.disarm()";
    const r = await pool.exec(code, 500);
    assert.equal(r.kind, "timeout");
    assert.match(r.error ?? "", /killed after the deadline/);
  } finally {
    await pool.finish();
  }
});

test("the host reads each line with its own cap: a 700 MB line without a newline kills the process, not the host", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, unsafeAllowCodeGeneration: true });
  try {
    await pool.ready();
    // Escaped code writes straight to the protocol pipe, 1 MB at a time, never a newline. The pipe is non-blocking:
    // when the host reads slowly (a busy machine) a write fails with EAGAIN partway, so the writer retries what is
    // left, as an attacker would; otherwise its own process dies first and the test checks nothing.
    const js =
      "const fs = process.getBuiltinModule('fs'); const mb = Buffer.alloc(1 << 20, 120);" +
      "for (let i = 0; i < 700; i++) { let off = 0; while (off < mb.length) { try { off += fs.writeSync(1, mb, off); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } }";
    const code = `import js\njs.constructor.constructor(${JSON.stringify(js)})()`;
    const r = await pool.exec(code, 60_000);
    assert.equal(r.kind, "error");
    assert.match(r.error ?? "", /protocol violation: a line of more than \d+ bytes/);
    assert.equal((await pool.exec("print('alive')", 5000)).stdout.trim(), "alive");
  } finally {
    await pool.finish();
  }
});

test("lines that are not protocol messages count against a small budget, then the process is killed; logged once with a count", async () => {
  const logger = recordingLogger();
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, logger });
  try {
    await pool.ready();
    const code = "import sys\nctl = sys._getframe(1).f_locals['ctl']\nfor i in range(100000):\n    ctl.send('{\"type\":\"pass\",\"forged\":%d}' % i)\nimport time\ntime.sleep(30)";
    const r = await pool.exec(code, 60_000);
    assert.equal(r.kind, "error");
    assert.match(r.error ?? "", /more than 8 lines that are not protocol messages/);
    await pool.exec("print(1)", 5000);
    const floods = logger.warnings.filter((w) => /not protocol messages/.test(w));
    assert.equal(floods.length, 1, logger.warnings.join("\n"));
    assert.match(floods[0]!, /ignored 9 line\(s\)/);
  } finally {
    await pool.finish();
  }
});

test("settle-once jobs: 5,000 jobs on one signal leave at most pool-size abort listeners and no growing heap", async () => {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
  const ac = new AbortController();
  // A payload per job, so a job kept alive by a forgotten listener shows in the heap (~20 KB × 4,000 ≈ 80 MB).
  const filler = `# ${"x".repeat(20_000)}\n`;
  const driver = (): Driver<number> & { reusable(): boolean } => ({
    firstDeadlineMs: 60_000,
    totalMs: 60_000,
    maxLineBytes: () => 65536,
    onMessage: (m: ProcessMessage) => (m.type === "done" ? { settle: m.count } : m.type === "exp" ? { next: 60_000 } : { settle: -1 }),
    onTimeout: () => -2,
    onMemory: () => -3,
    onProtocol: () => -4,
    onEnd: () => -5,
    reusable: () => true,
  });
  const job = (i: number) => ({ mode: "expected" as const, program: `${filler}def f():\n    return ${i}\n`, entryPoint: "f", inputsJson: "[]", outputNotNone: false, wantArgs: false, capMs: 60_000 });
  let maxListeners = 0;
  let heapAt1000 = 0;
  try {
    for (let i = 0; i < 5000; i++) {
      const p = pool.runReference(job(i), driver(), { signal: ac.signal });
      maxListeners = Math.max(maxListeners, getEventListeners(ac.signal, "abort").length);
      assert.equal(await p, 0);
      if (i === 999) {
        gc();
        heapAt1000 = process.memoryUsage().heapUsed;
      }
    }
    gc();
    const growth = process.memoryUsage().heapUsed - heapAt1000;
    assert.equal(getEventListeners(ac.signal, "abort").length, 0);
    assert.ok(maxListeners <= 1, `at most one listener per running job (pool size 1), saw ${maxListeners}`);
    assert.ok(growth < 16 * 1024 * 1024, `heap grew ${Math.round(growth / 1048576)} MB between job 1,000 and job 5,000`);
  } finally {
    await pool.finish();
  }
});

test("fallback without the permission model: a worker thread, said loudly, reported as worker-fallback", async () => {
  const logger = recordingLogger();
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1, forceFallback: true, logger });
  try {
    assert.equal(pool.isolation, "worker-fallback");
    assert.ok(logger.warnings.some((w) => /SANDBOX FALLBACK/.test(w) && /not attack-proof/.test(w)));
    const r = await pool.exec("import os\nprint(sum(range(10)))\nos.system('true')", 5000);
    assert.match(r.stdout, /45/);
    assert.match(r.error ?? "", /os\.system is disabled/);
    const loop = await pool.exec("while True: pass", 500);
    assert.match(loop.error ?? "", /^timeout/);
  } finally {
    await pool.finish();
  }
});

test("a missing build is a clear error naming the fix", () => {
  assert.throws(() => SandboxPool.create({ distDir: "/nonexistent-dist" }), (e: Error & { options?: { hint?: string } }) => {
    assert.match(e.message, /sandbox is not built: missing sandbox-worker\.js/);
    assert.match(e.options?.hint ?? "", /npm run build/);
    return true;
  });
});

test("the pool names its Python runtime (Pyodide and CPython versions), which keys the verdict cache", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
  try {
    const pkg = JSON.parse(readFileSync(path.join(await sandboxDist(), "pyodide", "package.json"), "utf8")) as { version: string };
    const runtime = JSON.parse(pool.runtime) as { pyodide: string; info: { python: string } };
    assert.equal(runtime.pyodide, pkg.version);
    const r = await pool.exec("import sys\nprint('%d.%d.%d' % sys.version_info[:3])", 5000);
    assert.equal(r.stdout.trim(), runtime.info.python);
  } finally {
    await pool.finish();
  }
});
