/**
 * Integration tier, VS Code language models: the extension's vscode.lm client inside a real VS Code (code-server),
 * against a language model registered by a fixture extension (test/integration/lm-provider, VS Code's
 * `chatProvider` API) that answers from the scripted server. The same fixture evaluation as the OpenAI-compatible
 * path must give the same report.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { createFixture, EXPECTED, fixtureScript, type Fixture } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "the language model test runs in code-server only" : missingPrerequisite();
const PROVIDER_DIR = path.join(__dirname, "lm-provider");

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("extension with a VS Code language model (vscode.lm)", { skip: skip ?? false, timeout: 240_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let lmServer: ScriptedServer;
  let control: http.Server;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-lm-"));
    const workspace = path.join(root, "ws");
    fixture = await createFixture(workspace);
    // The language model's own server: no key (vscode.lm models need none from the extension).
    lmServer = await startScriptedServer({ script: fixtureScript() });
    control = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ calls: lmServer.calls }));
    });
    await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
    const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}/`;
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "lm.js");
    await bundleHostModule(path.join(__dirname, "host", "lm.ts"), testsModule, { resultsFile, skillFile: fixture.skillFile, taskSetFile: fixture.taskSetFile, controlUrl });
    server = await startCodeServer({
      sessionDir: path.join(root, "session"),
      logFile: path.join(REPO_ROOT, "test-results", "lm-code-server.log"),
      enableProposedApi: ["sf-test.sf-test-lm-provider"],
      installExtensions: [PROVIDER_DIR],
      env: { SF_TEST_LM_URL: lmServer.url },
    });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 180_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    await lmServer?.close();
    await new Promise<void>((r) => (control ? control.close(() => r()) : r()));
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host suite to the end and saw the registered model", () => {
    assert.equal(facts.error, null, `in-host failure after steps ${JSON.stringify(facts.steps)}: ${facts.error}`);
    assert.deepEqual(facts.models.map((m: { family: string }) => m.family), ["scripted-lm"]);
  });

  it("evaluates through vscode.lm with the skill tools and gets the fixture's report", () => {
    const e = facts.evaluation;
    assert.equal(e.cancelled, false);
    assert.match(e.model.id, /^vscode-lm:sf-test\//);
    assert.equal(e.calls, EXPECTED.firstRunCalls, "every load_skill tool call and its result made the round trip");
    assert.deepEqual([...e.harmed].sort(), [...EXPECTED.harmed].sort());
    assert.deepEqual(e.rescued, EXPECTED.rescued);
    assert.equal(e.headline.rae.value, EXPECTED.rae);
    assert.equal(e.headline.nRetrieved, EXPECTED.nRetrieved);
    assert.ok(e.notes.some((n: string) => /temperature cannot be set/.test(n)), "the report says the temperature could not be set");
  });

  it("re-running the unchanged evaluation makes no language model request", () => {
    assert.equal(facts.rerunCalls, 0);
  });
});
