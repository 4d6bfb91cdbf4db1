/**
 * Integration tier, a skill's own evals (issue 12), in code-server's extension host: evals/evals.json gets
 * completion and a squiggle from the contributed JSON Schema; Evaluate This Skill offers the non-code example skill
 * its own evals first and runs them against the scripted model, which also judges; the report webview draws the
 * trigger heat map; the side by side of a judged task shows the judge's evidence per expectation. Outcomes are
 * fixed in support/skill-evals-fixture.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createSkillEvalsFixture, type SkillEvalsFixture } from "./support/skill-evals-fixture.js";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { API_KEY } from "./support/fixture.js";

const skip = process.env.SF_VSCODE === "electron" ? "runs in code-server only" : missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`integration prerequisite missing under CI: ${skip}`);

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("a skill's own evals in code-server's extension host", { skip: skip ?? false, timeout: 240_000 }, () => {
  let root: string;
  let fixture: SkillEvalsFixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-skill-evals-int-"));
    const workspace = path.join(root, "ws");
    fixture = await createSkillEvalsFixture(workspace);
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "skill-evals.js");
    await bundleHostModule(path.join(__dirname, "host", "skill-evals.ts"), testsModule, { resultsFile, skillFile: fixture.skillFile, evalsFile: fixture.evalsFile, controlUrl: fixture.controlUrl, apiKey: API_KEY });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "skill-evals-code-server.log") });
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

  it("completes evals.json fields from the contributed schema", () => {
    for (const field of ["should_trigger", "assertions"]) assert.ok(facts.completions.some((l: string) => l.includes(field)), `${field} in ${JSON.stringify(facts.completions)}`);
  });

  it("squiggles a wrong field where it is", () => {
    const d = facts.squiggles.find((x: { message: string }) => /expectation/.test(x.message));
    assert.ok(d, JSON.stringify(facts.squiggles));
    assert.equal(d.line, facts.wrongFieldLine);
    assert.match(d.message, /not allowed/i);
  });

  it("evaluates the non-code example on its own evals: rescued, harmed, triggering and the judge", () => {
    const { calls, view } = facts.evaluation;
    assert.equal(calls, 18);
    assert.equal(view.runs[0].taskSet, "skill-evals", "the picker offered the skill's own evals first");
    assert.deepEqual(view.rescued.map((t: { taskId: string }) => t.taskId), ["release-notes/1"]);
    assert.deepEqual(view.harmed.map((t: { taskId: string }) => t.taskId), ["release-notes/3"]);
    const se = view.skillEvals[0];
    assert.deepEqual(se.triggerMatrix, { skills: ["release-notes"], owners: ["release-notes"], loaded: [[2]], n: [[2]] });
    assert.deepEqual(se.skills[0], { name: "release-notes", ownEvals: { n: 2, loaded: 2 }, nearMiss: { n: 1, loaded: 1 }, otherEvals: { n: 0, loaded: 0 }, raeOwn: 0.5, nOwn: 2 });
    // Expectations passed (of 5, 3 and 3): enabled 5 + 3 + 0 (the near miss answered with headings), disabled 0 + 3 + 3.
    assert.equal(se.expectations.enabled, 8 / 11);
    assert.equal(se.expectations.disabled, 6 / 11);
    assert.deepEqual(se.judge, { model: "scripted-model", repeats: 1, agreement: null, kappa: null, unstablePairs: [] });
  });

  it("draws the trigger heat map in the report webview", () => {
    assert.equal(facts.rendered.triggerCells, 1);
  });

  it("shows the judge's evidence per expectation, and the files read, side by side", () => {
    const { left, right } = facts.sideBySide;
    assert.match(right, /## Expectations\n\n- PASS The removal of the --legacy flag is listed as a breaking change together with its replacement, --format v1 \[judge\]\n {2}evidence: ## 2\.0\.0/);
    assert.match(right, /- PASS has a Breaking changes heading \[regex\]/);
    assert.match(right, /## Skill files read\n\n- release-notes\/references\/style\.md/);
    assert.match(left, /- FAIL The removal of the --legacy flag .* \[judge\]\n {2}evidence: not met/);
    assert.match(left, /- FAIL has a Breaking changes heading \[regex\]\n {2}evidence: no match/);
  });
});
