import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { CheckDriver, type CheckPlan, type CheckResult } from "../../../src/core/grading/check-driver.js";
import { MAX_STRETCH, RunningJob, type JobClock } from "../../../src/core/sandbox/job.js";
import type { ProcessMessage } from "../../../src/core/sandbox/protocol.js";

/** A clock that moves only when the test says so, and remembers the one timer a job keeps. */
function fakeClock(): JobClock & { t: number; due: number | undefined; fire: () => void } {
  let fn: (() => void) | undefined;
  const clock = {
    t: 0,
    due: undefined as number | undefined,
    now: () => clock.t,
    setTimeout: (f: () => void, ms: number) => {
      fn = f;
      clock.due = clock.t + ms;
      return 1;
    },
    clearTimeout: () => {
      fn = undefined;
      clock.due = undefined;
    },
    fire: () => fn?.(),
  };
  return clock;
}

const plan = (n: number): CheckPlan => ({
  oracle: "default",
  atol: 0,
  expected: { count: n, timesMs: Array(n).fill(1), serializeMs: Array(n).fill(1), inputs: Array.from({ length: n }, (_, i) => `[${i}]`), values: Array.from({ length: n }, (_, i) => ({ v: i })), bytes: Array(n).fill(1) },
  limitsMs: Array(n).fill(1000),
  encodeMs: Array(n).fill(4),
  phases: [{ name: "base", count: n, capMs: 2500 }],
  loadCapMs: 500,
  graceMs: 100,
  memoryMb: 256,
  outputCaps: Array(n).fill(1 << 20),
});

test("host deadlines: each accepted message sets the next from the task's limits, and nothing moves one past the job's fixed total", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom<ProcessMessage["type"]>("loaded", "out", "raise", "done")), { maxLength: 40 }), (steps) => {
      const clock = fakeClock();
      const p = plan(5);
      const driver = new CheckDriver(p, () => clock.t);
      let result: CheckResult | undefined;
      const job = new RunningJob<CheckResult>(driver, (v) => (result = v), () => {}, undefined, (j) => j.settle({ value: j.driver.onTimeout() }), () => {}, clock);
      assert.equal(clock.due, p.loadCapMs + p.graceMs);
      let next = 0;
      for (const [wait, type] of steps) {
        if (result) break;
        clock.t += wait;
        if (clock.due !== undefined && clock.t >= clock.due) {
          clock.fire();
          break;
        }
        const msg = (type === "out" ? { type, i: next, v: next } : type === "raise" ? { type, i: next, kind: "error", error: "x" } : type === "done" ? { type, count: 5 } : { type }) as ProcessMessage;
        const step = driver.onMessage(msg);
        if ("settle" in step) job.settle({ value: step.settle });
        else {
          job.arm(step.next);
          if (type === "out") next++;
        }
        // The invariant: whatever arrived, the deadline never lies past start + totalMs.
        if (clock.due !== undefined) assert.ok(clock.due <= driver.totalMs, `deadline ${clock.due} > total ${driver.totalMs}`);
      }
      if (!result && clock.due !== undefined) {
        clock.t = clock.due;
        clock.fire();
      }
      assert.ok(result, "every job ends");
    }),
    { numRuns: 300 },
  );
});

test("host deadlines: an input gets its limit plus its encoding allowance plus the grace, never more than its phase has left", () => {
  const clock = fakeClock();
  const p = plan(3);
  const driver = new CheckDriver(p, () => clock.t);
  let result: CheckResult | undefined;
  const job = new RunningJob<CheckResult>(driver, (v) => (result = v), () => {}, undefined, (j) => j.settle({ value: j.driver.onTimeout() }), () => {}, clock);
  clock.t = 200;
  const loaded = driver.onMessage({ type: "loaded" });
  assert.deepEqual(loaded, { next: 1000 + 4 + 100 });
  job.arm((loaded as { next: number }).next);
  clock.t = 1200;
  const second = driver.onMessage({ type: "out", i: 0, v: 0 });
  assert.deepEqual(second, { next: 1000 + 4 + 100 });
  clock.t = 2600; // the phase (2,500 ms from 200) has 100 ms left
  const third = driver.onMessage({ type: "out", i: 1, v: 1 });
  assert.deepEqual(third, { next: 100 + 100 });
  job.arm((third as { next: number }).next);
  clock.t = clock.due!;
  clock.fire();
  assert.equal(result?.status, "fail");
  assert.match(JSON.stringify(result), /"kind":"timeout".*"index":2/);
});

