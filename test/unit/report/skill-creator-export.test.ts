/**
 * The skill-creator export's folder names (issue 23): distinct eval ids never share a folder, whatever sanitising does
 * to them, and every renamed id is said so.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildReport } from "../../../src/core/report/build.js";
import { folderNames, signedText, skillCreatorExport } from "../../../src/core/report/skill-creator.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { header, rec } from "./fixtures.js";

function evalRecord(taskId: string, condition: "enabled" | "disabled", answer: string): RunRecord {
  return {
    ...rec(taskId, condition, true),
    answer,
    verdict: { pass: true, reason: "ok", expectations: [{ text: "says so", passed: true, evidence: "it does" }] },
    transcript: [{ role: "user", content: `prompt of ${taskId}` }],
  };
}

describe("skill-creator export: folder names", () => {
  it("skill-creator export: eval ids \"a b\" and \"a-b\" get two folders, each with its own runs, and the renamed one is noted", () => {
    const ids = ["demo/a b", "demo/a-b"];
    const h = header({ taskIds: ids, evalTasks: ids.map((id) => ({ id, owner: "demo", shouldTrigger: true, triggerOnly: false, judged: 0 })) }, ["demo"]);
    const records = ids.flatMap((id) => [evalRecord(id, "enabled", `with ${id}`), evalRecord(id, "disabled", `without ${id}`)]);
    const out: unknown = skillCreatorExport([{ header: h, records }], buildReport([{ header: h, records }]));
    // (The export returned a bare file list before it returned notes; kept readable so the old code fails on the clash, not the shape.)
    const { files, notes } = Array.isArray(out) ? { files: out as Array<{ path: string; text: string }>, notes: [] as string[] } : (out as ReturnType<typeof skillCreatorExport>);
    const responses = files.filter((f) => f.path.endsWith("/with_skill/run-1/outputs/response.md"));
    assert.equal(new Set(files.map((f) => f.path)).size, files.length, `a path is written twice (one eval overwrites the other):\n${files.map((f) => f.path).join("\n")}`);
    assert.equal(responses.length, 2);
    const byText = new Map(responses.map((f) => [f.text, f.path]));
    assert.equal(byText.get("with demo/a-b"), "demo/eval-a-b/with_skill/run-1/outputs/response.md", "a folder-safe id keeps its name");
    assert.match(byText.get("with demo/a b")!, /^demo\/eval-a-b-[0-9a-f]{8}\/with_skill\/run-1\/outputs\/response\.md$/);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /demo eval id "a b" is written as folder "a-b-[0-9a-f]{8}" \(not folder-safe as it is/);
    const bench = JSON.parse(files.find((f) => f.path === "demo/benchmark.json")!.text) as { notes: string[]; runs: Array<{ eval_name: string; configuration: string }> };
    assert.ok(bench.notes.includes(notes[0]!));
    assert.deepEqual(bench.runs.map((r) => `${r.eval_name}:${r.configuration}`), ["a b:with_skill", "a b:without_skill", "a-b:with_skill", "a-b:without_skill"]);
  });

  it("folder names are injective: sanitised clashes, case-only differences and a literal name that looks like a suffixed one", () => {
    const ids = ["a b", "a-b", "a/b", "A-B", "a-b-", "", "..", "x"];
    const { names, notes } = folderNames(ids, "eval id");
    const lower = [...names.values()].map((n) => n.toLowerCase());
    assert.equal(new Set(lower).size, ids.length);
    for (const n of names.values()) assert.match(n, /^[A-Za-z0-9_.-]+$/);
    assert.equal(names.get("x"), "x");
    assert.equal(notes.length, ids.length - 2);
    // A folder-safe id equal to the suffixed name another id would get still keeps its own name.
    const clash = `a-b-${[...folderNames(["a b"], "id").names.values()][0]!.slice(4)}`;
    const both = folderNames(["a b", clash], "id").names;
    assert.equal(both.get(clash), clash);
    assert.notEqual(both.get("a b")!.toLowerCase(), clash.toLowerCase());
  });

  it("deltas are written as Python's format writes them: an exact tie rounds to even", () => {
    // Expected values are Python 3's format(x, "+.<d>f"), which aggregate_benchmark.py uses.
    const python: Array<[number, number, string]> = [[620.5, 0, "+620"], [621.5, 0, "+622"], [0.125, 2, "+0.12"], [0.375, 2, "+0.38"], [-0.125, 2, "-0.12"], [-0.17, 2, "-0.17"], [0.05, 1, "+0.1"], [2.5, 0, "+2"], [-2.5, 0, "-2"], [1 / 3, 2, "+0.33"], [-1e-17, 2, "-0.00"], [0, 2, "+0.00"]];
    for (const [x, d, text] of python) assert.equal(signedText(x, d), text, `${x} with ${d} decimals`);
  });
});
