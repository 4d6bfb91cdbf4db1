import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { findSkillRoots, firstInvalidUtf8, readSkillFile, scanSkills } from "../../../src/core/skills/index.js";

// CommonJS output: no import.meta; __dirname is test/unit/skills.
const repoRoot = path.resolve(__dirname, "../../..");
const fixtures = path.join(repoRoot, "test/fixtures/skills");
const tmp = mkdtempSync(path.join(tmpdir(), "sf-skills-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

function write(rel: string, content: string | Buffer): string {
  const p = path.join(tmp, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
}

describe("scanSkills on the fixture library", () => {
  it("loads good skills, warns on a folder mismatch, skips broken ones with located errors", async () => {
    const lib = path.join(fixtures, "library");
    const scan = await scanSkills([lib]);
    assert.deepEqual(
      scan.skills.map((s) => s.name),
      ["pdf-forms", "right-name"],
    );
    const pdf = scan.skills[0]!;
    assert.equal(pdf.file, path.join(lib, "pdf-forms/SKILL.md"));
    assert.deepEqual(pdf.allowedTools, ["Read", "Bash(python:*)"]);
    assert.deepEqual(pdf.metadata, { author: "skill-following", version: "1.0" });
    assert.match(pdf.contentHash, /^[0-9a-f]{64}$/);
    const summary = scan.findings.map((f) => `${path.relative(lib, f.file)}:${f.line}:${f.code}:${f.severity}`);
    assert.deepEqual(summary.sort(), [
      "broken-yaml/SKILL.md:3:yaml-syntax:error",
      "no-description/SKILL.md:1:description-missing:error",
      "wrong-folder/SKILL.md:2:name-folder-mismatch:warning",
    ]);
  });

  it("accepts a single skill folder and a SKILL.md path, and counts a file reached twice once", async () => {
    const dir = path.join(fixtures, "library/pdf-forms");
    const scan = await scanSkills([dir, path.join(dir, "SKILL.md"), path.join(fixtures, "library")]);
    assert.deepEqual(
      scan.skills.map((s) => s.name),
      ["pdf-forms", "right-name"],
    );
    assert.equal(scan.findings.filter((f) => f.code === "duplicate-name").length, 0);
  });

  it("a duplicate name in a second library is an error on the second, which is skipped", async () => {
    const scan = await scanSkills([path.join(fixtures, "dupe-a"), path.join(fixtures, "dupe-b")]);
    assert.equal(scan.skills.length, 1);
    assert.match(scan.skills[0]!.body, /dupe-a/);
    const dup = scan.findings.filter((f) => f.code === "duplicate-name");
    assert.equal(dup.length, 1);
    assert.equal(dup[0]!.file, path.join(fixtures, "dupe-b/shared/SKILL.md"));
    assert.equal(dup[0]!.line, 2);
    assert.match(dup[0]!.message, /dupe-a\/shared\/SKILL\.md/);
  });

  it("skills nested one level too deep are reported with where to move them, not loaded", async () => {
    write("nested/lib/top/SKILL.md", "---\nname: top\ndescription: d\n---\nbody\n");
    write("nested/lib/group/deep/SKILL.md", "---\nname: deep\ndescription: d\n---\nbody\n");
    const scan = await scanSkills([path.join(tmp, "nested/lib")]);
    assert.deepEqual(scan.skills.map((s) => s.name), ["top"]);
    assert.deepEqual(scan.findings.map((f) => [f.code, f.severity]), [["nested-skill", "warning"]]);
    assert.match(scan.findings[0]!.message, /move .*nested\/lib\/group\/deep to .*nested\/lib\/deep/);
  });

  it("missing paths and folders without skills are findings, not exceptions", async () => {
    const scan = await scanSkills([path.join(tmp, "nope"), path.join(fixtures, "library/notes-only")]);
    assert.deepEqual(scan.skills, []);
    assert.deepEqual(scan.findings.map((f) => f.code), ["path-not-found", "no-skill-file"]);
  });
});

describe("readSkillFile: hostile files", () => {
  const good = "---\nname: x\ndescription: d\n---\nbody\n";

  it("invalid UTF-8 is located at the bad byte", async () => {
    const f = write("enc/x/SKILL.md", Buffer.concat([Buffer.from("---\nname: x\ndescription: caf"), Buffer.from([0xe9]), Buffer.from("\n---\n")]));
    const r = await readSkillFile(f);
    assert.equal(r.skill, undefined);
    assert.deepEqual(r.findings.map((x) => [x.code, x.line, x.column]), [["encoding", 3, 17]]);
  });

  it("valid multi-byte UTF-8 and a UTF-8 BOM load", async () => {
    const f = write("utf/x/SKILL.md", "\uFEFF---\r\nname: x\r\ndescription: café ✓ 😀\r\n---\r\nbody\r\n");
    const r = await readSkillFile(f);
    assert.equal(r.skill?.description, "café ✓ 😀");
    assert.deepEqual(r.findings.map((x) => x.code), ["bom"]);
  });

  it("binary and UTF-16 files are refused without a crash", async () => {
    const bin = await readSkillFile(write("bin/x/SKILL.md", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])));
    assert.deepEqual(bin.findings.map((x) => x.code), ["binary-file"]);
    const u16 = await readSkillFile(write("u16/x/SKILL.md", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(good, "utf16le")])));
    assert.deepEqual(u16.findings.map((x) => x.code), ["binary-file"]);
    assert.match(u16.findings[0]!.message, /UTF-16/);
  });

  it("files over 1 MB are refused before being read", async () => {
    const r = await readSkillFile(write("big/x/SKILL.md", good + "a".repeat(1024 * 1024)));
    assert.deepEqual(r.findings.map((x) => x.code), ["file-too-large"]);
  });

  it("a lowercase skill.md loads with a warning; symlinked skill folders are followed", async () => {
    write("case/lib/x/skill.md", good);
    mkdirSync(path.join(tmp, "case/elsewhere/y"), { recursive: true });
    writeFileSync(path.join(tmp, "case/elsewhere/y/SKILL.md"), good.replace("name: x", "name: y"));
    symlinkSync(path.join(tmp, "case/elsewhere/y"), path.join(tmp, "case/lib/y"));
    const scan = await scanSkills([path.join(tmp, "case/lib")]);
    assert.deepEqual(scan.skills.map((s) => s.name), ["x", "y"]);
    assert.deepEqual(scan.findings.map((f) => f.code), ["file-name-case"]);
  });

  it("firstInvalidUtf8 rejects overlongs, surrogates and truncated sequences", () => {
    assert.equal(firstInvalidUtf8(Buffer.from("ok ✓ 😀")), -1);
    assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf])), 1);
    assert.equal(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80])), 0);
    assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe2, 0x9c])), 2);
    assert.equal(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80])), 0);
  });
});

describe("findSkillRoots", () => {
  it("lists the usual locations that exist, then configured ones (even missing), de-duplicated", () => {
    const ws = path.join(tmp, "ws");
    for (const d of ["skills", ".claude/skills", ".github/skills"]) mkdirSync(path.join(ws, d), { recursive: true });
    writeFileSync(path.join(ws, ".agents"), "a file, not a folder");
    const roots = findSkillRoots(ws, ["custom", "skills", "/abs/lib", " ", "~/.claude/skills"]);
    assert.deepEqual(roots, [
      path.join(ws, "skills"),
      path.join(ws, ".claude/skills"),
      path.join(ws, ".github/skills"),
      path.join(ws, "custom"),
      "/abs/lib",
      path.join(homedir(), ".claude/skills"),
    ]);
  });
});
