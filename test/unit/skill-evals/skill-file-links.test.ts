/**
 * Skill files through links (issue 23, item 4): read_skill_file, the evals `files` attachments and the skill scan open
 * a file first and then check what was opened. A symbolic link to ../evals, a link out of the skill, a hard link to a
 * host file and a link swapped in while the tool reads never yield the test answers or a host file, and no refusal
 * names a host path.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { SkillLibrary } from "../../../src/core/retrieval/library.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { loadSkillEvals } from "../../../src/core/tasks/index.js";

const HOST_SECRET = "HOST-SECRET-4e1d";
const ANSWERS = "EVAL-ANSWER-77c0";
const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-links-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A skill `docs` with evals holding ANSWERS and a host folder holding HOST_SECRET, both beside it. */
function fixture(name: string) {
  const root = path.join(tmp, name);
  const skillDir = path.join(root, "skills", "docs");
  const host = path.join(root, "host");
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  put(path.join(skillDir, "SKILL.md"), "---\nname: docs\ndescription: Write docs.\n---\nSee references/style.md.\n");
  put(path.join(skillDir, "references", "style.md"), "Use sentence case.\n");
  put(path.join(skillDir, "evals", "evals.json"), JSON.stringify({ evals: [{ id: 1, prompt: "Write docs.", expectations: [ANSWERS] }] }));
  put(path.join(host, "secret.txt"), `${HOST_SECRET}\n`);
  put(path.join(host, "SKILL.md"), `---\nname: docs\ndescription: ${HOST_SECRET}\n---\n${HOST_SECRET}\n`);
  return { root, skillDir, host, skillsDir: path.join(root, "skills") };
}

async function library(skillsDir: string) {
  return new SkillLibrary((await scanSkills([skillsDir])).skills, "catalog");
}

const read = (lib: SkillLibrary, p: string) => lib.execute({ id: "c", name: "read_skill_file", arguments: JSON.stringify({ skill: "docs", path: p }) });

function assertNoLeak(text: string, ...hostPaths: string[]): void {
  assert.ok(!text.includes(HOST_SECRET), `host file content leaked: ${text.slice(0, 200)}`);
  assert.ok(!text.includes(ANSWERS), `evals content leaked: ${text.slice(0, 200)}`);
  for (const p of hostPaths) assert.ok(!text.includes(p), `a host path is named: ${text.slice(0, 200)}`);
}

