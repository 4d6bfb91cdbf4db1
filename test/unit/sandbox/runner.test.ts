import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { CancelledError } from "../../../src/core/errors.js";
import type { Logger } from "../../../src/core/logger.js";
import { SandboxPool } from "../../../src/core/sandbox/runner.js";
import { sandboxDist } from "./support.js";

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, trace() {}, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

test("a crash of the sandbox process fails only its job; the batch goes on with a new process", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), poolSize: 1 });
  try {
    await pool.ready();
    const jobs = [
      pool.run({ mode: "exec", code: "print('before')", capMs: 5000 }),
      pool.run({ mode: "exec", code: "import js\njs.constructor.constructor('process.exit(3)')()", capMs: 5000 }),
      pool.run({ mode: "exec", code: "print('after')", capMs: 5000 }),
    ];
    const [a, b, c] = await Promise.all(jobs);
    assert.deepEqual(a!.result, { status: "exec", stdout: "before\n" });
    assert.equal(b!.result.status, "fail");
    assert.match(b!.result.status === "fail" ? (b!.result.error ?? "") : "", /sandbox process ended \(exit code 3/);
    assert.deepEqual(c!.result, { status: "exec", stdout: "after\n" });
  } finally {
    await pool.finish();
  }
});

test("finish() is idempotent, rejects queued jobs, and later runs are refused", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), poolSize: 1 });
  const running = pool.run({ mode: "exec", code: "while True: pass", capMs: 60_000 });
  const queued = pool.run({ mode: "exec", code: "print(1)", capMs: 1000 });
  await pool.finish();
  await pool.finish();
  await assert.rejects(running, CancelledError);
  await assert.rejects(queued, CancelledError);
  await assert.rejects(pool.run({ mode: "exec", code: "1", capMs: 1000 }), /finished/);
});

test("an abort signal cancels a running job and kills its process", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), poolSize: 1 });
  try {
    await pool.ready();
    const ac = new AbortController();
    const p = pool.run({ mode: "exec", code: "while True: pass", capMs: 60_000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const t0 = performance.now();
    await assert.rejects(p, CancelledError);
    assert.ok(performance.now() - t0 < 5000);
    const next = await pool.run({ mode: "exec", code: "print(2)", capMs: 5000 });
    assert.deepEqual(next.result, { status: "exec", stdout: "2\n" });
  } finally {
    await pool.finish();
  }
});

test("fallback without the permission model: a worker thread, said loudly, reported as worker-fallback", async () => {
  const logger = recordingLogger();
  const pool = SandboxPool.create({ distDir: await sandboxDist(), poolSize: 1, forceFallback: true, logger });
  try {
    assert.equal(pool.isolation, "worker-fallback");
    assert.ok(logger.warnings.some((w) => /SANDBOX FALLBACK/.test(w) && /not attack-proof/.test(w)));
    const r = await pool.run({ mode: "exec", code: "import os\nprint(sum(range(10)))\nos.system('true')", capMs: 5000 });
    assert.deepEqual(r.result, { status: "exec", stdout: "45\n", error: "OSError: os.system is disabled in the sandbox" });
    const loop = await pool.run({ mode: "exec", code: "while True: pass", capMs: 500 });
    assert.deepEqual(loop.result, { status: "exec", stdout: "", error: "timeout" });
  } finally {
    await pool.finish();
  }
});

test("a missing build is a clear error naming the fix", () => {
  assert.throws(() => SandboxPool.create({ distDir: "/nonexistent-dist" }), (e: Error & { options?: { hint?: string } }) => {
    assert.match(e.message, /not built: missing sandbox-worker\.js/);
    assert.match(e.options?.hint ?? "", /npm run build/);
    return true;
  });
});

test("the pool names its Python runtime (Pyodide and CPython versions), which keys the verdict cache", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), poolSize: 1 });
  try {
    const runtime = JSON.parse(pool.runtime) as { pyodide: string; info: { python: string } };
    const shipped = JSON.parse(readFileSync(path.join(__dirname, "../../../node_modules/pyodide/package.json"), "utf8")) as { version: string };
    assert.equal(runtime.pyodide, shipped.version);
    const r = await pool.run({ mode: "exec", code: "import sys\nprint('%d.%d.%d' % sys.version_info[:3])", capMs: 5000 });
    assert.equal(r.result.status === "exec" ? r.result.stdout.trim() : r.result.status, runtime.info.python);
  } finally {
    await pool.finish();
  }
});
