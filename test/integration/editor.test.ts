/**
 * Integration tier, editor integration (issue 14, items 4–6): in code-server's extension host (the installed .vsix
 * under SF_VSIX), against the scripted server. host/editor.ts drives the extension and records; this file asserts.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY, createFixture, SKILL_NAME, type Fixture } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "runs in code-server only" : missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`integration prerequisite missing under CI: ${skip}`);

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("editor integration in code-server's extension host", { skip: skip ?? false, timeout: 300_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-editor-"));
    const workspace = path.join(root, "ws");
    fixture = await createFixture(workspace);
    // The most common SKILL.md bug in public repositories: a description whose ": " makes the YAML invalid.
    const brokenSkillFile = path.join(workspace, "skills", "pdf-forms", "SKILL.md");
    mkdirSync(path.dirname(brokenSkillFile), { recursive: true });
    writeFileSync(brokenSkillFile, "---\nname: pdf-forms\ndescription: Fills PDF forms. Use when: the user sends a form.\n---\n\n# PDF forms\n");
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "editor.js");
    await bundleHostModule(path.join(__dirname, "host", "editor.ts"), testsModule, {
      resultsFile,
      skillFile: fixture.skillFile,
      brokenSkillFile,
      taskSetFile: fixture.taskSetFile,
      controlUrl: fixture.controlUrl,
      apiKey: API_KEY,
    });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "editor-code-server.log") });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 240_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host module to the end", () => {
    assert.equal(facts.error, null, `failed after ${JSON.stringify(facts.steps)}: ${facts.error}`);
  });

  it("after a library run, a skill that is not open gets its verdict in the Problems panel, on the name: line only", () => {
    assert.equal(facts.skillOpen, false, "the skill was never opened");
    const [v] = facts.libraryDiagnostics;
    assert.equal(v.code, "evaluation-harms");
    assert.equal(v.line, 1);
    assert.equal(v.endLine, 1, "one line underlined, not the whole frontmatter");
    assert.match(v.message, /harmed 2 tasks and rescued 1 where it was retrieved \(RAE \u22120\.25 \[/);
  });

  it("the Skill Following view lists skills with their last verdict and runs by date", () => {
    assert.deepEqual(facts.tree.groups, ["skills", "runs"]);
    assert.deepEqual(facts.tree.skills.find((s: { name: string }) => s.name === SKILL_NAME), { name: SKILL_NAME, flag: "inconclusive" });
    assert.equal(facts.tree.runs.length, 1);
    assert.match(facts.tree.runs[0], /^library-1-skill--fixture-math--scripted-model--\d{4}-\d\d-\d\d-\d{9}\.jsonl$/);
  });

  it("quotes a description that breaks the YAML with one quick fix", () => {
    assert.ok(facts.quickFixTitles.some((t: string) => t.startsWith("Quote the description")), facts.quickFixTitles.join(", "));
    assert.ok(!facts.afterQuickFix.includes("yaml-syntax"), `after the fix: ${facts.afterQuickFix.join(", ")}`);
  });

  it("evaluate-on-save updates the open report to the new run; a further edit shows the stale banner", () => {
    assert.notEqual(facts.afterSave.runFile, facts.firstRunFile, "the open report now shows the new run");
    assert.equal(facts.afterSave.stale, null);
    assert.match(facts.staleAfterSecondEdit.reason, new RegExp(`${SKILL_NAME} changed since this run`));
  });

  it("opens the side-by-side beside the report, which stays in view", () => {
    assert.notEqual(facts.diffBeside.diffColumn, facts.diffBeside.reportColumn);
    assert.equal(facts.diffBeside.reportStillVisible, true);
  });

  it("deletes old runs and keeps the latest of each skill, task set and model", () => {
    const d = facts.deleteOldRuns;
    assert.equal(d.deleted, d.before - d.after);
    assert.ok(d.deleted >= 1, `deleted ${d.deleted} of ${d.before}`);
    assert.equal(d.latestKept, true);
  });
});
