/**
 * Issue 24: the skill's CodeLens follows the results. A library run or a comparison that adds another
 * configuration's result fires onDidChangeCodeLenses (so VS Code asks again and repaints), and what the provider
 * then gives keeps the configured model's verdict and adds an `also:` link to the new result. The real provider
 * (src/extension/codelens.ts) and ResultsStore run against the fake `vscode` (fake-vscode.ts).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { skillContentHash } from "../../../src/core/skills/hash.js";
import type { SkillResult } from "../../../src/extension/report-view-model.js";
import { installFakeVscode, MemoryMemento, Uri, type CodeLens } from "./fake-vscode.js";

type LensModule = typeof import("../../../src/extension/codelens.js");
type StoreModule = typeof import("../../../src/extension/results-store.js");
let lenses: LensModule;
let store: StoreModule;

before(async () => {
  installFakeVscode();
  lenses = await import("../../../src/extension/codelens.js");
  store = await import("../../../src/extension/results-store.js");
});

const FILE = "/ws/skills/round-money/SKILL.md";
const TEXT = "---\nname: round-money\ndescription: Round money to whole units.\n---\nRound every amount.\n";
const doc = (text = TEXT) => ({ uri: Uri.file(FILE), getText: () => text });

function result(model: string, runFile: string, over: Partial<SkillResult> = {}): SkillResult {
  return {
    name: "round-money",
    file: FILE,
    contentHash: skillContentHash(TEXT),
    runFile,
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
    evaluatedAt: `2026-12-05T10:00:0${runFile.length % 10}Z`,
    librarySize: 1,
    libraryHash: "lib-1",
    mode: "tools",
    ...over,
  };
}

describe("the skill's CodeLens after a library run and a comparison", () => {
  it("is asked for again after each, keeps model A's verdict and links to B's latest result", async () => {
    const results = new store.ResultsStore(new MemoryMemento() as never, () => "model-a");
    const provider = new lenses.SkillCodeLenses(results);
    let changes = 0;
    provider.onDidChangeCodeLenses(() => changes++);
    const titles = () => (provider.provideCodeLenses(doc() as never) as unknown as CodeLens[]).map((l) => l.command!.title);

    assert.deepEqual(titles(), ["$(beaker) Evaluate this skill"]);
    await results.set([result("model-a", "/runs/a.jsonl", { harmed: 7, rae: -0.35, low: -0.55, high: -0.15, pHolm: 0.012, flag: "harmful" })]);
    assert.equal(changes, 1, "the example's result fires a CodeLens change");
    const verdictA = titles()[0]!;
    assert.match(verdictA, /7 harmed · model-a on math-word$/);

    // Evaluate Skill Library with model B: the skill's result in a library of 3.
    await results.set([result("model-b", "/runs/library-b.jsonl", { librarySize: 3, libraryHash: "lib-3" })]);
    assert.equal(changes, 2, "the library run fires a CodeLens change");
    assert.equal(titles()[0], verdictA, "the verdict shown is still model A's");
    assert.ok(titles().some((t) => t.startsWith("also: model-b on math-word in a library of 3")), titles().join(" | "));

    // Compare Models A and B: two more results; A's comparison run is its own (library of 3), B's replaces B's.
    await results.set([result("model-a", "/runs/compare-a.jsonl", { librarySize: 3, libraryHash: "lib-3", harmed: 1, flag: "inconclusive" })]);
    await results.set([result("model-b", "/runs/compare-b.jsonl", { librarySize: 3, libraryHash: "lib-3" })]);
    assert.equal(changes, 4, "each model of the comparison fires a CodeLens change");
    assert.equal(titles()[0], verdictA);
    const also = (provider.provideCodeLenses(doc() as never) as unknown as CodeLens[]).filter((l) => l.command!.title.startsWith("also: "));
    assert.ok(also.length >= 1 && also.length <= 2, also.map((l) => l.command!.title).join(" | "));
    const runFiles = also.map((l) => (l.command!.arguments as string[][])[0]![0]);
    assert.ok(runFiles.includes("/runs/compare-b.jsonl"), `B's link opens the comparison's run, the latest of its configuration (${runFiles.join(", ")})`);
    assert.ok(!runFiles.includes("/runs/library-b.jsonl"), "the replaced result of that configuration is not linked");

    // An edit of the text marks the verdict stale (the lens is computed from the document it is asked for).
    assert.match((provider.provideCodeLenses(doc(`${TEXT}More.\n`) as never) as unknown as CodeLens[])[0]!.command!.title, /stale/);
    provider.dispose();
  });
});
