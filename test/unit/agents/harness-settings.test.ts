/**
 * Choosing the agent: a harness without confinement is refused unless the user allowed it, and an allowed unconfined
 * run works (the real Codex binary, no bubblewrap).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { codexAdapter } from "../../../src/core/agents/codex.js";
import { runHarness } from "../../../src/core/agents/run.js";
import { HarnessError } from "../../../src/core/agents/types.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { chooseConfinement } from "../../../src/core/runs/harness.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { codexRead, harnessPlanScript } from "../../support/scripted-harness.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer } from "../../support/scripts.js";

describe("choosing a harness agent", () => {
  it("without bubblewrap a harness run is refused unless unconfined runs are allowed", () => {
    assert.equal(chooseConfinement(undefined, false), "bwrap");
    assert.equal(chooseConfinement(undefined, true), "bwrap", "allowing unconfined runs never weakens a confinement that works");
    assert.equal(chooseConfinement("bubblewrap is not installed", true), "unconfined");
    assert.throws(
      () => chooseConfinement("bubblewrap is not installed", false),
      (err: unknown) => err instanceof HarnessError && /cannot be confined \(bubblewrap is not installed\)/.test(err.message) && err.options.hintIds?.includes("agentUnconfined") === true,
    );
  });
});

describe("an allowed unconfined Codex run", () => {
  let server: ScriptedServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-codex-unconfined-"));
  before(async () => {
    server = await startScriptedServer({ script: harnessPlanScript({ "Add 1 and 1.": { enabled: [codexRead("count-up"), { answer: boxedAnswer("2") }], disabled: [{ answer: boxedAnswer("2") }] } }) });
  });
  after(() => server.close());

  it("loads the skill through the shell and answers, with the proxy on loopback", async () => {
    const skillDir = path.join(dir, "skills", "count-up");
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(path.join(skillDir, "SKILL.md"), "---\nname: count-up\ndescription: Use when adding one.\n---\nCount up.\n");
    const { skills } = await scanSkills([path.join(dir, "skills")]);
    const adapter = codexAdapter();
    const session = { adapter, binary: await adapter.locate(), confinement: "unconfined" as const, workRoot: path.join(dir, "work"), fixedDate: "2025-01-01", timeoutMs: 60_000 };
    const input = { task: { id: "one", kind: "math-answer" as const, prompt: "Add 1 and 1.", answer: "2" }, skills, client: createOpenAIClient({ baseURL: server.url, apiKey: "k", model: "m" }), model: "m", params: { temperature: 0 }, sampleIndex: 0, maxTurns: 4 };
    const enabled = await runHarness(session, { ...input, condition: "enabled" });
    assert.equal(enabled.error, undefined);
    assert.deepEqual(enabled.retrieved.map((r) => r.name), ["count-up"]);
    assert.equal(enabled.answer, "2");
    assert.ok(enabled.events.some((e) => e.kind === "command" && e.command.includes("count-up/SKILL.md")), "the harness's own event stream shows the read");
    const disabled = await runHarness(session, { ...input, condition: "disabled" });
    assert.deepEqual(disabled.retrieved, []);
    assert.equal(disabled.answer, "2");
  });
});
