/**
 * read_skill_file (catalog mode): a skill's own files as UTF-8 text under a size cap; refusals for `..`, absolute
 * paths, symbolic links that leave the folder, the skill's evals/, SKILL.md, binary and oversized files. A read is a
 * retrieval of that skill. Skills without files change nothing: no extra tool, no extra prompt text.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { SkillLibrary } from "../../../src/core/retrieval/library.js";
import { MAX_SKILL_FILE_READ_BYTES } from "../../../src/core/retrieval/skill-files.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { skill } from "../engine/helpers.js";

async function libraryWithFiles() {
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-read-"));
  const put = (rel: string, text: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  put("docs/SKILL.md", "---\nname: docs\ndescription: Write docs.\n---\nSee references/style.md.\n");
  put("docs/references/style.md", "Use sentence case.\n");
  put("docs/scripts/check.py", "print('ok')\n");
  put("docs/assets/logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  put("docs/references/big.txt", "x".repeat(MAX_SKILL_FILE_READ_BYTES + 1));
  put("docs/evals/evals.json", '{"evals": []}');
  put("docs/latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  put("secret.txt", "TOP SECRET");
  put("other/SKILL.md", "---\nname: other\ndescription: Other things.\n---\nOther body.\n");
  symlinkSync(path.join(root, "secret.txt"), path.join(root, "docs", "references", "leak.md"));
  symlinkSync(path.join(root, "docs", "references", "style.md"), path.join(root, "docs", "style-link.md"));
  const scan = await scanSkills([root]);
  return { root, lib: new SkillLibrary(scan.skills, "catalog") };
}

const call = (lib: SkillLibrary, args: unknown) => lib.execute({ id: "c1", name: "read_skill_file", arguments: JSON.stringify(args) });

describe("read_skill_file", () => {
  it("is offered only in catalog mode when a skill has files, and loading such a skill lists them (no sizes)", async () => {
    const { lib } = await libraryWithFiles();
    assert.deepEqual(lib.tools().map((t) => t.name), ["load_skill", "read_skill_file"]);
    assert.match(lib.systemSection(), /read_skill_file/);
    const loaded = lib.execute({ id: "c0", name: "load_skill", arguments: JSON.stringify({ name: "docs" }) });
    assert.match(loaded.content, /## Files in this skill \(read one with read_skill_file\)\n- assets\/logo\.png\n- latin1\.txt\n- references\/big\.txt\n- references\/style\.md\n- scripts\/check\.py\n- style-link\.md$/);
    assert.ok(!loaded.content.includes("evals"), "the skill's evals are never listed");
    assert.ok(!loaded.content.includes("leak.md"), "a link leading out is not listed");
    const plain = new SkillLibrary([skill("a", "A.", "Body.")], "catalog");
    assert.deepEqual(plain.tools().map((t) => t.name), ["load_skill"]);
    assert.doesNotMatch(plain.systemSection(), /read_skill_file/);
    assert.equal(new SkillLibrary((await scanSkills([path.dirname((await libraryWithFiles()).lib.skills[0]!.dir)])).skills, "search").tools().length, 1);
  });

  it("returns a file as text and counts the read as a retrieval of that skill", async () => {
    const { lib } = await libraryWithFiles();
    const docs = lib.skills.find((s) => s.name === "docs")!;
    const r = call(lib, { skill: "docs", path: "references/style.md" });
    assert.equal(r.content, "# File: docs/references/style.md\n\nUse sentence case.\n");
    assert.deepEqual(r.retrieved, [{ name: "docs", contentHash: docs.contentHash }]);
    assert.deepEqual(r.fileRead, { skill: "docs", path: "references/style.md" });
    assert.equal(call(lib, { skill: "docs", path: "./references//style.md" }).fileRead?.path, "references/style.md");
    assert.equal(call(lib, { skill: "docs", path: "style-link.md" }).error, undefined, "a link that stays inside is fine");
  });

  it("refuses .., absolute paths, links out, evals/, SKILL.md, binary, non-UTF-8 and oversized files, and unknown skills", async () => {
    const { lib, root } = await libraryWithFiles();
    const refusals: Array<[unknown, RegExp]> = [
      [{ skill: "docs", path: "../secret.txt" }, /paths with \.\. are refused/],
      [{ skill: "docs", path: "references/../../secret.txt" }, /paths with \.\. are refused/],
      [{ skill: "docs", path: path.join(root, "secret.txt") }, /absolute paths are refused/],
      [{ skill: "docs", path: "references/leak.md" }, /leads outside the skill folder/],
      [{ skill: "docs", path: "evals/evals.json" }, /evals\/ folder is not readable/],
      [{ skill: "docs", path: "SKILL.md" }, /read with load_skill/],
      [{ skill: "docs", path: "assets/logo.png" }, /binary file/],
      [{ skill: "docs", path: "latin1.txt" }, /not UTF-8 text/],
      [{ skill: "docs", path: "references/big.txt" }, /65537 bytes, over the 65536-byte limit/],
      [{ skill: "docs", path: "references/none.md" }, /no file references\/none\.md/],
      [{ skill: "nope", path: "x" }, /no skill named 'nope'/],
      [{ skill: "docs" }, /missing string argument 'path'/],
    ];
    for (const [args, why] of refusals) {
      const r = call(lib, args);
      assert.match(r.error ?? "", why, JSON.stringify(args));
      assert.deepEqual(r.retrieved, [], "a refused read is no retrieval");
      assert.ok(!r.content.includes("TOP SECRET"));
    }
  });
});
