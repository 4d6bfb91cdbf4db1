/**
 * Endpoints that cannot serve a run end it at once with exit code 4 and say what to do, through the real CLI and the
 * real `openai` client over loopback HTTP: a closed port, a port fetch refuses, a host name that never resolves
 * (.invalid), a server that accepts and never answers, one that sends its headers and stalls. The stalled cases run
 * with a 1 s request timeout and concurrency 1, and count the attempts the server saw, never the time they took.
 * Output is counted on stdout and stderr together, every line (the CLI prints no progress line that it clears).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readRunSummaries } from "../../../src/core/runs/store.js";
import { SILENT_ATTEMPTS_TO_TRIP } from "../../../src/core/models/openai-client.js";
import { closedPort } from "../../support/ports.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";
import { cli, repoRoot, spawnCollect, type CliResult } from "./harness.js";

const SAMPLES = path.join(repoRoot, "samples", "python-basics.jsonl");
const SKILLS = path.join(repoRoot, "skills");

const lines = (r: CliResult): string[] => `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.trim() !== "");

describe("endpoints that cannot serve a run end it at once with exit code 4", { timeout: 300_000 }, () => {
  let ws: string;
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnCollect(process.execPath, [cli, "run", "--skills", SKILLS, ...args], {
      cwd: ws,
      env: { PATH: process.env.PATH ?? "", HOME: ws, SKILL_FOLLOWING_TASKS_CACHE: path.join(ws, "task-sets"), ...env },
    });

  before(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), "sf-endpoints-"));
    writeFileSync(path.join(ws, "three.jsonl"), ["a", "b", "c"].map((id) => JSON.stringify({ id, kind: "math-answer", prompt: `[task-${id}] 1?`, answer: "1" })).join("\n") + "\n");
  });
  after(() => {
    rmSync(ws, { recursive: true, force: true });
  });

  it("a refused endpoint: the 43-task sample set ends with exit 4 in three lines (model, error, hint)", async () => {
    const port = await closedPort();
    const r = await run(["--tasks", SAMPLES, "--model", "m", "--base-url", `http://127.0.0.1:${port}/v1`]);
    assert.equal(r.code, 4, r.stderr);
    assert.ok(lines(r).length <= 3, `at most 3 lines:\n${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^error: Nothing is listening at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)$/m);
    assert.match(r.stderr, /^hint: Start the model server, or point the base URL at one that runs\. \(--base-url <url>/m);
  });

  it("a port fetch refuses to connect to (:9) is said so before any request, exit 4 in three lines", async () => {
    const r = await run(["--tasks", SAMPLES, "--limit", "2", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]);
    assert.equal(r.code, 4, r.stderr);
    assert.ok(lines(r).length <= 3, `at most 3 lines:\n${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /error: Nothing can be reached at http:\/\/127\.0\.0\.1:9\/v1: port 9 is one HTTP clients refuse to connect to/);
    assert.match(r.stderr, /hint: Run the model server on another port/);
  });

  it("a host name that never resolves (.invalid): exit 4 in three lines, naming the host name", async () => {
    const r = await run(["--tasks", SAMPLES, "--model", "m", "--base-url", "http://nonexistent.invalid/v1"], { OPENAI_API_KEY: "sk-test-endpoints-0000" });
    assert.equal(r.code, 4, r.stderr);
    assert.ok(lines(r).length <= 3, `at most 3 lines:\n${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /error: Nothing can be reached at http:\/\/nonexistent\.invalid\/v1: its host name does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
    assert.doesNotMatch(r.stderr, /sk-test-endpoints/);
  });

  describe("servers that accept and never answer", () => {
    let silent: ScriptedServer;
    let headersOnly: ScriptedServer;
    before(async () => {
      silent = await startScriptedServer({ script: () => ({ content: boxedAnswer("1") }), faults: { rate: 1, kinds: ["stall"] } });
      headersOnly = await startScriptedServer({ script: () => ({ content: boxedAnswer("1") }), faults: { rate: 1, kinds: ["stall-after-headers"] } });
    });
    after(async () => {
      await silent?.close();
      await headersOnly?.close();
    });

    it("no answer at all: the breaker stops the run after 3 attempts in a row, exit 4, and says what to do", async () => {
      const r = await run(["--tasks", "three.jsonl", "--model", "m", "--base-url", silent.url, "--timeout", "1", "--concurrency", "1", "--out", "runs/silent.jsonl"]);
      assert.equal(r.code, 4, r.stderr);
      assert.equal(silent.faultsInjected.stall, SILENT_ATTEMPTS_TO_TRIP, "one attempt per strike, no more");
      assert.equal(SILENT_ATTEMPTS_TO_TRIP, 3);
      assert.ok(lines(r).length <= 3, `at most 3 lines:\n${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /error: No answer from http:\/\/127\.0\.0\.1:\d+\/v1: 3 attempts in a row failed \(request timed out\), and it has not answered once in this run/);
      assert.match(r.stderr, /hint: .*allow more time per request\. \(--timeout <seconds>/);
    });

    it("headers, then nothing: the same breaker, exit 4 after 3 attempts", async () => {
      const r = await run(["--tasks", "three.jsonl", "--model", "m", "--base-url", headersOnly.url, "--timeout", "1", "--concurrency", "1", "--out", "runs/headers.jsonl"]);
      assert.equal(r.code, 4, r.stderr);
      assert.equal(headersOnly.faultsInjected["stall-after-headers"], SILENT_ATTEMPTS_TO_TRIP);
      assert.ok(lines(r).length <= 3, `at most 3 lines:\n${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /error: No answer from http:\/\/127\.0\.0\.1:\d+\/v1: 3 attempts in a row failed \(response timed out\)/);
    });
  });

  it("--resume after the breaker keeps the finished runs and continues with the rest", async () => {
    // Tasks a and b are answered; c is refused (400: not retried, the run fails and is resumable).
    const good = await startScriptedServer({ script: (req) => (JSON.stringify(req.messages).includes("[task-c]") ? { error: { status: 400 } } : { content: boxedAnswer("1") }) });
    const silent = await startScriptedServer({ script: () => ({ content: boxedAnswer("1") }), faults: { rate: 1, kinds: ["stall"] } });
    const healed = await startScriptedServer({ script: () => ({ content: boxedAnswer("1") }) });
    try {
      const common = ["--tasks", "three.jsonl", "--model", "m", "--out", "runs/resume.jsonl", "--concurrency", "1", "--timeout", "1"];
      const first = await run([...common, "--base-url", good.url]);
      assert.equal(first.code, 1, first.stderr);
      const file = path.join(ws, "runs", "resume.jsonl");
      assert.equal((await readRunSummaries(file)).records.length, 4);

      const stalled = await run([...common, "--resume", "--base-url", silent.url]);
      assert.equal(stalled.code, 4, stalled.stderr);
      assert.equal(silent.faultsInjected.stall, SILENT_ATTEMPTS_TO_TRIP);
      assert.equal((await readRunSummaries(file)).records.length, 4, "the finished runs are kept, nothing is added");

      const resumed = await run([...common, "--resume", "--base-url", healed.url]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(healed.calls, 2, "only task c's two runs are asked for");
      const back = await readRunSummaries(file);
      assert.deepEqual([...new Set(back.records.map((x) => x.taskId))].sort(), ["a", "b", "c"]);
      assert.equal(back.records.length, 6);
    } finally {
      await Promise.all([good.close(), silent.close(), healed.close()]);
    }
  });
});
