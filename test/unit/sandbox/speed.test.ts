import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { SandboxPool } from "../../../src/core/sandbox/runner.js";
import { evalLoopIndex, tierFlags, wasmExportIndex } from "../../../src/core/sandbox/tiers.js";
import { sandboxDist, snapshotCache } from "./support.js";

test("queued answers start by priority, then in arrival order, whatever order they were queued in", async () => {
  const pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
  try {
    await pool.ready();
    const started: string[] = [];
    // The first job holds the only slot while the others queue; each records when it ran by its own output.
    const blocker = pool.exec("import time\ntime.sleep(1.5)\nprint('blocker')", 20_000);
    const jobs = [
      { name: "late-low", priority: 9 },
      { name: "urgent", priority: 1 },
      { name: "default" },
      { name: "mid-a", priority: 5 },
      { name: "mid-b", priority: 5 },
    ].map((j) =>
      pool.exec(`print(${JSON.stringify(j.name)})`, 20_000, j.priority === undefined ? {} : { priority: j.priority }).then((r) => {
        started.push(r.stdout.trim());
      }),
    );
    assert.equal((await blocker).stdout.trim(), "blocker");
    await Promise.all(jobs);
    assert.deepEqual(started, ["urgent", "mid-a", "mid-b", "late-low", "default"]);
  } finally {
    await pool.finish();
  }
});

test("the interpreter loop's function index is read from the shipped wasm's export section", async () => {
  const dist = await sandboxDist();
  const pyodideDir = path.join(dist, "pyodide");
  const index = evalLoopIndex(pyodideDir);
  assert.equal(typeof index, "number");
  // It is an exported function of the module V8 really compiles: the export names it, and only it.
  const bytes = readFileSync(path.join(pyodideDir, "pyodide.asm.wasm"));
  // (The project's TypeScript lib has no WebAssembly globals.)
  type Wasm = { Module: { new (b: Uint8Array): object; exports(m: object): Array<{ name: string; kind: string }> } };
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const exports = wasm.Module.exports(new wasm.Module(bytes));
  assert.ok(exports.some((e) => e.name === "_PyEval_EvalFrameDefault" && e.kind === "function"));
  assert.equal(wasmExportIndex(bytes, "no_such_export"), null);
  assert.equal(wasmExportIndex(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]), "_PyEval_EvalFrameDefault"), null, "not a wasm binary");
  assert.deepEqual(tierFlags("answer", pyodideDir), ["--no-wasm-dynamic-tiering", `--wasm-tier-up-filter=${index}`]);
  assert.deepEqual(tierFlags("reference", pyodideDir), []);
});

test("answer processes run with their tier flags and still answer (a process that rejected a flag would not start)", async () => {
  const seen: string[][] = [];
  const dist = await sandboxDist();
  const pool = SandboxPool.create({
    distDir: dist,
    snapshotCacheDir: snapshotCache,
    poolSize: 1,
    tierFlags: (role) => {
      const flags = tierFlags(role, path.join(dist, "pyodide"));
      seen.push(flags);
      return flags;
    },
  });
  try {
    await pool.ready();
    const r = await pool.exec("def f(n):\n    return sum(i * i for i in range(n))\nprint(f(1000))", 20_000);
    assert.equal(r.stdout.trim(), String([...Array(1000).keys()].reduce((a, i) => a + i * i, 0)), r.error);
    assert.ok(seen.some((f) => f.some((x) => x.startsWith("--wasm-tier-up-filter="))), "the answer role got the filter flag");
  } finally {
    await pool.finish();
  }
});
