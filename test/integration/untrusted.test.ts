/**
 * Integration tier, workspace trust: a folder VS Code does not trust (restricted mode) gets no evaluation. The
 * manifest declares `untrustedWorkspaces.supported: false` because evaluations run model-generated code and read
 * the model endpoint from workspace settings. VS Code still activates an extension under development in restricted
 * mode, so this exercises the extension's own guard: no command starts an evaluation there.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, VSIX, type CodeServer } from "./support/code-server.js";
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
    await bundleHostModule(path.join(__dirname, "host", "untrusted.ts"), testsModule, {
      resultsFile,
      skillFile: fixture.skillFile,
      taskSetFile: fixture.taskSetFile,
      controlUrl: fixture.controlUrl,
      runsDir: path.join(workspace, ".skill-following", "runs"),
      apiKey: API_KEY,
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

/** The extension as a user installs it: the files of the .vsix (the allow-list in .vscodeignore), nothing else. */
function installableCopy(dest: string): string {
  const files = ["package.json", "README.md", "LICENSE", "dist/extension.js", "dist/sandbox-worker.js", "dist/cli.js"];
  for (const f of files) if (existsSync(path.join(REPO_ROOT, f))) cpSync(path.join(REPO_ROOT, f), path.join(dest, f));
  for (const f of readdirSync(path.join(REPO_ROOT, "dist", "webview")).filter((n) => n.endsWith(".js"))) cpSync(path.join(REPO_ROOT, "dist", "webview", f), path.join(dest, "dist", "webview", f));
  cpSync(path.join(REPO_ROOT, "dist", "pyodide"), path.join(dest, "dist", "pyodide"), { recursive: true });
  cpSync(path.join(REPO_ROOT, "media"), path.join(dest, "media"), { recursive: true });
  return dest;
}

describe("an installed copy of the extension (not under development) and workspace trust", { skip: skip ?? false, timeout: 180_000 }, () => {
  let root: string;
  let fixture: Fixture;
  const servers: CodeServer[] = [];
  const facts: Record<"trusted" | "untrusted", Facts> = { trusted: {}, untrusted: {} };

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-installed-"));
    const workspace = path.join(root, "ws");
    fixture = await createFixture(workspace);
    // Under SF_VSIX every session installs the .vsix itself; otherwise a copy of its file set stands in for it.
    const installed = VSIX ? undefined : installableCopy(path.join(root, "skill-following"));
    // Both sessions at once: one trusts the folder (the control: the installed copy works), one does not.
    await Promise.all(
      (["trusted", "untrusted"] as const).map(async (kind) => {
        const resultsFile = path.join(root, `${kind}.json`);
        const testsModule = path.join(root, "host", `installed-${kind}.js`);
        await bundleHostModule(path.join(__dirname, "host", "installed.ts"), testsModule, { resultsFile, skillFile: fixture.skillFile, taskSetFile: fixture.taskSetFile });
        const server = await startCodeServer({
          sessionDir: path.join(root, `session-${kind}`),
          logFile: path.join(REPO_ROOT, "test-results", `installed-${kind}-code-server.log`),
          workspaceTrust: kind === "untrusted",
          installExtensions: installed ? [installed] : [],
          settings: { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.banner": "never" },
        });
        servers.push(server);
        facts[kind] = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 120_000, developmentPath: path.join(__dirname, "probe") })) as Facts;
      }),
    );
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("in a trusted folder the installed copy activates and registers its commands (the control)", () => {
    const t = facts.trusted;
    assert.equal(t.error, null, t.error);
    assert.equal(t.isTrusted, true);
    assert.equal(t.active, true, t.activateError);
    assert.ok(t.commands.includes("skillFollowing.evaluateSkill"));
  });

  it("in an untrusted folder VS Code keeps it off (untrustedWorkspaces.supported: false): no command, no evaluation", () => {
    const u = facts.untrusted;
    assert.equal(u.error, null, u.error);
    assert.equal(u.isTrusted, false);
    assert.equal(u.active, false);
    assert.deepEqual(u.commands, []);
    assert.match(u.evaluate.error ?? "", /command 'skillFollowing\.evaluateSkill' not found/);
    assert.equal(fixture.server.calls, 0);
  });
});
