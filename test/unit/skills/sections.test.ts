import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseSkill } from "../../../src/core/skills/index.js";
import { bodyWithout, DESCRIPTION_SECTION_ID, sectionDeletionRange, splitSkillSections } from "../../../src/core/skills/sections.js";

const FILE = "/ws/skills/my-skill/SKILL.md";
const front = ["---", "name: my-skill", "description: Does the thing. Use when the thing is needed.", "---"];
const doc = (...body: string[]) => [...front, ...body].join("\n");
/** [heading, startLine, endLine] of every body section. */
const shape = (text: string) => splitSkillSections(text).sections.map((s) => [s.heading, s.startLine, s.endLine]);

describe("splitSkillSections: real SKILL.md shapes", () => {
  it("nested headings: every heading starts a section; the id carries the heading path", () => {
    const text = doc("# Title", "", "Intro.", "", "## Rules", "Rule text.", "", "### Detail", "More.", "", "## Notes", "- a", "- b", "");
    assert.deepEqual(shape(text), [
      ["Title", 5, 7],
      ["Rules", 9, 10],
      ["Detail", 12, 13],
      ["Notes", 15, 17],
    ]);
    const s = splitSkillSections(text).sections;
    assert.deepEqual(s.map((x) => x.path), [["Title"], ["Title", "Rules"], ["Title", "Rules", "Detail"], ["Title", "Notes"]]);
    assert.match(s[2]!.id, /^title\/rules\/detail#[0-9a-f]{12}$/);
    assert.equal(s[0]!.kind, "heading");
  });

  it("a heading inside a fenced block is code, not a section", () => {
    const text = doc("## Setup", "Run this:", "```sh", "# install", "## not a heading", "```", "", "## Use", "Go.");
    assert.deepEqual(shape(text), [
      ["Setup", 5, 10],
      ["Use", 12, 13],
    ]);
  });

  it("setext headings split like ATX ones (and a `---` rule under text is a heading, as CommonMark says)", () => {
    const text = doc("Overview", "========", "Some text.", "", "Steps", "-----", "1. one", "2. two");
    assert.deepEqual(shape(text), [
      ["Overview", 5, 7],
      ["Steps", 9, 12],
    ]);
  });

  it("a heading inside a block quote or list item does not split", () => {
    const text = doc("## Real", "> # quoted heading", "> text", "", "- # item heading", "", "## Next", "x");
    assert.deepEqual(shape(text), [
      ["Real", 5, 9],
      ["Next", 11, 12],
    ]);
  });

  it("text before the first heading is its own section", () => {
    const text = doc("", "Read me first.", "", "# Title", "Body.");
    assert.deepEqual(shape(text), [
      ["(before the first heading)", 6, 6],
      ["Title", 8, 9],
    ]);
    assert.equal(splitSkillSections(text).sections[0]!.kind, "preamble");
  });

  it("a frontmatter-only skill has no body sections but still its description", () => {
    const text = doc("");
    const split = splitSkillSections(text);
    assert.deepEqual(split.sections, []);
    assert.equal(split.description?.id, DESCRIPTION_SECTION_ID);
    assert.deepEqual([split.description?.startLine, split.description?.endLine], [3, 3]);
    assert.deepEqual(splitSkillSections(front.join("\n")).sections, []);
  });

  it("CRLF line endings give the same lines, ids and ablated bodies as LF", () => {
    const lf = doc("# A", "one", "", "```", "# code", "```", "", "B", "=", "two", "");
    const crlf = lf.replace(/\n/g, "\r\n");
    assert.deepEqual(splitSkillSections(crlf), splitSkillSections(lf));
    const id = splitSkillSections(lf).sections[0]!.id;
    assert.equal(bodyWithout(crlf, [id]), bodyWithout(lf, [id]));
    assert.equal(bodyWithout(crlf, [id]), "B\n=\ntwo");
  });

  it("a body with no headings splits into top-level blocks; a fenced block stays with its paragraph", () => {
    const text = doc("Always sort the output.", "", "Use this helper:", "", "```python", "# not a heading", "def f(): pass", "```", "", "- keep duplicates", "- keep order", "", "Final words.");
    assert.deepEqual(shape(text), [
      ["¶ Always sort the output.", 5, 5],
      ["¶ Use this helper:", 7, 12],
      ["¶ keep duplicates", 14, 15],
      ["¶ Final words.", 17, 17],
    ]);
    assert.ok(splitSkillSections(text).sections.every((s) => s.kind === "block"));
  });

  it("a body that starts with a code block keeps it with the paragraph after it", () => {
    const text = doc("```", "x = 1", "```", "That sets x.", "", "Done.");
    assert.deepEqual(shape(text), [
      ["¶ That sets x.", 5, 8],
      ["¶ Done.", 10, 10],
    ]);
  });

  it("a multi-line description is one section from its key to its last line", () => {
    const text = ["---", "name: my-skill", "description: >-", "  Folds long", "  text.", "license: MIT", "---", "# T", "x"].join("\n");
    const d = splitSkillSections(text).description!;
    assert.deepEqual([d.startLine, d.endLine, d.kind], [3, 5, "description"]);
  });
});

describe("ids and deletion", () => {
  it("ids are stable under edits elsewhere and change when the section itself changes", () => {
    const a = splitSkillSections(doc("# A", "one", "", "# B", "two")).sections;
    const b = splitSkillSections(doc("Intro line.", "", "# A", "one", "", "# B", "two, edited")).sections;
    assert.equal(b[1]!.id, a[0]!.id, "A moved two lines down but kept its id");
    assert.equal(b[1]!.startLine, a[0]!.startLine + 2);
    assert.notEqual(b[2]!.id, a[1]!.id, "B's text changed");
    assert.match(b[2]!.id, /^b#/);
  });

  it("two identical sections get distinct ids", () => {
    const s = splitSkillSections(doc("## Note", "x", "", "## Note", "x")).sections;
    assert.equal(s.length, 2);
    assert.notEqual(s[0]!.id, s[1]!.id);
    assert.equal(s[1]!.id, `${s[0]!.id}-2`);
  });

  it("with nothing removed the body equals parseSkill's; removing a section cuts exactly its lines", () => {
    const text = doc("# Title", "", "Intro.", "", "## Rules", "Rule text.", "", "## Notes", "Last.", "", "");
    assert.equal(bodyWithout(text, []), parseSkill(FILE, text).skill!.body);
    const [, rules] = splitSkillSections(text).sections;
    assert.equal(bodyWithout(text, [rules!.id]), "# Title\n\nIntro.\n\n## Notes\nLast.");
    assert.deepEqual(sectionDeletionRange(text, rules!.id), { startLine: 9, endLine: 11 });
    assert.throws(() => bodyWithout(text, ["nope#000000000000"]), /no section/);
  });

  it("the shipped harmful example: 'The rule' is one section with its code block, at its exact lines", () => {
    const file = path.resolve("skills/tidy-list-outputs/SKILL.md");
    const text = readFileSync(file, "utf8");
    const split = splitSkillSections(text);
    const lines = text.split("\n");
    const rule = split.sections.find((s) => s.heading === "The rule")!;
    assert.equal(lines[rule.startLine - 1], "## The rule");
    assert.equal(lines[rule.endLine - 1], "and return `_tidy(result)` instead of `result`.");
    assert.deepEqual(split.sections.map((s) => s.heading), ["Tidy list outputs", "The rule", "Why", "How to apply", "Examples", "Notes"]);
    assert.ok(!bodyWithout(text, [rule.id]).includes("_tidy"));
    assert.equal(split.bodyLine, parseSkill(file, text).skill!.bodyLine);
  });
});
