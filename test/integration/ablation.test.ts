/**
 * Integration tier, Find What Harms (issue 13): the extension in code-server's extension host against the scripted
 * model that answers from the skill text it received. The in-host module (host/ablation.ts) drives the commands;
 * this file asserts what the editor showed and what each step cost.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { SCENARIO } from "../support/ablation-scenario.js";
import { createAblationFixture, type AblationFixture } from "./support/ablation-fixture.js";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "runs in code-server only" : missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`integration prerequisite missing under CI: ${skip}`);

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const LENS = (repaired: number, broken: number, stale = false) => `removing this: ${repaired} repaired \u00b7 ${broken} broken${stale ? " \u00b7 stale" : ""}`;

describe("Find What Harms in code-server's extension host", { skip: skip ?? false, timeout: 240_000 }, () => {
  let root: string;
  let fixture: AblationFixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-ablation-int-"));
    const workspace = path.join(root, "ws");
    fixture = await createAblationFixture(workspace);
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "ablation.js");
    await bundleHostModule(path.join(__dirname, "host", "ablation.ts"), testsModule, {
      resultsFile,
      skillFile: fixture.skillFile,
      taskSetFile: fixture.taskSetFile,
      controlUrl: fixture.controlUrl,
      apiKey: API_KEY,
    });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "ablation-code-server.log") });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 200_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host module to the end", () => {
    assert.equal(facts.error, null, `failure after steps ${JSON.stringify(facts.steps)}: ${facts.error}`);
  });

  it("asks for an evaluation first, then offers Find What Harms on a skill that harmed", () => {
    assert.equal(facts.beforeEvaluation, null);
    assert.deepEqual([facts.evaluation.calls, facts.evaluation.harmed, facts.evaluation.rescued], [SCENARIO.pairedRunCalls, 7, 3]);
    assert.ok(facts.lensesAfterEvaluation.some((l: { line: number; title: string }) => l.line === 1 && l.title === "$(search) Find what harms"), JSON.stringify(facts.lensesAfterEvaluation));
  });

  it("costs exactly the continuations after load_skill; a second run costs nothing", () => {
    assert.equal(facts.ablation.cancelled, false);
    assert.equal(facts.ablation.calls, 6 * 14);
    assert.equal(facts.ablatedAgain.calls, 0);
  });

  it("puts the diagnostic on exactly the harmful section's lines and nowhere else", () => {
    const sectionDiags = facts.diagnostics.filter((d: { code: string }) => d.code.startsWith("section-"));
    assert.equal(sectionDiags.length, 1, JSON.stringify(facts.diagnostics));
    const d = sectionDiags[0];
    assert.deepEqual([d.code, d.severity, d.startLine, d.endLine], ["section-harms", "Error", 16, 24]);
    assert.match(d.message, /^Section “The rule” harms: removing it repaired 7 and broke 0 of 14 tasks/);
    const verdict = facts.diagnostics.find((x: { code: string }) => x.code.startsWith("evaluation-"));
    assert.equal(verdict.startLine, 2, "the skill-level verdict sits on the name: line");
    assert.match(verdict.message, /Find What Harms: “The rule”/);
    assert.deepEqual(verdict.related.map((r: { line: number }) => r.line), [16]);
    assert.ok(facts.verdictActions.includes("Find what harms (section ablation)"));
  });

  it("shows a CodeLens above every evaluated section", () => {
    const sectionLenses = facts.lenses.filter((l: { title: string }) => l.title.startsWith("removing this"));
    assert.deepEqual(sectionLenses, [
      { line: 11, title: LENS(0, 0) },
      { line: 16, title: LENS(7, 0) },
      { line: 26, title: LENS(0, 0) },
      { line: 33, title: LENS(0, 3) },
      { line: 39, title: LENS(0, 0) },
      { line: 45, title: LENS(0, 0) },
    ]);
    assert.ok(!facts.lenses.some((l: { title: string }) => l.title.includes("Find what harms")), "no longer offered once this version's sections are known");
  });

  it("editing one section marks only that section stale", () => {
    const sectionLenses = facts.lensesAfterEdit.filter((l: { title: string }) => l.title.startsWith("removing this"));
    assert.deepEqual(sectionLenses, [
      { line: 11, title: LENS(0, 0) },
      { line: 16, title: LENS(7, 0) },
      { line: 26, title: LENS(0, 0, true) },
      { line: 34, title: LENS(0, 3) },
      { line: 40, title: LENS(0, 0) },
      { line: 46, title: LENS(0, 0) },
    ]);
    assert.deepEqual(facts.diagnosticsAfterEdit.map((d: { startLine: number }) => d.startLine), [16]);
  });

  it("the quick fix removes the section and re-evaluates incrementally; the verdict improves", () => {
    const ours = facts.codeActions.filter((a: { command?: string }) => a.command?.startsWith("skillFollowing."));
    assert.deepEqual(ours.map((a: { title: string }) => a.title), ["Remove “The rule” and re-evaluate"]);
    const q = facts.quickFix;
    assert.ok(!q.text.includes("## The rule") && !q.text.includes("_tidy"));
    assert.ok(q.text.includes("## Why"));
    // Of the 19 continuations after load_skill, the 14 on the ablation's tasks are the very requests the ablation of
    // "The rule" made (the same text without that section): only the 5 other loading tasks are new. The disabled
    // runs and every call before the load come from the cache.
    assert.equal(q.calls, 19 - 14);
    assert.deepEqual([q.harmed, q.rescued], [0, 3]);
    const verdict = facts.diagnosticsAfterFix.find((d: { code: string }) => d.code.startsWith("evaluation-"));
    assert.deepEqual([verdict.code, verdict.severity, verdict.startLine], ["evaluation-helps", "Information", 2]);
    assert.ok(!facts.diagnosticsAfterFix.some((d: { code: string }) => d.code.startsWith("section-")));
    const sectionLenses = facts.lensesAfterFix.filter((l: { title: string }) => l.title.startsWith("removing this"));
    assert.deepEqual(sectionLenses, [
      { line: 11, title: LENS(0, 0) },
      { line: 16, title: LENS(0, 0) },
      { line: 23, title: LENS(0, 3) },
      { line: 29, title: LENS(0, 0) },
      { line: 35, title: LENS(0, 0) },
    ]);
  });
});
