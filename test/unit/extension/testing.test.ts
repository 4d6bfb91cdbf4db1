/**
 * Issue 24, the Testing view: the real command table, results store, evaluation runner, engine and response cache
 * under the fake `vscode` (its test controller records every state a run reports), against the scripted server of
 * the integration fixture (test/integration/support/fixture.ts: T1 rescued, T2 and T3 harmed, T4 both pass, T5 and
 * T6 not retrieved). The server counts the model calls a re-run makes.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { editor, installFakeVscode, MemoryMemento, Uri, type FakeTestController, type FakeTestRun } from "./fake-vscode.js";
import type { Services } from "../../../src/extension/services.js";
import { API_KEY, createFixture, FIXTURE_TASKS, SKILL_NAME, XSS_TASK_ID, type Fixture } from "../../integration/support/fixture.js";

type TestingModule = typeof import("../../../src/extension/testing.js");
let testing: TestingModule;
let fixture: Fixture;
let root: string;
let svc: Services;
let tests: InstanceType<TestingModule["SkillTests"]>;
let controller: FakeTestController;

const MODEL = "scripted-model";
/** A task's key for runWith and `shown`; its TestItem id (what a run reports) is `task:<id>` under its skill. */
const taskId = (id: string) => `${path.resolve(fixture.skillFile)}\u0000${id}`;
const itemId = (id: string) => `task:${id}`;

before(async () => {
  installFakeVscode();
  editor.reset();
  testing = await import("../../../src/extension/testing.js");
  const commands = await import("../../../src/extension/commands.js");
  const { ResultsStore } = await import("../../../src/extension/results-store.js");
  const { RunFiles } = await import("../../../src/extension/run-files.js");
  const { EvaluationRunner } = await import("../../../src/extension/evaluation.js");
  const { parseConfig } = await import("../../../src/extension/config-schema.js");
  const { dataDirOf, workspaceLayout } = await import("../../../src/core/layout.js");

  root = mkdtempSync(path.join(tmpdir(), "sf-testing-"));
  fixture = await createFixture(path.join(root, "ws"));
  const quiet = () => undefined;
  const logger = { info: quiet, warn: quiet, error: quiet, show: quiet, debug: quiet, dispose: quiet };
  const cfg = parseConfig({ baseUrl: fixture.server.url, model: MODEL, concurrency: 2 });
  const layout = workspaceLayout(dataDirOf(fixture.dir));
  const results = new ResultsStore(new MemoryMemento() as never, () => MODEL);
  const noop = async () => undefined;
  svc = {
    ext: { globalState: new MemoryMemento(), workspaceState: new MemoryMemento(), extensionUri: Uri.file(root) },
    logger,
    config: { get: () => cfg, reload: () => cfg },
    secrets: { getApiKey: async () => ({ key: API_KEY, source: "secret-storage" }) },
    results,
    runs: new RunFiles(),
    runner: new EvaluationRunner(logger as never, path.join(process.cwd(), "dist"), layout),
    reports: { openEvaluation: noop, retargetSkills: noop, refreshRun: noop, open: noop },
    layout,
  } as unknown as Services;
  commands.registerCommands(svc);
  tests = new testing.SkillTests(svc);
  controller = editor.testControllers[0]!;
});

