/**
 * Integration tier, workspace trust: a folder VS Code does not trust (restricted mode) gets no evaluation. The
 * manifest declares `untrustedWorkspaces.supported: false` because evaluations run model-generated code and read
 * the model endpoint from workspace settings. VS Code still activates an extension under development in restricted
 * mode, so this exercises the extension's own guard: no command starts an evaluation there.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import * as esbuild from "esbuild";
import { missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY, createFixture, type Fixture } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "the trust test runs in code-server only" : missingPrerequisite();

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("extension in an untrusted workspace (restricted mode)", { skip: skip ?? false, timeout: 180_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-untrusted-"));
    const workspace = path.join(root, "ws");
    fixture = await createFixture(workspace);
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "untrusted.js");
    await esbuild.build({
      entryPoints: [path.join(__dirname, "host", "untrusted.ts")],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      external: ["vscode"],
      outfile: testsModule,
      logLevel: "warning",
      define: {
        __SF_HOST_CONFIG__: JSON.stringify(
          JSON.stringify({
            resultsFile,
            skillFile: fixture.skillFile,
            taskSetFile: fixture.taskSetFile,
            controlUrl: fixture.controlUrl,
            runsDir: path.join(workspace, ".skill-following", "runs"),
            apiKey: API_KEY,
          }),
        ),
      },
    });
    server = await startCodeServer({
      sessionDir: path.join(root, "session"),
      logFile: path.join(REPO_ROOT, "test-results", "untrusted-code-server.log"),
      workspaceTrust: true,
      // No modal on open: the folder simply opens in restricted mode, as after "Don't Trust".
      settings: { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.banner": "never" },
    });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 120_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host module to the end in a workspace that is not trusted", () => {
    assert.equal(facts.error, null, facts.error);
    assert.equal(facts.isTrusted, false, "the folder must open untrusted for this test to mean anything");
  });

  it("refuses every evaluation command (the extension's own guard: VS Code runs an extension under development even here)", () => {
    // An installed copy is not even activated in restricted mode (untrustedWorkspaces.supported: false in the
    // manifest); a development copy is, which makes this a test of the extension's own requireTrust() guard.
    assert.deepEqual(facts.outcomes, {
      "skillFollowing.evaluateSkill": { returned: null },
      "skillFollowing.evaluateLibrary": { returned: null },
      "skillFollowing.compareModels": { returned: null },
    });
  });

  it("sends nothing to the endpoint the workspace settings name and writes no run file", () => {
    assert.equal(facts.calls, 0);
    assert.equal(facts.runsDirExists, false);
  });
});