describe("skill files through links", () => {
  it("read_skill_file: a symbolic link to ../evals never returns the evals, by any path or spelling", async () => {
    const f = fixture("evals-link");
    symlinkSync("../evals", path.join(f.skillDir, "references", "answers"));
    symlinkSync("../evals/evals.json", path.join(f.skillDir, "references", "answers.json"));
    const lib = await library(f.skillsDir);
    const loaded = lib.execute({ id: "l", name: "load_skill", arguments: JSON.stringify({ name: "docs" }) });
    assert.ok(!loaded.content.includes("answers"), "a link into evals/ is not listed");
    for (const p of ["references/answers/evals.json", "references/answers.json", "EVALS/evals.json", "Evals/evals.json", "ｅｖａｌｓ/evals.json", "evals./evals.json", "./evals//evals.json"]) {
      const r = read(lib, p);
      assert.ok(r.error, `${p} is refused`);
      assert.deepEqual(r.retrieved, []);
      assertNoLeak(r.content, f.root);
    }
    assert.match(read(lib, "references/answers/evals.json").error ?? "", /evals\/ folder is not readable/);
  });

  it("a symbolic link leaving the skill is refused by read_skill_file, the evals files and the scan, naming no host path", async () => {
    const f = fixture("out-link");
    symlinkSync(path.join(f.host, "secret.txt"), path.join(f.skillDir, "references", "leak.md"));
    symlinkSync(f.host, path.join(f.skillDir, "references", "hostdir"));
    writeFileSync(path.join(f.skillDir, "evals", "evals.json"), JSON.stringify({ evals: [{ id: 1, prompt: "Summarise the attached notes.", files: ["references/hostdir/secret.txt"], expectations: ["x"] }, { id: 2, prompt: "ok", expectations: ["y"] }] }));
    const lib = await library(f.skillsDir);
    for (const p of ["references/leak.md", "references/hostdir/secret.txt"]) {
      const r = read(lib, p);
      assert.match(r.error ?? "", /leads outside the skill folder/);
      assertNoLeak(r.content, f.host, f.root);
    }
    const set = loadSkillEvals(lib.skills);
    assert.deepEqual(set.tasks.map((t) => t.id), ["docs/2"], "the case attaching a host file is skipped, the other runs");
    assert.match(set.issues[0]!.message, /leads outside the skill folder/);
    assertNoLeak(JSON.stringify(set), f.host);
    // A SKILL.md that is a link to a host file is not a skill.
    const other = path.join(f.root, "skills2", "docs");
    mkdirSync(other, { recursive: true });
    symlinkSync(path.join(f.host, "SKILL.md"), path.join(other, "SKILL.md"));
    const scan = await scanSkills([path.dirname(other)]);
    assert.deepEqual(scan.skills, []);
    assert.match(scan.findings.map((x) => x.message).join("\n"), /leads outside its skill folder/);
  });

  it("a hard link to a host file is refused by read_skill_file, the evals files and the scan", async () => {
    const f = fixture("hard-link");
    linkSync(path.join(f.host, "secret.txt"), path.join(f.skillDir, "references", "notes.md"));
    writeFileSync(path.join(f.skillDir, "evals", "evals.json"), JSON.stringify({ evals: [{ id: 1, prompt: "Summarise the notes.", files: ["references/notes.md"], expectations: ["x"] }, { id: 2, prompt: "ok", expectations: ["y"] }] }));
    const lib = await library(f.skillsDir);
    const loaded = lib.execute({ id: "l", name: "load_skill", arguments: JSON.stringify({ name: "docs" }) });
    assert.ok(!loaded.content.includes("notes.md"), "a hard-linked file is not offered");
    const r = read(lib, "references/notes.md");
    assert.match(r.error ?? "", /more than one hard link/);
    assertNoLeak(r.content, f.host, f.root);
    const set = loadSkillEvals(lib.skills);
    assert.deepEqual(set.tasks.map((t) => t.id), ["docs/2"]);
    assert.match(set.issues[0]!.message, /more than one hard link/);
    assertNoLeak(JSON.stringify(set.tasks));
    const other = path.join(f.root, "skills2", "docs");
    mkdirSync(other, { recursive: true });
    linkSync(path.join(f.host, "SKILL.md"), path.join(other, "SKILL.md"));
    const scan = await scanSkills([path.dirname(other)]);
    assert.deepEqual(scan.skills, []);
    assert.match(scan.findings.map((x) => x.message).join("\n"), /more than one hard link/);
  });

  it("a folder swapped for a link in a tight loop while read_skill_file reads never yields the outside or evals content", { skip: process.platform === "win32" && "rename over a folder" }, async () => {
    for (const target of ["host", "evals"] as const) {
      const f = fixture(`race-${target}`);
      // references/dir is a real folder one moment and a link to the target the next, with the same file name inside.
      const dir = path.join(f.skillDir, "references", "dir");
      mkdirSync(dir);
      writeFileSync(path.join(dir, "evals.json"), "inside\n");
      if (target === "host") writeFileSync(path.join(f.host, "evals.json"), `${HOST_SECRET}\n`);
      const link = path.join(f.skillDir, "references", "swap-link");
      symlinkSync(target === "host" ? f.host : path.join(f.skillDir, "evals"), link);
      const lib = await library(f.skillsDir);
      const flips = 200_000;
      const script = `const fs=require("fs");const [d,l,a]=process.argv.slice(1);process.stdout.write("ready\\n");for(let i=0;i<${flips};i++){try{fs.renameSync(d,a);fs.renameSync(l,d);fs.renameSync(d,l);fs.renameSync(a,d)}catch{}}`;
      const child = spawn(process.execPath, ["-e", script, dir, link, `${dir}.away`], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      let inside = 0;
      let refused = 0;
      try {
        // Bounded by count, never by time: 20,000 reads against up to 200,000 swaps.
        for (let i = 0; i < 20_000 && child.exitCode === null; i++) {
          const r = read(lib, "references/dir/evals.json");
          assertNoLeak(r.content);
          if (r.error) refused++;
          else inside++;
        }
      } finally {
        child.kill();
      }
      assert.ok(inside + refused > 0);
    }
  });
});
