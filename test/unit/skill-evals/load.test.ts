/**
 * Reading skills' own evals: both spellings, string and typed assertions, attached files, trigger sets, and every
 * malformed input the issue names (bad JSON, wrong types, missing prompt, a file outside the skill, an unknown
 * assertion type, a 50 MB file), each a located issue (file:line:column) while the rest loads.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../../src/core/errors.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { loadSkillEvals, loadTriggerEvals, type SkillEvalTask, type TaskLoadIssue } from "../../../src/core/tasks/index.js";

function library(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-evals-load-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBody of ${name}.\n`;

async function load(root: string) {
  const scan = await scanSkills([root]);
  return loadSkillEvals(scan.skills);
}

/** `file:line:col: message` of each issue, file relative to the library. */
const located = (root: string, issues: readonly TaskLoadIssue[]) => issues.map((i) => `${path.relative(root, i.file)}:${i.line}:${i.column}: ${i.message}`);

describe("evals/evals.json: both spellings", () => {
  it("reads skill-creator's expectations (numeric ids) and the Agent Skills assertions (string ids, typed)", async () => {
    const root = library({
      "a/SKILL.md": skillMd("a"),
      "a/evals/evals.json": JSON.stringify({ skill_name: "a", evals: [{ id: 1, prompt: "P1", expected_output: "E1", files: [], expectations: ["Says hello"] }] }),
      "b/SKILL.md": skillMd("b"),
      "b/evals/evals.json": JSON.stringify({
        evals: [
          { id: "x", prompt: "P2", assertions: [{ name: "greets", type: "icontains", value: "HELLO" }, { type: "regex", value: "^hi", flags: "im" }, { type: "json_valid" }, { type: "equals", value: 42 }] },
          { id: 2, prompt: "P3", should_trigger: false, expectations: ["Declines"] },
          { id: 3, prompt: "Only an expected output", expected_output: "A haiku." },
          { id: 4, prompt: "Nothing to grade" },
        ],
      }),
    });
    const set = await load(root);
    assert.deepEqual(set.issues, []);
    assert.equal(set.format, "skill-evals");
    const byId = new Map(set.tasks.map((t) => [t.id, t as SkillEvalTask]));
    assert.deepEqual([...byId.keys()], ["a/1", "b/x", "b/2", "b/3", "b/4"]);
    assert.deepEqual(byId.get("a/1")!.criteria, [{ type: "judge", text: "Says hello" }]);
    assert.equal(byId.get("a/1")!.expectedOutput, "E1");
    assert.deepEqual(byId.get("b/x")!.criteria, [
      { type: "icontains", value: "HELLO", name: "greets" },
      { type: "regex", value: "^hi", flags: "im" },
      { type: "json_valid", value: "" },
      { type: "equals", value: "42" },
    ]);
    assert.equal(byId.get("b/2")!.shouldTrigger, false);
    assert.deepEqual(byId.get("b/3")!.criteria, [{ type: "judge", text: "The response achieves the expected result: A haiku." }]);
    assert.equal(byId.get("b/4")!.triggerOnly, true, "a case with nothing to grade only measures triggering");
    assert.equal(byId.get("b/x")!.owner, "b");
  });

  it("inlines text files under their path, lists binary and oversized ones by name and size", async () => {
    const root = library({
      "a/SKILL.md": skillMd("a"),
      "a/evals/files/in.txt": "line 1\nline 2\n",
      "a/evals/evals.json": JSON.stringify({ evals: [{ id: 1, prompt: "P", files: ["evals/files/in.txt", "evals/files/pic.bin", "evals/files/huge.log"], expectations: ["x"] }] }),
    });
    writeFileSync(path.join(root, "a/evals/files/pic.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    // 50 MB, sparse: the loader must stat it, never read it.
    writeFileSync(path.join(root, "a/evals/files/huge.log"), "");
    truncateSync(path.join(root, "a/evals/files/huge.log"), 50 * 2 ** 20);
    const before = process.memoryUsage().rss;
    const set = await load(root);
    assert.ok(process.memoryUsage().rss - before < 40 * 2 ** 20, "the 50 MB file was not read");
    const t = set.tasks[0] as SkillEvalTask;
    assert.deepEqual(t.attachments[0], { path: "evals/files/in.txt", bytes: 14, text: "line 1\nline 2\n" });
    assert.deepEqual(t.attachments[1], { path: "evals/files/pic.bin", bytes: 4, note: "binary (not UTF-8 text)" });
    assert.equal(t.attachments[2]!.bytes, 50 * 2 ** 20);
    assert.equal(t.attachments[2]!.text, undefined);
    assert.match(located(root, set.issues)[0]!, /^a\/evals\/evals\.json:1:\d+: files\[2\] "evals\/files\/huge\.log": 52428800 bytes, over the 65536-byte cap/);
  });
});

describe("evals/evals.json: malformed input gives located issues, the rest loads", () => {
  const good = JSON.stringify({ evals: [{ id: 1, prompt: "Fine", expectations: ["ok"] }] });

  it("bad JSON: line and column of the syntax error; other skills still load", async () => {
    const root = library({ "a/SKILL.md": skillMd("a"), "a/evals/evals.json": '{\n  "evals": [\n    {"id": 1 "prompt": "x"}\n  ]\n}\n', "b/SKILL.md": skillMd("b"), "b/evals/evals.json": good });
    const set = await load(root);
    assert.deepEqual(located(root, set.issues), ["a/evals/evals.json:3:14: not valid JSON: a comma was expected"]);
    assert.deepEqual(set.tasks.map((t) => t.id), ["b/1"]);
  });

  it("wrong types, a missing prompt and an unknown field: the case is skipped, the others in the file load", async () => {
    const text = [
      "{",
      '  "evals": [',
      '    {"id": true, "prompt": "a"},',
      '    {"id": 2, "expectations": ["x"]},',
      '    {"id": 3, "prompt": "c", "expectation": ["x"]},',
      '    {"id": 4, "prompt": "d", "files": "evals/x.txt"},',
      '    {"id": 5, "prompt": "fine", "assertions": ["ok"]}',
      "  ]",
      "}",
    ].join("\n");
    const root = library({ "a/SKILL.md": skillMd("a"), "a/evals/evals.json": text });
    const set = await load(root);
    assert.deepEqual(located(root, set.issues), [
      'a/evals/evals.json:3:6: field "evals.0.id": Invalid input: expected number or string, received boolean; case skipped',
      'a/evals/evals.json:4:5: field "evals.1.prompt": missing (required); case skipped',
      'a/evals/evals.json:5:30: field "evals.2": unknown field "expectation" (did you mean "expectations"?); case skipped',
      'a/evals/evals.json:6:30: field "evals.3.files": Invalid input: expected array, received string; case skipped',
    ]);
    assert.deepEqual(set.tasks.map((t) => t.id), ["a/5"]);
  });

  it("an unknown assertion type lists the known ones; a bad regex is caught at load", async () => {
    const root = library({
      "a/SKILL.md": skillMd("a"),
      "a/evals/evals.json": JSON.stringify({ evals: [{ id: 1, prompt: "p", assertions: [{ type: "startswith", value: "x" }] }, { id: 2, prompt: "p", assertions: [{ type: "regex", value: "(unclosed" }] }, { id: 3, prompt: "p", assertions: [{ type: "contains" }] }] }, null, 1),
      "b/SKILL.md": skillMd("b"),
      "b/evals/evals.json": good,
    });
    const issues = located(root, (await load(root)).issues);
    assert.match(issues[0]!, /^a\/evals\/evals\.json:\d+:\d+: field "evals\.0\.assertions\.0\.type": unknown assertion type "startswith"; the known types are contains, not_contains, icontains, regex, equals, json_valid; case skipped$/);
    assert.match(issues[1]!, /field "evals\.1\.assertions\.0\.value": not a valid regular expression/);
    assert.match(issues[2]!, /field "evals\.2\.assertions\.0\.value": a contains assertion needs a value/);
  });

  it("a file outside the skill: .., an absolute path, a symbolic link leading out, a missing file", async () => {
    const root = library({
      "a/SKILL.md": skillMd("a"),
      "b/SKILL.md": skillMd("b"),
      "outside.txt": "secret",
      "a/evals/evals.json": JSON.stringify({
        evals: [
          { id: 1, prompt: "p", files: ["../outside.txt"], expectations: ["x"] },
          { id: 2, prompt: "p", files: ["/etc/passwd"], expectations: ["x"] },
          { id: 3, prompt: "p", files: ["evals/link.txt"], expectations: ["x"] },
          { id: 4, prompt: "p", files: ["evals/none.txt"], expectations: ["x"] },
          { id: 5, prompt: "p", expectations: ["x"] },
        ],
      }),
    });
    symlinkSync(path.join(root, "outside.txt"), path.join(root, "a/evals/link.txt"));
    const set = await load(root);
    const issues = located(root, set.issues);
    assert.match(issues[0]!, /files\[0\] "\.\.\/outside\.txt": paths with \.\. are refused/);
    assert.match(issues[1]!, /files\[0\] "\/etc\/passwd": absolute paths are refused/);
    assert.match(issues[2]!, /files\[0\] "evals\/link\.txt": leads outside the skill folder/);
    assert.match(issues[3]!, /files\[0\] "evals\/none\.txt": no such file/);
    assert.ok(issues.every((i) => /^a\/evals\/evals\.json:1:\d+: /.test(i)));
    assert.deepEqual(set.tasks.map((t) => t.id), ["a/5"]);
    assert.ok(!JSON.stringify(set.tasks).includes("secret"));
  });

  it("a 50 MB eval file is refused at 1:1 without being read; duplicate ids and a wrong skill_name are named", async () => {
    const root = library({
      "a/SKILL.md": skillMd("a"),
      "b/SKILL.md": skillMd("b"),
      "b/evals/evals.json": JSON.stringify({ skill_name: "other", evals: [{ id: 1, prompt: "p", expectations: ["x"] }, { id: 1, prompt: "q", expectations: ["y"] }] }, null, 1),
    });
    mkdirSync(path.join(root, "a/evals"));
    writeFileSync(path.join(root, "a/evals/evals.json"), "");
    truncateSync(path.join(root, "a/evals/evals.json"), 50 * 2 ** 20);
    const set = await load(root);
    const issues = located(root, set.issues);
    assert.equal(issues[0], "a/evals/evals.json:1:1: the file is 52428800 bytes, over the 4194304-byte limit for an eval file; move large inputs into files the cases attach");
    assert.match(issues[1]!, /^b\/evals\/evals\.json:2:\d+: skill_name "other" is not this skill's name "b"/);
    assert.match(issues[2]!, /^b\/evals\/evals\.json:\d+:\d+: duplicate eval id 1 \(first in case 1\); case skipped$/);
    assert.deepEqual(set.tasks.map((t) => t.id), ["b/1"]);
  });

  it("no skill has evals, or none yields a case: an InputError naming the first problem", async () => {
    await assert.rejects(load(library({ "a/SKILL.md": skillMd("a") })), (e: unknown) => e instanceof InputError && /none of the 1 skills has evals/.test(e.message));
    const root = library({ "a/SKILL.md": skillMd("a"), "a/evals/evals.json": "[]" });
    await assert.rejects(load(root), (e: unknown) => e instanceof InputError && /evals\.json:1:1: no usable eval case in 1 eval files \(first problem: the file: Invalid input: expected object, received array\)/.test(e.message));
  });
});

describe("trigger sets (skill-creator's [{query, should_trigger}] and {evals: [{prompt, should_trigger}]})", () => {
  it("reads both shapes; the owner comes from skill_name, the folder or the only skill", async () => {
    const root = library({ "a/SKILL.md": skillMd("a"), "b/SKILL.md": skillMd("b"), "a/evals/triggers.json": JSON.stringify([{ query: "q1", should_trigger: true }, { query: "q2", should_trigger: false }]), "t.json": JSON.stringify({ skill_name: "b", evals: [{ id: 7, prompt: "p", should_trigger: true }] }) });
    const { skills } = await scanSkills([root]);
    const a = loadTriggerEvals(path.join(root, "a/evals/triggers.json"), skills);
    assert.deepEqual(a.tasks.map((t) => [t.id, t.owner, t.shouldTrigger, t.triggerOnly, t.prompt]), [
      ["a/trigger-1", "a", true, true, "q1"],
      ["a/trigger-2", "a", false, true, "q2"],
    ]);
    assert.deepEqual(loadTriggerEvals(path.join(root, "t.json"), skills).tasks.map((t) => t.id), ["b/trigger-7"]);
  });

  it("refuses a set of no known skill and a malformed one, located", async () => {
    const root = library({ "a/SKILL.md": skillMd("a"), "b/SKILL.md": skillMd("b"), "t.json": JSON.stringify([{ query: "q" , should_trigger: true }]), "bad.json": '[\n  {"query": "q", "should_trigger": "yes"}\n]' });
    const { skills } = await scanSkills([root]);
    assert.throws(() => loadTriggerEvals(path.join(root, "t.json"), skills), /t\.json:1:1: whose trigger set is this\?/);
    assert.throws(() => loadTriggerEvals(path.join(root, "bad.json"), skills), /bad\.json:2:18: field "0\.should_trigger": Invalid input: expected boolean, received string/);
  });
});
