/**
 * agent-skills-eval's evals.json read whole (issue 27): its top-level `defaults`, its assertion objects `{text}`,
 * `{criterion}` and untyped `{value}`, and its per-case fields (params, tools, tool_choice, tool_assertions,
 * runtime_checks, verification, captured_files). The shapes are those its own parser reads (GitHub
 * darkrishabh/agent-skills-eval, npm `agent-skills-eval` 0.1.1, src/skill.ts: parseDefaults, parseAssertionString,
 * parseEval; snapshot b60eebe3). No case is lost; what this tool does not apply is said once per field, located, as
 * a note that lint reports as info (not an error).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { lintSkills } from "../../../src/cli/lint.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { evalsJsonSchema } from "../../../src/core/tasks/evals-file.js";
import { loadSkillEvals, type SkillEvalTask } from "../../../src/core/tasks/index.js";

/** An agent-skills-eval file as its README and examples write one, with every form its parser reads. */
const EVALS = {
  skill_name: "csv-insights",
  defaults: {
    target: { params: { temperature: 0.2, max_tokens: 800 } },
    judge: { params: { temperature: 0 } },
    tools: [{ type: "function", function: { name: "read_csv", description: "Reads a CSV file", parameters: { type: "object", properties: { path: { type: "string" } } } } }],
  },
  evals: [
    {
      id: "top-revenue-month",
      name: "top revenue month",
      prompt: "Use the attached CSV to identify the month with the highest revenue.",
      files: ["evals/files/revenue.csv"],
      expected_output: "The response identifies February as the highest revenue month with revenue of 18.",
      assertions: ["The output names February as the highest revenue month.", { text: "The output includes the value 18." }, { criterion: "The output cites the February row." }],
    },
    {
      id: 2,
      prompt: "Which month had the lowest revenue?",
      assertions: [{ value: "The output names January." }, { criterion: "No month is invented." }],
      params: { temperature: 0.7 },
      tool_choice: "auto",
      tool_assertions: [{ type: "tool-called", name: "read_csv" }],
    },
    {
      id: "negative",
      name: "Unrelated question must not trigger",
      prompt: "What is 2 + 2? Reply with the number only.",
      should_trigger: false,
      assertions: [],
      runtime_checks: { forbiddenFiles: ["report.json"], maxCommands: 3 },
      verification: [{ name: "nothing-written", command: "node", args: ["-e", "0"] }],
      captured_files: [],
    },
  ],
};

function library(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-ase-"));
  const dir = path.join(root, "csv-insights");
  mkdirSync(path.join(dir, "evals", "files"), { recursive: true });
  writeFileSync(path.join(dir, "SKILL.md"), "---\nname: csv-insights\ndescription: Analyze small CSV files.\n---\nFind the trend and cite the rows.\n");
  writeFileSync(path.join(dir, "evals", "files", "revenue.csv"), "month,revenue\nJanuary,12\nFebruary,18\n");
  writeFileSync(path.join(dir, "evals", "evals.json"), `${JSON.stringify(EVALS, null, 2)}\n`);
  return root;
}

describe("agent-skills-eval's evals.json, read whole", () => {
  it("agent-skills-eval file with defaults and {text}/{criterion}/{value} assertions: every case loads, every assertion is a judge criterion", async () => {
    const root = library();
    const set = loadSkillEvals((await scanSkills([root])).skills);
    const tasks = set.tasks as SkillEvalTask[];
    assert.deepEqual(tasks.map((t) => t.id), ["csv-insights/top-revenue-month", "csv-insights/2", "csv-insights/negative"], "no case lost");
    assert.equal(tasks.length, EVALS.evals.length);
    assert.deepEqual(tasks[0]!.criteria, [
      { type: "judge", text: "The output names February as the highest revenue month." },
      { type: "judge", text: "The output includes the value 18." },
      { type: "judge", text: "The output cites the February row." },
    ]);
    assert.deepEqual(tasks[1]!.criteria, [{ type: "judge", text: "The output names January." }, { type: "judge", text: "No month is invented." }]);
    assert.equal(tasks[0]!.attachments[0]!.path, "evals/files/revenue.csv");
    assert.equal(tasks[2]!.shouldTrigger, false);
    assert.equal(tasks[2]!.triggerOnly, true, "a case with no assertion and no expected output can only say whether the skill was loaded");
  });

  it("what this tool does not apply (defaults, params, tools, tool assertions, runtime checks) is said once per field, located, and lint calls it info", async () => {
    const root = library();
    const set = loadSkillEvals((await scanSkills([root])).skills);
    const notes = set.issues.map((i) => `${i.line}:${i.column} ${i.message}`);
    assert.equal(notes.length, 7, notes.join("\n"));
    assert.ok(notes.every((n) => / not applied here: /.test(n)), notes.join("\n"));
    assert.match(notes[0]!, /^3:3 not applied here: defaults\.target, defaults\.judge, defaults\.tools \(agent-skills-eval's model params and tools\)/);
    const fields = set.issues.slice(1).map((i) => /"([a-z_]+)"/.exec(i.message)![1]);
    assert.deepEqual(fields.sort(), ["captured_files", "params", "runtime_checks", "tool_assertions", "tool_choice", "verification"]);
    const lint = await lintSkills([root]);
    assert.deepEqual([...new Set(lint.findings.map((f) => `${f.code}:${f.severity}`))], ["evals-not-applied:info"]);
  });

  it("the editor's evals.json schema accepts the same file (defaults, the object forms, the per-case fields)", () => {
    const schema = evalsJsonSchema() as { properties: Record<string, unknown>; definitions?: unknown };
    assert.ok("defaults" in schema.properties);
    const text = JSON.stringify(schema);
    for (const k of ["criterion", "tool_assertions", "runtime_checks", "captured_files"]) assert.ok(text.includes(`"${k}"`), k);
  });

  it("a bad object form is still a located problem that skips only its case", async () => {
    const root = library();
    const bad = { ...EVALS, evals: [...EVALS.evals, { id: "bad", prompt: "p", assertions: [{ criterion: "" }] }, { id: "typo", prompt: "p", assertions: [{ critrion: "x" }] }] };
    writeFileSync(path.join(root, "csv-insights", "evals", "evals.json"), JSON.stringify(bad, null, 2));
    const set = loadSkillEvals((await scanSkills([root])).skills);
    assert.equal(set.tasks.length, 3);
    const skipped = set.issues.filter((i) => i.message.endsWith("case skipped"));
    assert.equal(skipped.length, 2, skipped.map((i) => i.message).join("\n"));
  });
});
