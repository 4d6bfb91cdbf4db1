// test-requires: shared-data
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadTaskSet, type MathAnswerTask, type PythonFunctionTask } from "../../../src/core/tasks/index.js";

// Tests run from the repo root; the shared data sits beside it and is never copied into the repo.
const data = path.resolve(process.cwd(), "../shared/data");

describe("loadTaskSet on the real public files (whole files)", () => {
  it("GSM8K: 1,319/1,319, final answers without thousands commas, negatives kept", async () => {
    const file = path.join(data, "gsm8k/test.jsonl");
    const set = await loadTaskSet(file);
    assert.equal(set.format, "gsm8k");
    assert.equal(set.name, "gsm8k");
    assert.equal(set.tasks.length, 1319);
    assert.deepEqual(set.issues, []);
    assert.equal(set.hash, "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14");
    const tasks = set.tasks as MathAnswerTask[];
    assert.deepEqual(
      { id: tasks[0]?.id, answer: tasks[0]?.answer, kind: tasks[0]?.kind },
      { id: "gsm8k/0", answer: "18", kind: "math-answer" },
    );
    assert.match(tasks[0]!.prompt, /^Janet’s ducks lay 16 eggs/);
    assert.equal(new Set(tasks.map((t) => t.id)).size, 1319);
    // Every answer is an integer; the raw file has 14 with commas and 2 negatives.
    assert.ok(tasks.every((t) => /^-?\d+$/.test(t.answer)), "all answers are plain integers");
    const rawLines = readFileSync(file, "utf8").trim().split("\n");
    const withCommas = rawLines.map((l, i) => [i, /#### (.*)$/.exec(JSON.parse(l).answer)?.[1] ?? ""] as const).filter(([, a]) => a.includes(","));
    assert.equal(withCommas.length, 14);
    for (const [i, a] of withCommas) assert.equal(tasks[i]!.answer, a.replace(/,/g, ""));
    assert.equal(tasks.filter((t) => t.answer.startsWith("-")).length, 2);
  });

  it("MATH-500: 500/500, id = unique_id, LaTeX answers verbatim, subject and level tags", async () => {
    const set = await loadTaskSet(path.join(data, "math500/test.jsonl"));
    assert.equal(set.format, "math500");
    assert.equal(set.tasks.length, 500);
    assert.deepEqual(set.issues, []);
    assert.equal(set.hash, "35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132");
    const first = set.tasks[0] as MathAnswerTask;
    assert.equal(first.id, "test/precalculus/807.json");
    assert.equal(first.answer, "\\left( 3, \\frac{\\pi}{2} \\right)");
    assert.deepEqual(first.tags, ["math500", "subject:Precalculus", "level:2"]);
    const levels = new Map<string, number>();
    for (const t of set.tasks) for (const tag of t.tags ?? []) if (tag.startsWith("level:")) levels.set(tag, (levels.get(tag) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries([...levels].sort()), { "level:1": 43, "level:2": 90, "level:3": 105, "level:4": 128, "level:5": 134 });
  });

  const evalplus: [string, string, number, string, string][] = [
    ["mbppplus/MbppPlus-v0.2.0.jsonl.gz", "evalplus-mbpp", 378, "mbppplus", "af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63"],
    ["mbppplus/MbppPlus-OriginFmt-v0.2.0.jsonl.gz", "evalplus-mbpp-originfmt", 378, "mbppplus", "7a5aec547b134fa297ee6c45f829298aa3f58de02547b8d8a5c3d85d9cb10efc"],
    ["humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz", "evalplus-humaneval", 164, "humanevalplus", "272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101"],
    ["humanevalplus/HumanEvalPlus-OriginFmt-v0.1.10.jsonl.gz", "evalplus-humaneval-originfmt", 164, "humanevalplus", "daa7661c8189924068069b0872a440b491edb60f8bdf431d5957adc88d18bae5"],
  ];
  const idsByName = new Map<string, string[]>();
  for (const [rel, format, n, name, sha] of evalplus) {
    it(`${rel}: ${n}/${n} as ${format}`, async () => {
      const set = await loadTaskSet(path.join(data, rel));
      assert.equal(set.format, format);
      assert.equal(set.name, name);
      assert.equal(set.tasks.length, n);
      assert.deepEqual(set.issues, []);
      assert.equal(set.hash, sha, "hash is of the compressed bytes as stored");
      assert.ok(set.tasks.every((t) => t.kind === "python-function"));
      const ids = set.tasks.map((t) => t.id).sort();
      const other = idsByName.get(name);
      // Both layouts of one benchmark must yield the same task ids, so runs on either are comparable.
      if (other) assert.deepEqual(ids, other);
      else idsByName.set(name, ids);
      if (format === "evalplus-mbpp") {
        const t = set.tasks.find((x) => x.id === "Mbpp/2") as PythonFunctionTask;
        assert.equal(t.entryPoint, "similar_elements");
        assert.equal(t.tests.base.length, 3);
      }
    });
  }

  it("limit loads the first n tasks; the hash still covers the whole file", async () => {
    const set = await loadTaskSet(path.join(data, "humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz"), { limit: 5 });
    assert.deepEqual(
      set.tasks.map((t) => t.id),
      ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/3", "HumanEval/4"],
    );
    assert.equal(set.hash, "272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101");
    await assert.rejects(loadTaskSet(path.join(data, "gsm8k/test.jsonl"), { limit: 0 }), /limit must be a positive integer/);
  });
});
