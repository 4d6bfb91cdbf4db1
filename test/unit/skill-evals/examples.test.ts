/**
 * The shipped example skills' own evals (skills/<name>/evals/evals.json): they load without a problem, cover what
 * the issue asks of the examples (a non-code skill with references/ and attached files, a near miss), and each
 * deterministic check passes a good reference answer and fails a bad one, so the checks test what they claim.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { runCheck } from "../../../src/core/grading/checks.js";
import { listSkillFiles } from "../../../src/core/retrieval/skill-files.js";
import { lintSkillText, scanSkills } from "../../../src/core/skills/index.js";
import { loadSkillEvals, type SkillEvalTask } from "../../../src/core/tasks/index.js";
import { readFileSync } from "node:fs";
import { REFERENCE } from "../../support/example-answers.js";

const skillsDir = path.resolve(__dirname, "../../../skills");

describe("the example skills' own evals", () => {
  it("load without a problem: three skills, both spellings, a near miss, attached files", async () => {
    const scan = await scanSkills([skillsDir]);
    const set = loadSkillEvals(scan.skills);
    assert.deepEqual(set.issues, []);
    const tasks = set.tasks as SkillEvalTask[];
    assert.deepEqual(new Set(tasks.map((t) => t.owner)), new Set(["release-notes", "regex-pitfalls", "word-problem-units"]));
    assert.deepEqual(tasks.map((t) => t.id).sort(), Object.keys(REFERENCE).sort());
    assert.ok(tasks.some((t) => !t.shouldTrigger), "a near miss");
    assert.ok(tasks.some((t) => t.attachments.some((a) => a.text !== undefined)), "an attached text file");
    const raw = (name: string) => readFileSync(path.join(skillsDir, name, "evals", "evals.json"), "utf8");
    assert.match(raw("release-notes"), /"expectations"/);
    assert.match(raw("regex-pitfalls"), /"assertions"/);
  });

  it("release-notes is a non-code skill whose body points to references the agent can read", async () => {
    const scan = await scanSkills([path.join(skillsDir, "release-notes")]);
    const skill = scan.skills[0]!;
    assert.deepEqual(lintSkillText(skill.file, readFileSync(skill.file, "utf8")).filter((f) => f.severity !== "info"), []);
    const files = listSkillFiles(skill.dir).map((f) => f.path);
    assert.deepEqual(files, ["references/categories.md", "references/style.md"]);
    for (const f of files) assert.ok(skill.body.includes(f), `the body links ${f}`);
  });

  for (const [id, ref] of Object.entries(REFERENCE)) {
    it(`${id}: every check passes the good answer, one fails the bad`, async () => {
      const scan = await scanSkills([skillsDir]);
      const task = loadSkillEvals(scan.skills).tasks.find((t) => t.id === id) as SkillEvalTask;
      const checks = task.criteria.flatMap((c) => (c.type === "judge" ? [] : [c]));
      assert.ok(checks.length > 0, "each example case has a deterministic check");
      for (const c of checks) assert.equal(runCheck(c, ref.good).passed, true, `${c.name ?? c.type} on the good answer: ${runCheck(c, ref.good).evidence}`);
      assert.ok(checks.some((c) => !runCheck(c, ref.bad).passed), "the bad answer fails a check");
    });
  }
});
