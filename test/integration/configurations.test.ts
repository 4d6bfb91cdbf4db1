/**
 * Integration tier, issue 24 in code-server's extension host (the installed .vsix under SF_VSIX), against one
 * scripted server with two models (support/configs-fixture.ts):
 * - the Done-when sequence: Try the Example evaluates the harmful example with model A (configured); Evaluate Skill
 *   Library runs with model B; Compare Models runs A and B. The skill's diagnostic and CodeLens still show A's own
 *   verdict, name it, and link to B's result;
 * - the Testing view: it lists the skills and the tasks, shows Try the Example's results (an evaluation started from
 *   the palette), and re-runs one task's pair with the model calls the response cache implies.
 * Screenshots of each step: test-results/integration/configurations/.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";
import { createConfigsFixture, MODEL_A, MODEL_B, type ConfigsFixture } from "./support/configs-fixture.js";
import { API_KEY } from "./support/fixture.js";
import { EXAMPLE_EXPECTED, EXAMPLE_HARMED, EXAMPLE_RESCUED, EXAMPLE_SKILL, EXAMPLE_TASKS_FILE } from "../support/example-scenario.js";
import { readFileSync } from "node:fs";

const skip = process.env.SF_VSCODE === "electron" ? "runs in code-server only" : missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`integration prerequisite missing under CI: ${skip}`);

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SHOTS = path.join(REPO_ROOT, "test-results", "integration", "configurations");
const TASK_IDS = readFileSync(EXAMPLE_TASKS_FILE, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { id: string }).id);
const HARMED = EXAMPLE_HARMED[0]!;
const RESCUED = EXAMPLE_RESCUED[0]!;

describe("issue 24 in code-server: verdicts per configuration and the Testing view", { skip: skip ?? false, timeout: 600_000 }, () => {
  let root: string;
  let fixture: ConfigsFixture;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-configs-"));
    const workspace = path.join(root, "ws");
    mkdirSync(workspace, { recursive: true });
    fixture = await createConfigsFixture(workspace);
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "configurations.js");
    await bundleHostModule(path.join(__dirname, "host", "configurations.ts"), testsModule, {
      resultsFile,
      workspace,
      controlUrl: fixture.controlUrl,
      apiKey: API_KEY,
      modelA: MODEL_A,
      modelB: MODEL_B,
      skill: EXAMPLE_SKILL,
      harmedTask: HARMED,
      rescuedTask: RESCUED,
    });
    rmSync(SHOTS, { recursive: true, force: true });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "configurations-code-server.log") });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 480_000, shotsDir: SHOTS })) as Facts;
  });

  after(async () => {
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host module to the end", () => {
    assert.equal(facts.error, null, `failed after ${JSON.stringify(facts.steps)}: ${facts.error}`);
  });

  it("Try the Example with model A: the harmful verdict, naming model A", () => {
    assert.match(facts.exampleRun, new RegExp(`^${EXAMPLE_SKILL}--math-word--${MODEL_A}--`));
    const lens = facts.afterExample.lens.map((l: { title: string }) => l.title);
    assert.ok(lens.some((t: string) => t.endsWith(`\u00b7 ${EXAMPLE_EXPECTED.rescued} rescued \u00b7 ${EXAMPLE_EXPECTED.harmed} harmed \u00b7 ${MODEL_A} on math-word`)), lens.join(" | "));
  });

  it("after a library run with B and a comparison of A and B, the diagnostic and CodeLens still show A's own verdict, say so, and link to B's", () => {
    assert.match(facts.libraryRun, new RegExp(`--math-word--${MODEL_B}--`));
    assert.equal(facts.compareRuns.length, 2);
    assert.deepEqual(facts.shown, { runFile: facts.exampleRun, model: MODEL_A, librarySize: 1 }, "the skill's own evaluation with the configured model");

    const [diag, ...rest] = facts.after.diagnostics;
    assert.equal(rest.length, 0, JSON.stringify(facts.after.diagnostics));
    assert.match(diag.message, new RegExp(`harmed ${EXAMPLE_EXPECTED.harmed} tasks and rescued ${EXAMPLE_EXPECTED.rescued} where it was retrieved \\(RAE `));
    assert.match(diag.message, new RegExp(`\\) on math-word with ${MODEL_A}\\.`), "names the configuration it shows");
    assert.match(diag.message, new RegExp(` Also: ${MODEL_B} on math-word in a library of \\d+ skills \u2014 `), "mentions B's result");
    assert.deepEqual(facts.after.diagnostics.map((d: { code: string }) => d.code), facts.afterExample.diagnostics.map((d: { code: string }) => d.code), "the same verdict as right after the example");

    const titles = facts.after.lens.map((l: { title: string }) => l.title);
    assert.equal(facts.activeEditor.uri, facts.activeEditor.skillUri);
    assert.deepEqual(facts.activeEditor.lens, titles, "the skill's open editor gets the same lenses");
    const verdict = facts.after.lens.find((l: { title: string }) => l.title.startsWith("RAE"));
    assert.equal(verdict.title, facts.afterExample.lens.find((l: { title: string }) => l.title.startsWith("RAE")).title, titles.join(" | "));
    const alsoB = facts.after.lens.find((l: { title: string }) => l.title.startsWith(`also: ${MODEL_B} on math-word in a library of`));
    assert.ok(alsoB, titles.join(" | "));
    assert.equal(alsoB.command, "skillFollowing.openReport");
    const bRun = facts.others.find((o: { model: string }) => o.model === MODEL_B);
    assert.equal(path.basename(alsoB.arguments[0][0]), bRun.runFile, "the link opens B's report");
    assert.ok(facts.compareRuns.includes(bRun.runFile), "B's result is the comparison's, the latest of that configuration");
  });

  it("the Testing view lists the skills and the tasks of each, with Try the Example's results", () => {
    const t = facts.testing;
    const skills = readdirSync(path.join(REPO_ROOT, "skills")).sort();
    assert.deepEqual(t.skills, skills);
    assert.deepEqual(t.tasks, TASK_IDS);
    for (const id of EXAMPLE_HARMED) assert.equal(t.states[id], "failed", id);
    assert.equal(t.states[RESCUED], "passed");
    const others = TASK_IDS.filter((id) => !EXAMPLE_HARMED.includes(id) && id !== RESCUED);
    for (const id of others) assert.equal(t.states[id], "skipped", `${id}: not retrieved by the example skill`);
    assert.equal(t.publishedFrom, facts.exampleRun);
    assert.match(t.harmedMessage.message, new RegExp(`^${HARMED}: harmed: passes only without the skill`));
    assert.notEqual(t.harmedMessage.expected, t.harmedMessage.actual);
    assert.ok(t.profiles.includes(`Evaluate with ${MODEL_A} on math-word`), t.profiles.join(", "));
    assert.ok(t.profiles.includes(`Evaluate with ${MODEL_B} on math-word`), t.profiles.join(", "));
  });

  it("re-running one task's pair costs the model calls the cache implies: 0 unchanged, 1 after a body edit", () => {
    assert.equal(facts.rerunUnchanged.calls, 0);
    assert.equal(facts.rerunUnchanged.state, "failed");
    assert.match(facts.rerunUnchanged.runFile, new RegExp(`^${EXAMPLE_SKILL}-task-rerun--math-word--${MODEL_A}--`));
    // The disabled run and the enabled run's first request (catalog: name and description) are unchanged; the
    // answer after load_skill sees the new body.
    assert.equal(facts.rerunEdited.calls, 1);
    assert.equal(facts.rerunEdited.state, "passed");
    assert.equal(facts.shownAfterReruns, facts.exampleRun, "re-running tasks never replaces the skill's verdict");
  });
});