test("host deadlines on a busy machine: time the process waited for a CPU is given back, a sleeping process is not, and the fixed total still holds", () => {
  const p = plan(3);
  const start = (waitAt: (t: number) => number) => {
    const clock = fakeClock();
    const driver = new CheckDriver(p, () => clock.t);
    let result: CheckResult | undefined;
    const job = new RunningJob<CheckResult>(driver, (v) => (result = v), () => {}, undefined, (j) => j.settle({ value: j.driver.onTimeout() }), () => {}, clock, () => waitAt(clock.t));
    const step = driver.onMessage({ type: "loaded" }) as { next: number };
    job.arm(step.next);
    return { clock, job, driver, result: () => result };
  };

  // Starved: half of every millisecond went to other processes. The input's 1,104 ms come back in halves.
  const starved = start((t) => t / 2);
  const firstDue = starved.clock.due!;
  starved.clock.t = firstDue;
  starved.clock.fire();
  assert.equal(starved.result(), undefined, "a starved process is not timed out at its first deadline");
  assert.ok(starved.clock.due! > firstDue);
  // It answers during the extension: the input passes.
  const next = starved.driver.onMessage({ type: "out", i: 0, v: 0 });
  assert.ok("next" in next);

  // Sleeping: no CPU wait at all. The deadline is final.
  const sleeping = start(() => 0);
  sleeping.clock.t = sleeping.clock.due!;
  sleeping.clock.fire();
  assert.equal(sleeping.result()?.status, "fail");
  assert.match(JSON.stringify(sleeping.result()), /"kind":"timeout"/);
  assert.equal(sleeping.job.extendedMs, 0);

  // A probe that claims endless waiting still ends at MAX_STRETCH × the total, in wall time.
  const endless = start((t) => t * 1000);
  let fires = 0;
  while (!endless.result() && fires++ < 10_000) {
    endless.clock.t = endless.clock.due!;
    assert.ok(endless.clock.t <= MAX_STRETCH * endless.driver.totalMs, `deadline ${endless.clock.t} past ${MAX_STRETCH} × the total ${endless.driver.totalMs}`);
    endless.clock.fire();
  }
  assert.equal(endless.result()?.status, "fail");
  assert.equal(endless.clock.t, MAX_STRETCH * endless.driver.totalMs);
});

test("host deadlines on a busy machine: a phase's cap counts the process's own time, not the time the machine took from it", () => {
  const p = plan(3); // base phase: 2,500 ms cap, each input 1,000 ms + 4 + 100 grace
  const clock = fakeClock();
  const driver = new CheckDriver(p, () => clock.t);
  let result: CheckResult | undefined;
  // Two thirds of the wall time went to other processes.
  const job = new RunningJob<CheckResult>(driver, (v) => (result = v), () => {}, undefined, (j) => j.settle({ value: j.driver.onTimeout() }), () => {}, clock, () => (clock.t * 2) / 3);
  job.arm((driver.onMessage({ type: "loaded" }) as { next: number }).next);
  for (let i = 0; i < 3; i++) {
    clock.t += 2400; // 800 ms of the process's own time per input: 2,400 ms in all, within the 2,500 ms cap
    const step = driver.onMessage({ type: "out", i, v: i });
    assert.ok(!("settle" in step) || step.settle.status === "pass", `input ${i}: ${JSON.stringify(step)}`);
    if ("next" in step) job.arm(step.next);
    else job.settle({ value: step.settle });
  }
  const done = driver.onMessage({ type: "done", count: 3 });
  assert.deepEqual(done, { settle: { status: "pass", count: 3 } });
  assert.equal(result, undefined);
});

test("treeStats reads a real process's run-queue wait (Linux): a process sharing one CPU with a busy loop waits", { skip: process.platform !== "linux" ? "Linux /proc only" : false }, async () => {
  const { spawn } = await import("node:child_process");
  const { treeStats } = await import("../../../src/core/sandbox/job.js");
  const busy = "const end = Date.now() + 60000; while (Date.now() < end) {}";
  // Both loops on CPU 0: each is runnable while the other runs, so each one's wait grows.
  const a = spawn("taskset", ["-c", "0", process.execPath, "-e", busy], { stdio: "ignore" });
  const b = spawn("taskset", ["-c", "0", process.execPath, "-e", busy], { stdio: "ignore" });
  try {
    let wait = 0;
    for (let i = 0; i < 400 && wait === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      wait = treeStats(a.pid!).cpuWaitMs;
    }
    assert.ok(wait > 0, "the run-queue wait of a contended process is read");
    assert.ok(treeStats(a.pid!).rss > 0);
    assert.deepEqual(treeStats(2 ** 22 + 12345), { rss: 0, cpuWaitMs: 0 }, "a pid that does not exist reads as zeros");
  } finally {
    a.kill("SIGKILL");
    b.kill("SIGKILL");
  }
});

test("killTree: a kill reaches what the wrapper forked, in its process group and past a setsid (Linux)", { skip: process.platform !== "linux" ? "Linux /proc and process groups only" : false }, async () => {
  const { spawn } = await import("node:child_process");
  const { descendants, killTree } = await import("../../../src/core/sandbox/job.js");
  // A wrapper (bash) with one child in its group and one that left for a session of its own, as bwrap's init does.
  const wrapper = spawn("bash", ["-c", "sleep 1000 & setsid sleep 1000 & wait"], { detached: true, stdio: "ignore" });
  let below: number[] = [];
  for (let i = 0; i < 400 && below.length < 2; i++) {
    await new Promise((r) => setTimeout(r, 25));
    below = descendants(wrapper.pid!);
  }
  assert.equal(below.length, 2, "both children are found below the wrapper");
  const exited = new Promise((r) => wrapper.once("exit", r));
  killTree(wrapper, false);
  await exited;
  const alive = (pid: number) => {
    try {
      const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      return state !== undefined && state !== "Z";
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 400 && below.some(alive); i++) await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(below.filter(alive), [], "no child of the wrapper outlives the kill");
});