after(async () => {
  tests?.dispose();
  await fixture?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the Testing view", () => {
  let firstRun: string;

  it("publishes an evaluation started from the palette: the skill with its tasks, each rescued, harmed, both-pass or not retrieved", async () => {
    await tests.settled();
    assert.equal(controller.id, "skillFollowing.tests");
    const out = (await editor.commands.get("skillFollowing.evaluateSkill")!(Uri.file(fixture.skillFile), { taskSet: fixture.taskSetFile, model: MODEL })) as { runFile: string };
    assert.ok(out, editor.messages.join("\n"));
    firstRun = out.runFile;
    assert.equal(fixture.server.calls, 16, "the fixture's first run");
    await tests.settled();

    const skill = controller.items.get(path.resolve(fixture.skillFile))!;
    assert.equal(skill.label, SKILL_NAME);
    assert.match(skill.description!, /^RAE \u22120\.25 .* 1 rescued \u00b7 2 harmed \u00b7 scripted-model on fixture-math$/);
    assert.deepEqual([...skill.children].map(([, t]) => t.label), FIXTURE_TASKS.map((t) => t.id));

    assert.equal(controller.runs.length, 1, "one published run");
    const run = controller.runs[0]!;
    assert.equal(run.name, `${SKILL_NAME} \u00b7 ${MODEL} on fixture-math`);
    assert.equal(run.persist, true);
    assert.equal(run.ended, true);
    const final = run.final();
    assert.deepEqual(
      FIXTURE_TASKS.map((t) => final.get(itemId(t.id))?.state),
      ["passed", "failed", "failed", "passed", "skipped", "skipped"],
    );
    const harmed = final.get(itemId("T2-harmed"))!.message!;
    assert.match(harmed.message, /^T2-harmed: harmed: passes only without the skill \(units-helper\)\nWith skills: FAIL \(/);
    assert.match(harmed.message, /\nWithout skills: PASS \(/);
    assert.equal(harmed.expectedOutput, "7", "the answer that passed: without the skill");
    assert.equal(harmed.actualOutput, "107", "the answer with the skill");
    // The HTML payload in the task id stays plain text (TestMessage is a string, never rendered as HTML).
    assert.ok(final.get(itemId(XSS_TASK_ID))!.message!.message.startsWith(XSS_TASK_ID));
    const skippedWhy = run.output.filter((o) => o.id === itemId("T5-no-skill")).map((o) => o.text).join("");
    assert.match(skippedWhy, /not retrieved: the agent did not load the skill/);
  });

  it("offers a run profile per configuration and re-runs one task's pair from the cache: 0 model calls for an unchanged skill", async () => {
    const label = `Evaluate with ${MODEL} on fixture-math`;
    assert.ok(tests.profileLabels().includes(label), tests.profileLabels().join(", "));
    assert.equal(controller.profiles.filter((p) => p.isDefault).map((p) => p.label).join(), label, "one default profile: the configured model's");
    const calls = fixture.server.calls;
    const runs = controller.runs.length;
    await tests.runWith(label, [taskId("T2-harmed")]);
    assert.equal(fixture.server.calls - calls, 0, "every call of the pair is in the response cache");
    assert.equal(controller.runs.length, runs + 1, "one test run, nothing published besides it");
    const run: FakeTestRun = controller.runs[runs]!;
    assert.deepEqual([...run.final()].map(([id, s]) => [id, s.state]), [[itemId("T2-harmed"), "failed"]], "only that task");
    assert.match(run.output.map((o) => o.text).join(""), /Re-ran the pair of T2-harmed: 3 model calls, 3 answered by the response cache, 0 sent to the model/);
    assert.equal(svc.results.get(fixture.skillFile)!.runFile, firstRun, "a re-run of one task never replaces the skill's result");
    const shown = tests.shown.get(taskId("T2-harmed"))!;
    assert.notEqual(shown.runFile, firstRun);
    assert.match(path.basename(shown.runFile), /^units-helper-task-rerun--fixture-math--scripted-model--/);
  });

  it("after an edit of the skill's body, re-running one task's pair sends only the call after load_skill", async () => {
    const text = readFileSync(fixture.skillFile, "utf8");
    writeFileSync(fixture.skillFile, `${text}4. Say which unit the answer is in.\n`);
    const calls = fixture.server.calls;
    await tests.runWith(`Evaluate with ${MODEL} on fixture-math`, [taskId("T1-rescued")]);
    // Disabled: no skill in its request; enabled: the catalog (name, description) is unchanged, the load_skill
    // result is new, so the one answer after it is a new request.
    assert.equal(fixture.server.calls - calls, 1);
    const run = controller.runs[controller.runs.length - 1]!;
    assert.equal(run.final().get(itemId("T1-rescued"))?.state, "passed");
    assert.match(run.output.map((o) => o.text).join(""), /3 model calls, 2 answered by the response cache, 1 sent to the model/);
  });

  it("running the skill evaluates it with the profile's configuration and reports into that run", async () => {
    const calls = fixture.server.calls;
    const runs = controller.runs.length;
    await tests.runWith(`Evaluate with ${MODEL} on fixture-math`, [path.resolve(fixture.skillFile)]);
    await tests.settled();
    // 4 answers after load_skill changed with the edit; T1's was re-run just before, so it is cached.
    assert.equal(fixture.server.calls - calls, 3);
    assert.equal(controller.runs.length, runs + 1, "the profile's run only: the evaluation is not published a second time");
    const final = controller.runs[runs]!.final();
    assert.deepEqual(FIXTURE_TASKS.map((t) => final.get(itemId(t.id))?.state), ["passed", "failed", "failed", "passed", "skipped", "skipped"]);
    assert.notEqual(svc.results.get(fixture.skillFile)!.runFile, firstRun, "a whole evaluation is the skill's new result");
  });

  it("a skill's first result, stored while the view scans the skill folders, is published", async () => {
    // The scan reads the stored results after its file-system walk; a result stored in between is new all the same
    // (only what the view found when it was created is the last session's, with nothing to report).
    const copy = path.join(fixture.dir, "skills", "units-helper-copy", "SKILL.md");
    const runs = controller.runs.length;
    const scanning = tests.rescan();
    await svc.results.set([{ ...svc.results.get(fixture.skillFile)!, file: copy }]);
    await scanning;
    await tests.settled();
    assert.equal(controller.runs.length, runs + 1, "one test run for the new result");
    const final = controller.runs[runs]!.final();
    assert.deepEqual(FIXTURE_TASKS.map((t) => final.get(itemId(t.id))?.state), ["passed", "failed", "failed", "passed", "skipped", "skipped"]);
    assert.ok(controller.items.get(path.resolve(copy)), "the skill has its item");
  });
});
