/**
 * Integration tier, workspace trust: in a folder VS Code does not trust (Restricted Mode) the extension runs with
 * `untrustedWorkspaces: limited`. SKILL.md checks and reading existing reports work; no command starts an evaluation
 * (they run model-generated code and call the endpoint the workspace's settings name), each one explaining why and
 * offering trust instead, and nothing reaches the server those settings point at.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, VSIX, type CodeServer } from "./support/code-server.js";
import { API_KEY, createFixture, type Fixture } from "./support/fixture.js";
import { header, pair } from "../unit/report/fixtures.js";

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
    const brokenSkillFile = path.join(workspace, "skills", "broken-skill", "SKILL.md");
    mkdirSync(path.dirname(brokenSkillFile), { recursive: true });
    writeFileSync(brokenSkillFile, "---\nname: Broken_Skill\ndescription: A skill whose name breaks the rules.\n---\n\n# Body\n");
    // A finished run of two skills over four tasks: 1 harmed, 1 rescued where retrieved.
    const reportFile = path.join(workspace, "earlier-run.jsonl");
    const ids = ["a", "b", "c", "d"];
    const records = [...pair("a", true, false, ["units-helper"]), ...pair("b", false, true, ["units-helper"]), ...pair("c", true, true), ...pair("d", false, false)];
    writeFileSync(reportFile, [header({ taskIds: ids }, ["units-helper"]), ...records].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "untrusted.js");
    await bundleHostModule(path.join(__dirname, "host", "untrusted.ts"), testsModule, {
      resultsFile,
      brokenSkillFile,
      reportFile,
      exampleFolder: path.join(root, "example-target"),
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

  it("refuses every evaluation command, Try the Example and Find What Harms included, and copies nothing", () => {
    assert.deepEqual(facts.outcomes, {
      "skillFollowing.evaluateSkill": { returned: null },
      "skillFollowing.evaluateLibrary": { returned: null },
      "skillFollowing.compareModels": { returned: null },
      "skillFollowing.tryExample": { returned: null },
      "skillFollowing.findWhatHarms": { returned: null },
    });
    assert.equal(facts.exampleCopied, false);
  });

  it("still checks SKILL.md files and opens existing reports (Restricted Mode is limited, not off)", () => {
    assert.ok(facts.lintCodes.some((c: string) => c.startsWith("name")), `lint codes: ${JSON.stringify(facts.lintCodes)}`);
    assert.deepEqual(facts.report, { ...facts.report, harmed: 1, rescued: 1 });
  });

  it("sends nothing to the endpoint the workspace settings name and writes no run file", () => {
    assert.equal(facts.activeAfterOpen, true, "activated by itself in Restricted Mode");
    assert.equal(facts.cancelledAfter, false, "Cancel Evaluation, run after every refused command, found nothing running");
    assert.equal(facts.calls, 0);
    assert.equal(facts.runsDirExists, false);
  });
});

/** Without SF_VSIX: the extension's packaged file set (scripts/package.mjs) copied from the development folder. */
function installableCopy(dest: string): string {
  const files = ["package.json", "README.md", "LICENSE", "dist/extension.js", "dist/sandbox-worker.js", "dist/cli.js"];
  for (const f of files) if (existsSync(path.join(REPO_ROOT, f))) cpSync(path.join(REPO_ROOT, f), path.join(dest, f));
  for (const f of readdirSync(path.join(REPO_ROOT, "dist", "webview")).filter((n) => n.endsWith(".js"))) cpSync(path.join(REPO_ROOT, "dist", "webview", f), path.join(dest, "dist", "webview", f));
  cpSync(path.join(REPO_ROOT, "dist", "pyodide"), path.join(dest, "dist", "pyodide"), { recursive: true });
  for (const dir of ["media", "samples", "skills"]) cpSync(path.join(REPO_ROOT, dir), path.join(dest, dir), { recursive: true });
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

  it("in an untrusted folder it runs in Restricted Mode (untrustedWorkspaces: limited): commands exist, no evaluation starts", () => {
    const u = facts.untrusted;
    assert.equal(u.error, null, u.error);
    assert.equal(u.isTrusted, false);
    assert.equal(u.active, true, u.activateError);
    assert.ok(u.commands.includes("skillFollowing.evaluateSkill"));
    assert.deepEqual(u.evaluate, { returned: null });
    assert.equal(fixture.server.calls, 0);
  });
});
