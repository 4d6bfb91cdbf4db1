/**
 * The sandbox forwarder's lifeline (src/core/agents/confine.ts): descriptor 3 is a pipe whose only writer is the
 * evaluation. When the evaluation dies, however it dies, the forwarder kills the harness it started and exits, so a
 * sandbox never outlives the evaluation (bubblewrap's --die-with-parent misses an evaluation killed before bwrap set
 * it). Run here without bubblewrap: the forwarder script itself, with `sleep` standing in for the harness.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FORWARDER_SOURCE } from "../../../src/core/agents/confine.js";

const alive = (pid: number) => {
  try {
    // A zombie has exited: only a process that still runs counts.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("the forwarder's lifeline", { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-lifeline-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, "forwarder.cjs");
  writeFileSync(script, FORWARDER_SOURCE);

  it("the harness runs while the evaluation holds the pipe, and is killed with the forwarder when the pipe closes", async (t) => {
    const pidFile = path.join(dir, "harness.pid");
    // The stand-in harness writes its pid, then sleeps far longer than the test.
    const harness = ["/bin/sh", "-c", `echo $$ > ${pidFile}; exec sleep 600`];
    const forwarder = spawn(process.execPath, [script, path.join(dir, "no.sock"), "0", ...harness], { stdio: ["ignore", "ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => forwarder.on("exit", (code) => resolve(code)));
    t.after(() => {
      forwarder.kill("SIGKILL");
      if (harnessPid && alive(harnessPid)) process.kill(harnessPid, "SIGKILL");
    });
    let harnessPid = 0;
    for (let i = 0; i < 600 && !harnessPid; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        harnessPid = Number(readFileSync(pidFile, "utf8").trim());
      } catch {
        // not started yet
      }
    }
    assert.ok(harnessPid > 0 && alive(harnessPid), "the harness started and runs");
    assert.ok(alive(forwarder.pid!), "the forwarder waits for it");
    // The evaluation ends: its end of the lifeline closes (as the kernel closes it when the process is killed).
    (forwarder.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
    assert.equal(await exited, 137, "the forwarder exits as killed");
    for (let i = 0; i < 200 && alive(harnessPid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!alive(harnessPid), "the harness is gone with it");
  });
});
