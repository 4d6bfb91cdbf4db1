/**
 * The model proxy's Unix socket of a confined harness run (the real Codex binary, bubblewrap, the scripted model).
 * Linux binds at most 107 bytes of socket path, and Node binds a longer one truncated without an error, so bubblewrap
 * then finds no socket and every run fails before its first model call. Found through section ablation from the
 * CLI: a variant's runs used a folder one level deeper, which under the CLI test's temporary folder made the path
 * 111 bytes, and each run was recorded as a graded "no answer" with 0 model calls. Now a run's folder is one level
 * under the work root whatever its run group, a path over the limit is refused before any run, and a sandbox that
 * bubblewrap cannot build is a harness failure (the run stops), never a graded run.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { codexAdapter } from "../../../src/core/agents/codex.js";
import { MAX_SOCKET_PATH_BYTES, proxySocketPath, runHarness, socketPathProblem } from "../../../src/core/agents/run.js";
import { HarnessError, type HarnessSession } from "../../../src/core/agents/types.js";
import { InputError } from "../../../src/core/errors.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { prepareHarness } from "../../../src/core/runs/harness.js";
import { silentLogger } from "../../../src/core/logger.js";
import { parseRunSettings } from "../../../src/core/settings.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { codexRead, harnessPlanScript } from "../../support/scripted-harness.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";

/** A work root (created) whose proxy socket path is exactly `bytes` long. */
function workRootWithSocketOf(parent: string, bytes: number): string {
  const pad = bytes - Buffer.byteLength(proxySocketPath(path.join(parent, "w"))) + 1;
  assert.ok(pad >= 1, `the temporary folder ${parent} is too deep for this test`);
  const root = path.join(parent, "w".repeat(pad));
  mkdirSync(root, { recursive: true });
  assert.equal(Buffer.byteLength(proxySocketPath(root)), bytes);
  return root;
}

describe("the proxy socket path of a confined harness run", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-sock-"));
  let server: ScriptedServer;
  let skills: Skill[];
  let session: Omit<HarnessSession, "workRoot">;
  const task = { id: "one", kind: "math-answer" as const, prompt: "Add 1 and 1.", answer: "2" };
  const input = () => ({ task, condition: "enabled" as const, skills, client: createOpenAIClient({ baseURL: server.url, apiKey: "k", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), model: "m", params: { temperature: 0 }, sampleIndex: 0, maxTurns: 4 });

  before(async () => {
    server = await startScriptedServer({ script: harnessPlanScript({ [task.prompt]: { enabled: [codexRead("count-up"), { answer: boxedAnswer("2") }], disabled: [{ answer: boxedAnswer("2") }] } }) });
    const skillDir = path.join(dir, "skills", "count-up");
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(path.join(skillDir, "SKILL.md"), "---\nname: count-up\ndescription: Use when adding one.\n---\nCount up.\n");
    skills = (await scanSkills([path.join(dir, "skills")])).skills;
    const adapter = codexAdapter();
    session = { adapter, binary: await adapter.locate(), confinement: "bwrap", fixedDate: "2025-01-01", timeoutMs: 120_000 };
  });
  after(() => server.close());

  it("names the limit: a work root whose socket path is 107 bytes is fine, one of 108 is refused with the path", () => {
    assert.equal(socketPathProblem(workRootWithSocketOf(path.join(dir, "pure"), MAX_SOCKET_PATH_BYTES)), undefined);
    const over = workRootWithSocketOf(path.join(dir, "pure"), MAX_SOCKET_PATH_BYTES + 1);
    assert.match(socketPathProblem(over) ?? "", new RegExp(`would be ${proxySocketPath(over).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(108 bytes\\), longer than the 107 bytes`));
  });

  it("a variant's run (a run group) at the limit reaches the proxy: its folder is one level under the work root", async () => {
    const workRoot = workRootWithSocketOf(path.join(dir, "at-limit"), MAX_SOCKET_PATH_BYTES);
    server.reset();
    const result = await runHarness({ ...session, workRoot, runGroup: "0123456789abcdef" }, input());
    assert.equal(result.error, undefined);
    assert.equal(result.answer, "2");
    assert.deepEqual(result.retrieved.map((r) => r.name), ["count-up"]);
    assert.equal(server.calls, 2, "the read and the answer");
    assert.equal(result.modelCalls, 2);
    assert.deepEqual(readdirSync(workRoot), [], "the run's folder (workspace, HOME, socket) is removed after the run");
  });

  it("one byte over the limit is a harness failure before the harness starts, not a graded run", async () => {
    const workRoot = workRootWithSocketOf(path.join(dir, "over"), MAX_SOCKET_PATH_BYTES + 1);
    server.reset();
    await assert.rejects(runHarness({ ...session, workRoot }, input()), (err: unknown) => err instanceof HarnessError && /longer than the 107 bytes a Unix socket path can hold/.test(err.message) && err.message.includes(path.join(dir, "over")));
    assert.equal(server.calls, 0);
  });

  it("a sandbox bubblewrap cannot build is a harness failure naming bubblewrap's error, not a graded 'no answer'", async () => {
    const workRoot = path.join(dir, "no-source");
    mkdirSync(workRoot);
    const gone = path.join(dir, "gone", "pkg");
    server.reset();
    await assert.rejects(
      runHarness({ ...session, binary: { ...session.binary, path: path.join(gone, "bin", "codex.js") }, workRoot }, input()),
      (err: unknown) => err instanceof HarnessError && err.message.startsWith("bubblewrap could not start the harness: bwrap: ") && err.message.includes(gone),
    );
    assert.equal(server.calls, 0);
  });

  it("an evaluation under a temporary folder too deep for the socket is refused before any run, its work root removed", async () => {
    // The work root is <tmp>/skill-following-codex-<pid>-XXXXXX: a temporary folder of 80 bytes leaves no room.
    const deep = path.join(dir, "t".repeat(Math.max(1, 80 - Buffer.byteLength(dir) - 1)));
    mkdirSync(deep);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = deep;
    try {
      await assert.rejects(
        prepareHarness(parseRunSettings({ agent: "codex", maxTurns: 4 }), false, silentLogger),
        (err: unknown) => err instanceof InputError && err.message.includes(`the temporary folder ${deep} is too deep`) && /TMPDIR/.test(err.options.hint ?? ""),
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    assert.deepEqual(readdirSync(deep), [], "no work root left behind");
    assert.ok(existsSync(deep));
  });
});
