import assert from "node:assert/strict";
import { test } from "node:test";
import { SandboxPool } from "../../../src/core/sandbox/runner.js";
import { tierFlags } from "../../../src/core/sandbox/tiers.js";
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

test("answers run under the same compiler tiers as the reference process whose timing sets their limits", () => {
  assert.deepEqual(tierFlags("answer"), tierFlags("reference"));
});

test("answer processes run with their tier flags and still answer (a process that rejected a flag would not start)", async () => {
  const seen: string[][] = [];
  const dist = await sandboxDist();
  const pool = SandboxPool.create({
    distDir: dist,
    snapshotCacheDir: snapshotCache,
    poolSize: 1,
    // The bench's hook: compare tier configurations. A process that rejected a flag would not start.
    tierFlags: (role) => {
      const flags = role === "answer" ? ["--no-wasm-dynamic-tiering"] : tierFlags(role);
      seen.push(flags);
      return flags;
    },
  });
  try {
    await pool.ready();
    const r = await pool.exec("def f(n):\n    return sum(i * i for i in range(n))\nprint(f(1000))", 20_000);
    assert.equal(r.stdout.trim(), String([...Array(1000).keys()].reduce((a, i) => a + i * i, 0)), r.error);
    assert.ok(seen.some((f) => f.includes("--no-wasm-dynamic-tiering")), "the answer role got its flags");
  } finally {
    await pool.finish();
  }
});
