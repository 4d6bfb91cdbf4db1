/** Mechanical SKILL.md fixes (the editor's quick fixes): each one's result lints clean of the finding it fixes. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEdits, skillFixes } from "../../../src/core/skills/fixes.js";
import { lintSkillText, parseSkill } from "../../../src/core/skills/index.js";

const FILE = "/repo/skills/pdf-forms/SKILL.md";
const codes = (text: string) => lintSkillText(FILE, text).map((f) => f.code);

describe("SKILL.md quick fixes", () => {
  it("quotes a description whose ': ' breaks the YAML, keeping its text exactly", () => {
    const text = `---\nname: pdf-forms\ndescription: Fills PDF forms. Use when: the user sends a form, or asks "fill this".\n---\n\n# PDF forms\n`;
    assert.ok(codes(text).includes("yaml-syntax"), "the broken YAML is found");
    const fix = skillFixes(FILE, text).find((f) => f.fixes.includes("yaml-syntax"));
    assert.ok(fix, "a fix is offered");
    const fixed = applyEdits(text, fix.edits);
    assert.deepEqual(codes(fixed).filter((c) => c !== "unknown-field"), []);
    assert.equal(parseSkill(FILE, fixed).skill?.description, `Fills PDF forms. Use when: the user sends a form, or asks "fill this".`);
  });

  it("sets name to the folder name", () => {
    const text = `---\nname: pdf-form-filler\ndescription: Fills PDF forms.\n---\n\nBody.\n`;
    assert.ok(codes(text).includes("name-folder-mismatch"));
    const fix = skillFixes(FILE, text).find((f) => f.fixes.includes("name-folder-mismatch"))!;
    assert.equal(fix.title, "Set name to the folder name (pdf-forms)");
    assert.deepEqual(codes(applyEdits(text, fix.edits)), []);
  });

  it("renames a misspelled field", () => {
    const text = `---\nname: pdf-forms\ndescripton: Fills PDF forms.\nlicence: MIT\n---\n\nBody.\n`;
    assert.ok(codes(text).includes("description-missing"));
    assert.match(lintSkillText(FILE, text).find((f) => f.code === "unknown-field")!.message, /did you mean `description`\?/);
    const fixes = skillFixes(FILE, text);
    assert.deepEqual(fixes.map((f) => f.title), ["Rename `descripton` to `description`", "Rename `licence` to `license`"]);
    assert.deepEqual(codes(applyEdits(text, fixes.flatMap((f) => f.edits))), []);
  });

  it("offers nothing that is not certain: a quoted description, a folder that is no valid name, an unrelated key", () => {
    assert.deepEqual(skillFixes(FILE, `---\nname: pdf-forms\ndescription: "Use when: x"\n---\nB\n`), []);
    assert.deepEqual(skillFixes("/repo/skills/My Forms/SKILL.md", `---\nname: pdf-forms\ndescription: d\n---\nB\n`), []);
    assert.deepEqual(skillFixes(FILE, `---\nname: pdf-forms\ndescription: d\nowner: me\n---\nB\n`), []);
  });
});
