import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { cpuMicros } from "../../support/work-bound.js";
import {
  SKILL_FINDING_CODES,
  checkSkillName,
  lintSkillText,
  normaliseSkillContent,
  parseSkill,
  skillContentHash,
  skillLibraryHash,
  type Finding,
} from "../../../src/core/skills/index.js";

const FILE = "/ws/skills/my-skill/SKILL.md";
const skillText = (front: string, body = "Do the thing.\n") => `---\n${front}\n---\n${body}`;
const codes = (fs: Finding[]) => fs.map((f) => f.code);
const only = (fs: Finding[], code: string) => {
  const hit = fs.filter((f) => f.code === code);
  assert.equal(hit.length, 1, `expected one ${code}, got ${JSON.stringify(fs)}`);
  return hit[0] as Finding;
};

describe("parseSkill: valid skills", () => {
  it("reads every field, the body and where the body starts", () => {
    const text = [
      "---",
      "name: my-skill",
      "description: >-",
      "  Folds long",
      "  text.",
      "license: Apache-2.0",
      "compatibility: python 3.11",
      "metadata:",
      "  version: 1.0",
      "  owner: me",
      "allowed-tools: Read Grep",
      "---",
      "# Title",
      "",
      "Steps.",
      "",
      "",
    ].join("\n");
    const { skill, findings } = parseSkill(FILE, text);
    assert.deepEqual(findings, []);
    assert.ok(skill);
    assert.equal(skill.name, "my-skill");
    assert.equal(skill.description, "Folds long text.");
    assert.equal(skill.license, "Apache-2.0");
    assert.equal(skill.compatibility, "python 3.11");
    // `1.0` is what the author typed; a YAML number would read back as "1".
    assert.deepEqual(skill.metadata, { version: "1.0", owner: "me" });
    assert.deepEqual(skill.allowedTools, ["Read", "Grep"]);
    assert.equal(skill.body, "# Title\n\nSteps.");
    assert.equal(skill.bodyLine, 13);
    assert.equal(skill.dir, "/ws/skills/my-skill");
    assert.equal(skill.contentHash, createHash("sha256").update(text.replace(/\n+$/, "")).digest("hex"));
  });

  it("splits Claude Code style comma lists of allowed tools without breaking Bash(...) patterns", () => {
    const { skill } = parseSkill(FILE, skillText("name: my-skill\ndescription: d\nallowed-tools: Read, Bash(git add:*), Grep"));
    assert.deepEqual(skill?.allowedTools, ["Read", "Bash(git add:*)", "Grep"]);
    const list = parseSkill(FILE, skillText("name: my-skill\ndescription: d\nallowed-tools:\n  - Read\n  - Write"));
    assert.deepEqual(list.skill?.allowedTools, ["Read", "Write"]);
  });

  it("accepts CRLF and a BOM, keeps line numbers, and hashes the same as the LF file", () => {
    const lf = skillText("name: my-skill\ndescription: d\nfoo: 1");
    const crlf = "\uFEFF" + lf.replace(/\n/g, "\r\n");
    const a = parseSkill(FILE, lf);
    const b = parseSkill(FILE, crlf);
    assert.ok(a.skill && b.skill);
    assert.equal(a.skill.contentHash, b.skill.contentHash);
    assert.equal(b.skill.body, "Do the thing.");
    assert.deepEqual(codes(b.findings).sort(), ["bom", "unknown-field"]);
    const unknown = only(b.findings, "unknown-field");
    assert.deepEqual([unknown.line, unknown.column, unknown.endColumn], [4, 1, 4]);
  });
});

describe("parseSkill: name rules", () => {
  const cases: [string, string | null][] = [
    ["my-skill", null],
    ["a", null],
    ["x".repeat(64), null],
    ["x".repeat(65), "name-length"],
    ["My-Skill", "name-format"],
    ["my_skill", "name-format"],
    ["my skill", "name-format"],
    ["-lead", "name-format"],
    ["trail-", "name-format"],
    ["dou--ble", "name-format"],
    ["../etc", "name-unsafe"],
    ["a/b", "name-unsafe"],
    ["a\\b", "name-unsafe"],
  ];
  for (const [name, code] of cases) {
    it(`${JSON.stringify(name)} -> ${code ?? "valid"}`, () => {
      assert.deepEqual(
        checkSkillName(name).map((p) => p.code),
        code ? [code] : [],
      );
    });
  }

  it("locates a bad name on its line and column and suggests a valid one", () => {
    const f = only(parseSkill(FILE, skillText("description: d\nname:   My_Skill")).findings, "name-format");
    assert.deepEqual([f.line, f.column, f.endLine, f.endColumn], [3, 9, 3, 17]);
    assert.equal(f.severity, "error");
    assert.match(f.message, /set name: my-skill/);
  });

  it("a name/folder mismatch is a warning naming both fixes, and the skill still loads", () => {
    const r = parseSkill("/ws/skills/other-folder/SKILL.md", skillText("name: my-skill\ndescription: d"));
    assert.ok(r.skill);
    const f = only(r.findings, "name-folder-mismatch");
    assert.equal(f.severity, "warning");
    assert.match(f.message, /rename the folder to my-skill or set name: other-folder/);
    assert.equal(f.line, 2);
  });

  it("a path-like name skips the skill (it would be used as a tool argument and a folder)", () => {
    const r = parseSkill(FILE, skillText("name: ../../x\ndescription: d"));
    assert.equal(r.skill, undefined);
    assert.deepEqual(codes(r.findings), ["name-unsafe"]);
  });

  it("missing or empty name skips the skill and suggests the folder name", () => {
    const r = parseSkill(FILE, skillText("description: d"));
    assert.equal(r.skill, undefined);
    assert.match(only(r.findings, "name-missing").message, /name: my-skill/);
    const empty = parseSkill(FILE, skillText('name: ""\ndescription: d'));
    assert.equal(empty.skill, undefined);
    assert.equal(only(empty.findings, "name-missing").line, 2);
  });

  it("does not check the folder when the file is not a SKILL.md (e.g. an untitled buffer)", () => {
    const r = parseSkill("/tmp/untitled-1", skillText("name: my-skill\ndescription: d"));
    assert.deepEqual(r.findings, []);
  });
});

