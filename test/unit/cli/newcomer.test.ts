/**
 * The CLI as a newcomer meets it: --help is an answer, not an error; a mistyped flag or command gets "did you mean";
 * every hint names an option that exists; a failed download and a dead endpoint end at once with one message and the
 * documented exit code (4); a 401 says whether a key was given; three runs leave git status clean.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { INPUT_HINT_IDS } from "../../../src/core/errors.js";
import { RUN_SETTING_KEYS } from "../../../src/core/settings.js";
import { renderHintId } from "../../../src/cli/hints.js";
import { parseRunArgs } from "../../../src/cli/run-command.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";
import { cli, repoRoot, spawnCollect } from "./harness.js";
import { closedPort } from "../../support/ports.js";

const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  spawnCollect(process.execPath, [cli, ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, SKILL_FOLLOWING_TASKS_CACHE: path.join(cwd, "task-sets"), ...env } });

describe("the CLI as a newcomer meets it", { timeout: 300_000 }, () => {
  let ws: string;
  before(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), "sf-newcomer-"));
  });
  after(() => {
    rmSync(ws, { recursive: true, force: true });
  });

  it("prints each command's help with exit code 0", async () => {
    for (const command of ["run", "report", "ablate", "tasks", "lint"]) {
      const r = await run([command, "--help"], ws);
      assert.equal(r.code, 0, `${command} --help: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`usage: skill-following ${command}`));
      assert.equal(r.stderr, "");
    }
  });

  it("suggests the flag or command that was meant", async () => {
    const flag = await run(["run", "--concurrancy", "4"], ws);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown option --concurrancy: did you mean --concurrency\?/);
    assert.match(flag.stderr, /hint: skill-following run --help lists every option/);
    const command = await run(["rnu"], ws);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command 'rnu': did you mean 'run'\?/);
    const far = await run(["report", "--zzzzzzzz"], ws);
    assert.doesNotMatch(far.stderr, /did you mean/, "no guess when nothing is close");
  });

  it("every flag a hint names is one `run` accepts", () => {
    for (const id of [...INPUT_HINT_IDS, ...RUN_SETTING_KEYS]) {
      for (const flag of renderHintId(id).match(/--[a-z][a-z-]*/g) ?? []) {
        const args = flag === "--resume" || flag === "--verbose" || flag === "--no-cache" ? [flag] : [flag, "1"];
        assert.doesNotThrow(() => parseRunArgs(args), `hint ${id} names ${flag}, which run does not accept`);
      }
    }
  });

  it("a failed download points at --mirror, with exit code 4", async () => {
    const port = await closedPort();
    const r = await run(["run", "--skills", path.join(repoRoot, "skills"), "--tasks", "gsm8k", "--mirror", `http://127.0.0.1:${port}`, "--model", "m", "--base-url", `http://127.0.0.1:${port}/v1`], ws);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /hint: .*--mirror <url>/);
    assert.doesNotMatch(r.stderr, /--base-url/, "the download hint names the mirror, not the model endpoint");
  });

  it("a dead endpoint ends a 43-task run at once with one message and exit code 4", async () => {
    const port = await closedPort();
    const r = await run(["run", "--skills", path.join(repoRoot, "skills"), "--tasks", path.join(repoRoot, "samples", "python-basics.jsonl"), "--model", "m", "--base-url", `http://127.0.0.1:${port}/v1`], ws);
    assert.equal(r.code, 4, r.stderr);
    const lines = r.stderr.split("\n");
    assert.equal(lines.filter((l) => /Nothing is listening at http:\/\/127\.0\.0\.1:\d+\/v1/.test(l)).length, 1, r.stderr);
    assert.deepEqual(lines.filter((l) => /^warning: .*(run |model request)/.test(l)), [], "no warning per failed call");
    assert.match(r.stderr, /hint: Start the model server, or point the base URL at one that runs\. \(--base-url <url>/);
  });

  describe("with a server that wants a key", () => {
    let server: ScriptedServer;
    before(async () => {
      server = await startScriptedServer({ script: () => ({ content: boxedAnswer("1") }), requireKey: "sk-right" });
    });
    after(async () => {
      await server.close();
    });

    it("says whether a key was given at all when the endpoint answers 401", async () => {
      writeFileSync(path.join(ws, "t.jsonl"), `${JSON.stringify({ id: "a", kind: "math-answer", prompt: "1?", answer: "1" })}\n`);
      const common = ["run", "--skills", path.join(repoRoot, "skills"), "--tasks", "t.jsonl", "--model", "m", "--base-url", server.url];
      const none = await run(common, ws);
      assert.match(none.stderr, /hint: No API key was given, and this endpoint requires one: set one\. \(OPENAI_API_KEY\)/);
      const wrong = await run(common, ws, { OPENAI_API_KEY: "sk-wrong" });
      assert.match(wrong.stderr, /hint: The endpoint rejected the API key that was given: set a valid one\. \(OPENAI_API_KEY\)/);
      assert.doesNotMatch(wrong.stderr, /sk-wrong/);
    });

    it("leaves git status clean of .skill-following after three runs", async () => {
      const repo = mkdtempSync(path.join(os.tmpdir(), "sf-newcomer-git-"));
      try {
        if (spawnSync("git", ["init", "-q"], { cwd: repo }).status !== 0) return;
        writeFileSync(path.join(repo, "t.jsonl"), `${JSON.stringify({ id: "a", kind: "math-answer", prompt: "1?", answer: "1" })}\n`);
        for (let i = 0; i < 3; i++) {
          const r = await run(["run", "--skills", path.join(repoRoot, "skills"), "--tasks", "t.jsonl", "--model", "m", "--base-url", server.url], repo, { OPENAI_API_KEY: "sk-right" });
          assert.equal(r.code, 0, r.stderr);
        }
        const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo, encoding: "utf8" }).stdout;
        assert.deepEqual(status.split("\n").filter((l) => l.includes(".skill-following")), []);
        assert.match(status, /t\.jsonl/, "git does list untracked files here");
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    });
  });
});
