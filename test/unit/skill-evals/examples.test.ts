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

const skillsDir = path.resolve(__dirname, "../../../skills");

/** A good and a bad answer per case: every check passes the good one; at least one fails the bad one. */
const REFERENCE: Record<string, { good: string; bad: string }> = {
  "release-notes/1": {
    good: "## 2.0.0\n\n### Breaking changes\nThe --legacy flag is removed. To upgrade, use --format v1 instead.\n\n### Features\nAdds `export --csv` for spreadsheets.\n\n### Fixes\nFixed a crash when the config file is empty (#212).\nFixed the wrong exit code when --help is given (#215).\n",
    bad: "- feat!: remove the --legacy flag\n- chore: bump eslint to 9.12\n- fix: crash when the config file is empty\n",
  },
  "release-notes/2": {
    good: "## 2.0.1\n\n### Fixes\nFixed a crash when the config file is empty (#212).\nFixed the wrong exit code on --help (#215).\n",
    bad: "## 2.0.1\n\n### Breaking changes\nNone.\n",
  },
  "release-notes/3": { good: "- Removed an old option\n- Added CSV export\n- Fixed two bugs", bad: "### Features\n- CSV export" },
  "regex-pitfalls/validate-zip": {
    good: '```python\nimport re\n\ndef is_zip(s):\n    return bool(re.fullmatch(r"\\d{5}", s))\n```',
    bad: '```python\nimport re\n\ndef is_zip(s):\n    return re.match("\\\\d{5}$", s)\n```',
  },
  "regex-pitfalls/strip-tags": { good: 're.sub(r"<.*?>", "", s)  # lazy: stops at the first >', bad: 're.sub(r"<.*>", "", s)' },
  "regex-pitfalls/split-words": { good: 're.split(r",\\s*", "a, b,c")', bad: 're.split(r"(,)\\s*", "a, b,c")' },
  "word-problem-units/1": { good: "20 minutes is 1/3 hour, so 90 × 1/3 = 30 km.\n30", bad: "90 × 20 = 1800\n1800" },
  "word-problem-units/2": { good: "12 × 75 cents = 900 cents = $9.00", bad: "12 × 75 = 900 dollars" },
  "word-problem-units/3": { good: "0.15 × 80 = 12", bad: "0.15 × 80 = 1.2" },
};

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