describe("parseSkill: description and optional fields", () => {
  it("missing, empty and non-string descriptions skip the skill", () => {
    for (const front of ["name: my-skill", "name: my-skill\ndescription:", "name: my-skill\ndescription: '   '", "name: my-skill\ndescription: [a, b]"]) {
      const r = parseSkill(FILE, skillText(front));
      assert.equal(r.skill, undefined, front);
      assert.deepEqual(codes(r.findings), ["description-missing"], front);
    }
  });

  it("length limits: description 1024, compatibility 500 (errors, still loaded)", () => {
    const ok = parseSkill(FILE, skillText(`name: my-skill\ndescription: ${"d".repeat(1024)}`));
    assert.deepEqual(ok.findings, []);
    const long = parseSkill(FILE, skillText(`name: my-skill\ndescription: ${"d".repeat(1025)}\ncompatibility: ${"c".repeat(501)}`));
    assert.deepEqual(codes(long.findings), ["description-too-long", "compatibility-too-long"]);
    assert.ok(long.skill);
    assert.equal(long.findings[1]?.line, 4);
  });

  it("wrong types of optional fields are warnings and the field is dropped", () => {
    const r = parseSkill(FILE, skillText("name: my-skill\ndescription: d\nmetadata: just text\nlicense: [MIT]\nallowed-tools: {a: 1}"));
    assert.ok(r.skill);
    assert.deepEqual(codes(r.findings), ["field-type", "field-type", "field-type"]);
    assert.equal(r.skill.metadata, undefined);
    assert.equal(r.skill.license, undefined);
    const nested = parseSkill(FILE, skillText("name: my-skill\ndescription: d\nmetadata:\n  ok: yes\n  bad:\n    deep: 1"));
    assert.deepEqual(nested.skill?.metadata, { ok: "yes" });
    assert.equal(only(nested.findings, "field-type").line, 7);
  });

  it("unknown keys are info and suggest the right spelling", () => {
    const f = only(parseSkill(FILE, skillText("name: my-skill\ndescription: d\nallowed_tools: Read")).findings, "unknown-field");
    assert.equal(f.severity, "info");
    assert.match(f.message, /did you mean `allowed-tools`/);
  });
});

