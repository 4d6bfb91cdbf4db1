/**
 * The sweep of harness work roots: a folder whose owner process is dead, or whose pid now names a process started
 * later, is removed; a running evaluation's folder, one made in another PID namespace, and anything not named as a
 * work root, is kept.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createWorkRoot, sweepOrphanedWorkRoots } from "../../../src/core/agents/workroot.js";

/** A process that has exited (its pid is free). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

describe("sweeping the work roots of killed harness evaluations", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-workroot-"));
  const live = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  after(() => {
    live.kill("SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  });

  const root = (agent: string, pid: number, owner?: string) => {
    const dir = path.join(tmp, `skill-following-${agent}-${pid}-${Math.random().toString(36).slice(2, 8).padEnd(6, "x")}`);
    mkdirSync(path.join(dir, "run", "workspace"), { recursive: true });
    if (owner !== undefined) writeFileSync(path.join(dir, "owner"), owner);
    return dir;
  };

  it("removes a dead owner's folder and a reused pid's; keeps a live owner's, its own and others'", async () => {
    const dead = root("claude-code", await deadPid());
    const ns = readlinkSync("/proc/self/ns/pid");
    const deadCodex = root("codex", await deadPid(), `1 123 ${ns}\n`);
    // The pid is alive but belongs to a process started at another time: the owner is gone.
    const reused = root("codex", live.pid!, `${live.pid} 1 ${ns}\n`);
    // Made in another PID namespace (another container sharing the folder): its pid means nothing here, kept.
    const foreign = root("codex", await deadPid(), "1 123 pid:[1]\n");
    // A live owner without an owner file (or with the right start time) is kept.
    const running = root("claude-code", live.pid!);
    const mine = createWorkRoot("codex", tmp);
    const other = path.join(tmp, "skill-following-builtin-1-abcdef");
    mkdirSync(other);
    const removed = sweepOrphanedWorkRoots(tmp).sort();
    assert.deepEqual(removed, [dead, deadCodex, reused].sort());
    for (const d of [dead, deadCodex, reused]) assert.ok(!existsSync(d));
    for (const d of [running, mine, other, foreign]) assert.ok(existsSync(d), `${d} is kept`);
    const [pid, started, namespace] = readFileSync(path.join(mine, "owner"), "utf8").trim().split(" ");
    assert.equal(namespace, ns);
    assert.equal(Number(pid), process.pid);
    assert.match(started!, /^\d+$/, "the owner's start time is recorded (Linux)");
  });
});
