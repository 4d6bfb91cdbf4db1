/**
 * Issue 24: results kept per configuration. Evaluating a skill with model A, then the library with model B, then
 * Compare Models A and B, leaves the skill's CodeLens and diagnostic on model A's own verdict, mentioning B.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { SkillResult } from "../../../src/extension/report-view-model.js";
import { installFakeVscode, MemoryMemento } from "./fake-vscode.js";

type StoreModule = typeof import("../../../src/extension/results-store.js");
type TextModule = typeof import("../../../src/extension/verdict-text.js");
let store: StoreModule;
let text: TextModule;

before(async () => {
  installFakeVscode();
  store = await import("../../../src/extension/results-store.js");
  text = await import("../../../src/extension/verdict-text.js");
});

const FILE = "/ws/skills/round-money/SKILL.md";
let clock = 0;

function result(model: string, over: Partial<SkillResult> = {}): SkillResult {
  clock += 1;
  return {
    name: "round-money",
    file: FILE,
    contentHash: "h1",
    runFile: `/runs/${model}-${clock}.jsonl`,
    model,
    taskSet: "math-word",
    taskSetFile: "/samples/math-word.jsonl",
    n: 20,
    rescued: 0,
    harmed: 0,
    rae: 0,
    low: -0.1,
    high: 0.1,
    pHolm: 1,
    flag: "inconclusive",
    evaluatedAt: `2026-12-05T10:00:${String(clock).padStart(2, "0")}Z`,
    librarySize: 1,
    libraryHash: "lib-1",
    mode: "tools",
    ...over,
  };
}

const harmfulA = () => result("model-a", { harmed: 7, rescued: 0, rae: -0.35, low: -0.55, high: -0.15, pHolm: 0.012, flag: "harmful" });
const inLibrary = (model: string, over: Partial<SkillResult> = {}) => result(model, { librarySize: 3, libraryHash: "lib-3", ...over });

describe("ResultsStore keyed by configuration", () => {
  it("a library run and a comparison never replace the skill's own verdict with the configured model", async () => {
    let configured = "model-a";
    const s = new store.ResultsStore(new MemoryMemento() as never, () => configured);
    const fired: string[][] = [];
    s.onDidChange((files) => fired.push(files));

    await s.set([harmfulA()]); // Evaluate This Skill with model A
    await s.set([inLibrary("model-b", { n: 0, rae: null, low: null, high: null, pHolm: null })]); // Evaluate Skill Library with model B: not retrieved
    await s.set([inLibrary("model-a", { rescued: 1, harmed: 1 })]); // Compare Models: A …
    await s.set([inLibrary("model-b", { rescued: 1, harmed: 0, rae: 0.05 })]); // … then B, last

    const shown = s.get(FILE)!;
    assert.equal(shown.model, "model-a");
    assert.equal(shown.librarySize, 1, "the skill's own evaluation, not the library's");
    assert.equal(shown.flag, "harmful");
    const others = s.others(FILE);
    assert.deepEqual(others.map((r) => [r.model, r.librarySize]), [["model-b", 3], ["model-a", 3]], "one per configuration, newest first; B's library result replaced by the comparison's");
    assert.equal(fired.length, 4);

    const message = text.verdictMessage(shown, false, "", others)!;
    assert.match(message, /^Significantly harmful after Holm correction: this skill harmed 7 tasks and rescued 0/);
    assert.match(message, /on math-word with model-a\. /, "says which configuration it shows");
    assert.match(message, / Also: model-b on math-word in a library of 3 skills \u2014 rescued 1, harmed 0; model-a on math-word in a library of 3 skills \u2014 inconclusive/);
    assert.equal(text.lensTitle(shown, false), "RAE \u22120.35 [\u22120.55, \u22120.15] \u00b7 0 rescued \u00b7 7 harmed \u00b7 model-a on math-word");

    // Another configured model: its own result is shown, A's verdict is still kept.
    configured = "model-b";
    assert.equal(s.get(FILE)!.model, "model-b");
    assert.ok(s.others(FILE).some((r) => r.flag === "harmful" && r.model === "model-a"));
  });

  it("a new result replaces only its own configuration, also across an edit of the skill", async () => {
    const s = new store.ResultsStore(new MemoryMemento() as never, () => "model-a");
    await s.set([harmfulA()]);
    await s.set([result("model-a", { contentHash: "h2", harmed: 1 })]);
    assert.equal(s.get(FILE)!.contentHash, "h2");
    assert.deepEqual(s.others(FILE), []);
  });

  it("shows the task set last used for the skill alone, before another set of the same model", async () => {
    const s = new store.ResultsStore(new MemoryMemento() as never, () => "model-a");
    await s.set([harmfulA()]);
    await s.set([inLibrary("model-a", { taskSet: "humaneval", taskSetFile: "/t/humaneval.jsonl" })]);
    assert.equal(s.get(FILE)!.taskSet, "math-word");
    await s.set([result("model-a", { taskSet: "gsm8k", taskSetFile: "/t/gsm8k.jsonl", rescued: 2 })]);
    assert.equal(s.get(FILE)!.taskSet, "gsm8k", "the author's last choice for this skill");
  });

  it("reads results stored by the previous version (one per file)", async () => {
    const memento = new MemoryMemento();
    await memento.update("skillFollowing.results.v1", { [FILE]: harmfulA() });
    const s = new store.ResultsStore(memento as never, () => "model-a");
    assert.equal(s.get(FILE)!.flag, "harmful");
    await s.set([inLibrary("model-b")]);
    assert.equal(s.get(FILE)!.flag, "harmful");
    assert.equal(s.others(FILE).length, 1);
  });
});

describe("verdict wording", () => {
  it("pluralises tasks, never writes `RAE n/a n/a`, and says a not-retrieved skill is not retrieved", () => {
    assert.equal(text.tasks(1), "1 task");
    assert.equal(text.tasks(2), "2 tasks");
    const one = result("m", { rescued: 1, harmed: 0, rae: 0.05, low: -0.02, high: 0.2 });
    assert.match(text.verdictMessage(one, false)!, /^This skill rescued 1 task and harmed 0 /);
    assert.equal(text.raeText({ rae: null, low: null, high: null }), "RAE n/a");
    assert.equal(text.raeText({ rae: 0.1, low: null, high: null }), "RAE +0.10");
    const none = result("m", { n: 0, rae: null, low: null, high: null });
    assert.equal(text.lensTitle(none, false), "not retrieved \u00b7 m on math-word");
    assert.doesNotMatch(text.lensTitle({ ...none, n: 4 }, false), /n\/a n\/a/);
  });
});