describe("parseSkill: broken files never throw and are located", () => {
  it("no frontmatter", () => {
    const r = parseSkill(FILE, "# Just markdown\n");
    assert.equal(r.skill, undefined);
    assert.deepEqual(codes(r.findings), ["frontmatter-missing"]);
  });

  it("unterminated frontmatter", () => {
    const r = parseSkill(FILE, "---\nname: my-skill\ndescription: d\n");
    assert.deepEqual(codes(r.findings), ["frontmatter-unterminated"]);
  });

  it("YAML syntax errors point at the file line (frontmatter starts on line 2)", () => {
    const r = parseSkill(FILE, "---\nname: my-skill\ndescription: d\nbad: indent: here\n---\nbody\n");
    assert.equal(r.skill, undefined);
    assert.deepEqual(
      r.findings.map((f) => [f.code, f.line, f.column]),
      [["yaml-syntax", 4, 6]],
    );
    const quote = parseSkill(FILE, '---\nname: my-skill\ndescription: "abc\n---\nbody\n');
    assert.deepEqual(quote.findings.map((f) => [f.code, f.line]), [["yaml-syntax", 3]]);
    assert.match(quote.findings[0]?.message ?? "", /quote/);
  });

  it("duplicate keys are YAML errors on the second key", () => {
    const r = parseSkill(FILE, skillText("name: my-skill\ndescription: a\ndescription: b"));
    assert.equal(r.skill, undefined);
    const f = r.findings.find((x) => x.code === "yaml-syntax");
    assert.equal(f?.line, 4);
  });

  it("a list instead of a mapping", () => {
    assert.deepEqual(codes(parseSkill(FILE, skillText("- name\n- description")).findings), ["frontmatter-not-mapping"]);
  });

  it("empty frontmatter reports both required fields", () => {
    assert.deepEqual(codes(parseSkill(FILE, "---\n---\nbody").findings), ["name-missing", "description-missing"]);
  });

  it("NUL bytes are a located binary-file error", () => {
    const f = only(parseSkill(FILE, "---\nname: a\x00b\n").findings, "binary-file");
    assert.deepEqual([f.line, f.column], [2, 8]);
  });

  it("a > 1 MB text is refused without parsing", () => {
    const r = parseSkill(FILE, skillText("name: my-skill\ndescription: d", "x".repeat(1024 * 1024)));
    assert.deepEqual(codes(r.findings), ["file-too-large"]);
  });

  it("billion-laughs aliases do not blow up (values are inspected, never expanded)", () => {
    const lol = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++) lol.push(`${"b".repeat(i)}: &${"b".repeat(i)} [${Array(9).fill(i === 1 ? "*a" : `*${"b".repeat(i - 1)}`).join(", ")}]`);
    let r: ReturnType<typeof parseSkill> | undefined;
    // Expanded, this is 9^12 nodes: CPU time (not elapsed time, which load stretches) shows nothing was expanded.
    const us = cpuMicros(() => (r = parseSkill(FILE, skillText(`name: my-skill\ndescription: d\n${lol.join("\n")}`))));
    assert.ok(us < 2_000_000, `${us / 1000} ms of CPU`);
    assert.ok(r?.skill);
  });
});

describe("parseSkill: body advice", () => {
  it("empty body is a warning; > 500 lines is info at the body start", () => {
    assert.deepEqual(codes(parseSkill(FILE, skillText("name: my-skill\ndescription: d", "\n\n")).findings), ["body-empty"]);
    const long = parseSkill(FILE, skillText("name: my-skill\ndescription: d", "line\n".repeat(501)));
    const f = only(long.findings, "body-long");
    assert.deepEqual([f.severity, f.line], ["info", 5]);
    assert.deepEqual(parseSkill(FILE, skillText("name: my-skill\ndescription: d", "line\n".repeat(500))).findings, []);
    assert.deepEqual(codes(parseSkill(FILE, skillText("name: my-skill\ndescription: d", "w ".repeat(5001))).findings), ["body-long"]);
  });
});

describe("content hashes", () => {
  it("ignore BOM, line endings, trailing whitespace and trailing blank lines, but not content", () => {
    const base = "---\nname: a\n---\nbody\n";
    const h = skillContentHash(base);
    assert.equal(skillContentHash("\uFEFF---\r\nname: a  \r\n---\r\nbody\t\r\n\r\n\r\n"), h);
    assert.notEqual(skillContentHash(base.replace("body", "Body")), h);
    assert.notEqual(skillContentHash(base.replace("body", " body")), h, "leading whitespace is content");
    assert.equal(normaliseSkillContent("a \r\nb\r\n\n"), "a\nb");
  });

  it("library hash is order-independent and changes with any name or content", () => {
    const s = [
      { name: "b", contentHash: "22" },
      { name: "a", contentHash: "11" },
    ];
    const expected = createHash("sha256").update("a:11\nb:22").digest("hex");
    assert.equal(skillLibraryHash(s), expected);
    assert.equal(skillLibraryHash([...s].reverse()), expected);
    assert.notEqual(skillLibraryHash([{ name: "a", contentHash: "12" }, s[0]!]), expected);
  });
});

describe("finding codes", () => {
  it("every emitted finding has a documented code with the table's severity", () => {
    const samples = ["", "---\n", "---\nname: X_\n---\n", skillText("name: my-skill\ndescription: d\nzzz: 1"), "\uFEFF" + skillText("description: d")];
    for (const t of samples) {
      for (const f of lintSkillText(FILE, t)) {
        const entry = SKILL_FINDING_CODES[f.code as keyof typeof SKILL_FINDING_CODES];
        assert.ok(entry, `undocumented code ${f.code}`);
        assert.equal(f.severity, entry.severity);
        assert.ok(f.line >= 1 && f.column >= 1);
      }
    }
  });

  it("lintSkillText is fast enough to run on every keystroke", () => {
    const t = skillText("name: my-skill\ndescription: d", "Some words here.\n".repeat(400));
    const us = cpuMicros(() => {
      for (let i = 0; i < 200; i++) lintSkillText(FILE, t);
    });
    // ~0.3 ms of CPU; the bound only catches a super-linear regression, not a slow machine (CPU time, which load
    // does not stretch; test/unit/host-inputs bounds the work per character on hostile files).
    assert.ok(us / 200 < 50_000, `${us / 200000} ms of CPU per lint`);
  });
});
