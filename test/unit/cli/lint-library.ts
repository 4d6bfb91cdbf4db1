import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A skill library on disk in which every rule `lint` knows fires at least once (path-not-found aside: `lint` refuses a
 * missing path with exit code 2 before scanning). Paths are relative to the returned root; `paths` are what to lint.
 */
const skill = (front: string, body = "Do the thing.\n") => `---\n${front}\n---\n${body}`;

export function writeLintLibrary(): { root: string; paths: string[] } {
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-lint-"));
  const put = (rel: string, content: string | Buffer) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  const s = "skills";
  put(`${s}/good-skill/SKILL.md`, skill("name: good-skill\ndescription: Checks things. Use when things need checking."));
  put(`${s}/angle/SKILL.md`, skill("name: angle\ndescription: Use when the prompt shows f(x) -> y"));
  put(`${s}/bad-name/SKILL.md`, skill("name: Bad_Name\ndescription: d"));
  const long = `a${"-b".repeat(32)}`; // 65 characters
  put(`${s}/${long}/SKILL.md`, skill(`name: ${long}\ndescription: d`));
  put(`${s}/unsafe/SKILL.md`, skill("name: ../unsafe\ndescription: d"));
  put(`${s}/no-name/SKILL.md`, skill("description: d"));
  put(`${s}/no-desc/SKILL.md`, skill("name: no-desc"));
  put(`${s}/long-desc/SKILL.md`, skill(`name: long-desc\ndescription: ${"w".repeat(1025)}`));
  put(`${s}/compat/SKILL.md`, skill(`name: compat\ndescription: d\ncompatibility: ${"c".repeat(501)}`));
  put(`${s}/field-type/SKILL.md`, skill("name: field-type\ndescription: d\nlicense: [MIT]"));
  put(`${s}/2024/SKILL.md`, skill("name: 2024\ndescription: d"));
  put(`${s}/unknown/SKILL.md`, skill("name: unknown\ndescription: d\nextra: 1"));
  put(`${s}/empty-body/SKILL.md`, skill("name: empty-body\ndescription: d", ""));
  put(`${s}/long-body/SKILL.md`, skill("name: long-body\ndescription: d", "line\n".repeat(501)));
  put(`${s}/yaml-syntax/SKILL.md`, skill("name: yaml-syntax\ndescription: Use when: the user asks"));
  put(`${s}/yaml-warning/SKILL.md`, skill("name: yaml-warning\ndescription: !foo d"));
  put(`${s}/not-mapping/SKILL.md`, skill("- name\n- description"));
  put(`${s}/no-frontmatter/SKILL.md`, "# Title\n\nBody.\n");
  put(`${s}/no-frontmatter/evals/evals.json`, '{"evals": [{"id": 1}]}\n'); // checked although SKILL.md does not load
  put(`${s}/unterminated/SKILL.md`, "---\nname: unterminated\ndescription: d\n");
  put(`${s}/big-frontmatter/SKILL.md`, skill(`name: big-frontmatter\ndescription: d\nmetadata:\n${"  k: v\n".repeat(11000)}`));
  put(`${s}/too-large/SKILL.md`, skill("name: too-large\ndescription: d", "x".repeat(1024 * 1024 + 1)));
  put(`${s}/binary/SKILL.md`, Buffer.from("---\nname: binary\u0000\n---\n"));
  put(`${s}/encoding/SKILL.md`, Buffer.concat([Buffer.from("---\nname: encoding\ndescription: caf"), Buffer.from([0xe9]), Buffer.from("\n---\nBody.\n")]));
  put(`${s}/bom/SKILL.md`, `\uFEFF${skill("name: bom\ndescription: d")}`);
  put(`${s}/lower-case/skill.md`, skill("name: lower-case\ndescription: d"));
  put(`${s}/dup-one/SKILL.md`, skill("name: dup\ndescription: d"));
  put(`${s}/dup-two/SKILL.md`, skill("name: dup\ndescription: d"));
  put(`${s}/group/inner/SKILL.md`, skill("name: inner\ndescription: d"));
  // evals.json: one file per syntax error, one holding every other evals rule.
  put(`${s}/bad-json/SKILL.md`, skill("name: bad-json\ndescription: d"));
  put(`${s}/bad-json/evals/evals.json`, '{\n  "evals": [,]\n}\n');
  put(`${s}/with-evals/SKILL.md`, skill("name: with-evals\ndescription: d"));
  put(`${s}/with-evals/evals/files/big.txt`, "x".repeat(70 * 1024));
  put(
    `${s}/with-evals/evals/evals.json`,
    `${JSON.stringify(
      {
        skill_name: "other",
        evals: [
          { id: 1, prompt: "p", expectations: ["e"] },
          { id: 1, prompt: "p again", expectations: ["e"] },
          { id: 2, prompt: "p", expectation: ["e"] },
          { id: 3, prompt: "p", files: ["../outside.txt"], expectations: ["e"] },
          { id: 4, prompt: "p", files: ["evals/files/big.txt"], expectations: ["e"] },
        ],
        defaults: { target: { params: { temperature: 0.2 } } }, // agent-skills-eval's: read, not applied (a note)
      },
      null,
      2,
    )}\n`,
  );
  mkdirSync(path.join(root, "empty"), { recursive: true });
  execFileSync("mkfifo", [path.join(root, "fifo")]);
  return { root, paths: ["skills", "empty", "fifo"] };
}
