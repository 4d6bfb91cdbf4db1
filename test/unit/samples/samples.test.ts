import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { lintSkillText, scanSkills } from "../../../src/core/skills/index.js";
import { loadTaskSet } from "../../../src/core/tasks/load.js";
import { TaskSchema, type Task } from "../../../src/core/tasks/schema.js";

// Tests run from the repo root (npm test, or node --test by hand there).
const root = process.cwd();
const skillsDir = path.join(root, "skills");
const sampleFiles = { python: path.join(root, "samples/python-basics.jsonl"), math: path.join(root, "samples/math-word.jsonl") };

function parseLines(file: string): Task[] {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  return lines.map((line, i) => {
    const result = TaskSchema.safeParse(JSON.parse(line));
    assert.ok(result.success, `${file}:${i + 1}: ${result.success ? "" : result.error.message}`);
    return result.data;
  });
}

function entryPointOf(task: Task): string {
  assert.equal(task.kind, "python-function");
  return task.kind === "python-function" ? task.entryPoint : "";
}

describe("built-in sample task sets", () => {
  const python = parseLines(sampleFiles.python);
  const math = parseLines(sampleFiles.math);

  it("every line parses with TaskSchema, ids are unique, kinds match the file", () => {
    assert.ok(python.length >= 35 && python.length <= 50, `python tasks: ${python.length}`);
    assert.ok(math.length >= 35 && math.length <= 50, `math tasks: ${math.length}`);
    assert.ok(python.every((t) => t.kind === "python-function"));
    assert.ok(math.every((t) => t.kind === "math-answer"));
    const ids = [...python, ...math].map((t) => t.id);
    assert.equal(new Set(ids).size, ids.length, "duplicate task ids");
  });

  it("the product's loader reads both files as native sets with no issues", async () => {
    for (const [file, expected] of [
      [sampleFiles.python, python.length],
      [sampleFiles.math, math.length],
    ] as const) {
      const set = await loadTaskSet(file);
      assert.equal(set.format, "native");
      assert.deepEqual(set.issues, []);
      assert.equal(set.tasks.length, expected);
    }
  });

  it("python prompts name their entry point and show an example call of it", () => {
    for (const t of python) {
      const entry = entryPointOf(t);
      assert.ok(t.prompt.includes(`\`${entry}(`), `${t.id}: prompt does not state the signature of ${entry}`);
      assert.match(t.prompt, new RegExp(`assert ${entry}\\(`), `${t.id}: prompt has no example assert`);
      assert.match(t.kind === "python-function" ? t.canonicalSolution : "", new RegExp(`^def ${entry}\\(`, "m"), `${t.id}: canonical solution does not define ${entry}`);
      if (t.kind === "python-function") assert.ok(t.tests.base.length >= 2 && t.tests.plus.length >= 3, `${t.id}: too few test inputs`);
    }
  });

  it("both counter-example skills have tasks they are tagged to harm, and the helpful skills have tasks too", () => {
    const tags = [...python, ...math].flatMap((t) => t.tags ?? []);
    const count = (tag: string) => tags.filter((x) => x === tag).length;
    assert.ok(count("harmed-by:tidy-list-outputs") >= 5, "tidy-list-outputs should break several python tasks");
    assert.ok(count("harmed-by:round-money-whole-units") >= 5, "round-money-whole-units should break several math tasks");
    for (const skill of ["python-edge-cases", "float-tolerance", "exact-integer-arithmetic", "recursion-to-iteration", "regex-pitfalls", "signature-from-example", "dict-counting-order", "word-problem-units", "fraction-arithmetic", "final-answer-check"]) {
      assert.ok(count(`helps:${skill}`) >= 2, `no tasks tagged helps:${skill}`);
    }
  });

  it("harmed-by:round-money tags sit exactly on money answers that have cents", () => {
    for (const t of math) {
      if (t.kind !== "math-answer") continue;
      const hasCents = /^\d+\.\d+$/.test(t.answer) && !Number.isInteger(Number(t.answer));
      const tagged = (t.tags ?? []).includes("harmed-by:round-money-whole-units");
      assert.equal(tagged, hasCents && (t.tags ?? []).includes("money"), `${t.id}: answer ${t.answer}`);
    }
  });
});

describe("example skill library", () => {
  it("has 8-14 skills that scan without a single finding, names equal folders", async () => {
    const scan = await scanSkills([skillsDir]);
    assert.deepEqual(scan.findings, []);
    const folders = (await readdir(skillsDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    assert.ok(folders.length >= 8 && folders.length <= 14, `skills: ${folders.length}`);
    assert.deepEqual(scan.skills.map((s) => s.name).sort(), folders);
    for (const s of scan.skills) {
      assert.ok(s.description.length >= 120, `${s.name}: description too short to say what and when`);
      assert.match(s.description, /\bUse (when|whenever|just before)\b/, `${s.name}: description does not say when to use it`);
      const lines = s.body.trim().split("\n").length;
      assert.ok(lines >= 20 && lines <= 80, `${s.name}: body has ${lines} lines`);
    }
  });

  it("each SKILL.md is clean under lintSkillText as well", async () => {
    for (const name of await readdir(skillsDir)) {
      const file = path.join(skillsDir, name, "SKILL.md");
      assert.deepEqual(lintSkillText(file, await readFile(file, "utf8")), [], file);
    }
  });

  it("the counter-examples say so in their metadata, and only they do", async () => {
    const scan = await scanSkills([skillsDir]);
    const flagged = scan.skills.filter((s) => s.metadata?.["counter-example"] === "true").map((s) => s.name).sort();
    assert.deepEqual(flagged, ["round-money-whole-units", "tidy-list-outputs"]);
    for (const s of scan.skills.filter((x) => flagged.includes(x.name))) {
      assert.match(s.metadata?.purpose ?? "", /Deliberately harmful/);
    }
  });
});
