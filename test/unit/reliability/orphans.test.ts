/**
 * Reliability: a killed CLI leaves no sandbox worker behind. Killing the CLI with SIGKILL (a CI timeout, a
 * crashed extension host) gives it no chance to clean up, so each worker must notice on its own that its host
 * is gone — even while Python is stuck in C code that the in-worker interrupt cannot stop.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { pythonAnswer, taskPlanScript } from "../../support/scripts.js";
import { chooseRuntime } from "../../../src/core/sandbox/runner.js";
import { startCli, tempDir } from "./cli-process.js";

/** Descendants of `pid` (from /proc), with their command lines: the sandbox runs under wrappers (bwrap, unshare). */
function descendantsOf(pid: number): Array<{ pid: number; cmdline: string }> {
  const out: Array<{ pid: number; cmdline: string }> = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const c of childrenOf(stack.pop()!)) {
      out.push(c);
      stack.push(c.pid);
    }
  }
  return out;
}

/** Children of `pid` (from /proc), with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; cmdline: string }> {
  const out: Array<{ pid: number; cmdline: string }> = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push({ pid: Number(name), cmdline: readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/**
 * CPU seconds used by `pid` (or only its main thread), or undefined once it is gone (a zombie counts as gone).
 * The main thread is what matters: V8 compiles Pyodide's wasm on background threads, Python runs on the main one.
 */
function cpuSeconds(pid: number, mainThreadOnly = false): number | undefined {
  try {
    const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

describe("reliability: no orphaned sandbox workers after SIGKILL", { skip: process.platform !== "linux" ? "reads /proc (Linux only)" : false }, () => {
  let ws: string;
  let server: ScriptedServer;
  const leftovers: number[] = [];

  before(async () => {
    ws = tempDir("sf-rel-orphans-");
    // A canonical solution that spins in C (sum over a huge range): the in-worker interrupt cannot land there,
    // only the host's hard deadline (300 s for expected outputs) would stop it.
    const task = { id: "spin/1", kind: "python-function", prompt: "Write f(x) that returns the sum of range(10**15).", entryPoint: "f", canonicalSolution: "def f(x):\n    return sum(range(10**15))\n", tests: { base: [[1]] } };
    writeFileSync(path.join(ws, "tasks.jsonl"), `${JSON.stringify(task)}\n`);
    const skill = path.join(ws, "skills", "sum-ranges");
    mkdirSync(skill, { recursive: true });
    writeFileSync(path.join(skill, "SKILL.md"), "---\nname: sum-ranges\ndescription: Closed forms for sums of ranges. Use for arithmetic series.\n---\nUse n*(n-1)//2.\n");
    const answer = pythonAnswer("def f(x):\n    return 10**15 * (10**15 - 1) // 2");
    server = await startScriptedServer({ script: taskPlanScript(() => ({ disabled: answer, enabled: [{ answer }] })) });
  });
  after(async () => {
    for (const pid of leftovers) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  // Both runtimes, pinned: the default (auto) is either, depending on the machine. A Pyodide worker is a node
  // process running sandbox-worker.js; a CPython one is the interpreter the probe found, under bubblewrap.
  const native = process.platform === "linux" ? chooseRuntime("auto").native : undefined;
  for (const runtime of ["pyodide", "cpython"] as const) {
    const isWorker = (cmdline: string) => (runtime === "pyodide" ? cmdline.startsWith(process.execPath) && cmdline.includes("sandbox-worker") : !!native && cmdline.startsWith(`${native.bin} -I -S -B -c `));
    it(
      `a worker busy in C code dies with its CLI when the CLI is SIGKILLed (${runtime})`,
      { skip: runtime === "cpython" && !native ? "the CPython runtime's probe does not pass here" : false },
      async () => {
      const run = startCli(["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--concurrency", "1", "--python", runtime, "--out", `runs/${runtime}.jsonl`, "--cache-dir", `cache-${runtime}`], { cwd: ws, apiKey: "sk-test-orphans", baseUrl: server.url });
      const cli = run.child.pid!;
      let finished = false;
      void run.done.then(() => (finished = true));
      // Wait until a sandbox node process's main thread has burnt 5 CPU-seconds: past interpreter start-up (about 1 s
      // of main-thread CPU), inside the C loop. (Its wrappers — bwrap, unshare — burn nothing.)
      let worker: number | undefined;
      for (let polls = 0; !finished && polls < 900; polls++) {
        const w = descendantsOf(cli).find((c) => isWorker(c.cmdline) && (cpuSeconds(c.pid, true) ?? 0) >= 5);
        if (w) {
          worker = w.pid;
          break;
        }
        await sleep(100);
      }
      assert.ok(!finished, `the CLI is still running (${(await Promise.race([run.done, sleep(0)]))?.stderr ?? ""})`);
      assert.ok(worker, "a sandbox worker is busy");
      leftovers.push(worker);
      run.child.kill("SIGKILL");
      await run.done;
      // The kernel ends it (bwrap --die-with-parent, or setpriv --pdeathsig): it does not wait for the C loop to return.
      // The polls only guard against a hang; the loop itself would spin for hours.
      for (let polls = 0; cpuSeconds(worker) !== undefined && polls < 300; polls++) await sleep(100);
      assert.equal(cpuSeconds(worker), undefined, `sandbox worker ${worker} outlived its CLI`);
      },
    );
  }
});
