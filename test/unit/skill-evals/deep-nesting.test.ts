/**
 * Bounded parsers (issue 23, item 5): JSON nested deeper than MAX_JSON_NESTING and YAML deeper than MAX_YAML_NESTING
 * are refused by a linear pre-scan before any recursive parser or validator sees them. A file past the limit is a
 * located error (file:line:column and a fix) and is skipped; the rest runs. The CLI cases need `node esbuild.mjs`.
 */
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { scanSkills } from "../../../src/core/skills/index.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { loadSkillEvals } from "../../../src/core/tasks/index.js";
import { firstTooDeep, lineColumnOf, MAX_JSON_NESTING } from "../../../src/shared/nesting.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { agentScript, writeLibrary } from "../../support/skill-evals-scenario.js";
import { tagJudge, withJudge } from "../../support/scripts.js";
import { cli, runCli, spawnCollect } from "../cli/harness.js";

const DEEP = 10_000;
const deepArray = `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`;
const line3 = `    {"id": 1, "prompt": "x", "expectations": [`;
/** A 20 KB evals.json whose one expectation nests 10,000 deep, on line 3. */
const deepEvals = `{\n  "evals": [\n${line3}${deepArray}]}\n  ]\n}\n`;
/** Where it gets too deep: line3 has opened 4 levels, so the bracket opening level 65 is the 61st of deepArray. */
const deepEvalsColumn = line3.length + (MAX_JSON_NESTING + 1 - 4);
const deepFrontmatter = `---\nname: deep\ndescription: Deep.\nx: ${"[".repeat(DEEP)}${"]".repeat(DEEP)}\n---\nBody.\n`;

describe("bounded parsers: the depth pre-scan", () => {
  it("firstTooDeep counts brackets outside strings and comments, escapes respected, in one pass", () => {
    assert.equal(firstTooDeep("[".repeat(MAX_JSON_NESTING) + "]".repeat(MAX_JSON_NESTING)), undefined);
    assert.equal(firstTooDeep("[".repeat(MAX_JSON_NESTING + 1)), MAX_JSON_NESTING);
    assert.equal(firstTooDeep(`["${"[".repeat(200)}", "\\"${"{".repeat(200)}"]`), undefined, "brackets in strings, after an escaped quote");
    assert.equal(firstTooDeep(`// ${"[".repeat(200)}\n/* ${"{".repeat(200)} */ []`), undefined, "brackets in comments");
    assert.equal(firstTooDeep(`"unterminated\n${"[".repeat(100)}`), 14 + 64, "an unterminated string ends at its line, as jsonc-parser ends it");
    assert.equal(firstTooDeep(`// c\r${"[".repeat(100)}`), 69, "a CR ends a line comment, as jsonc-parser ends it");
    assert.deepEqual(lineColumnOf("ab\ncd\nef", 7), { line: 3, column: 2 });
  });
});

describe("bounded parsers: files nested 10,000 deep", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-deep-"));

  it("loadSkillEvals: an evals.json nested 10,000 deep is a located issue with a fix; the other skills' evals load", async () => {
    const { skillsDir } = writeLibrary(path.join(tmp, "unit"));
    const file = path.join(skillsDir, "commit-style", "evals", "evals.json");
    writeFileSync(file, deepEvals);
    const set = loadSkillEvals((await scanSkills([skillsDir])).skills);
    const issue = set.issues.find((i) => i.file === file);
    assert.deepEqual([issue?.line, issue?.column], [3, deepEvalsColumn]);
    assert.match(issue!.message, /nested deeper than 64 levels; the file is not read: flatten it/);
    assert.ok(set.tasks.some((t) => t.id.startsWith("release-notes/")) && set.tasks.some((t) => t.id.startsWith("csv-report/")));
  });

  it("SKILL.md frontmatter nested 10,000 deep is a located finding with a fix; the other skills still scan", async () => {
    const { skillsDir } = writeLibrary(path.join(tmp, "frontmatter"));
    mkdirSync(path.join(skillsDir, "deep"));
    writeFileSync(path.join(skillsDir, "deep", "SKILL.md"), deepFrontmatter);
    const scan = await scanSkills([skillsDir]);
    assert.deepEqual(scan.skills.map((s) => s.name).sort(), ["commit-style", "csv-report", "release-notes"]);
    const f = scan.findings.find((x) => x.file.endsWith(path.join("deep", "SKILL.md")));
    assert.equal(f?.code, "yaml-syntax");
    assert.equal(f?.line, 4);
    assert.ok((f?.column ?? 0) > 1);
    assert.match(f!.message, /nesting deeper than 100 levels; frontmatter this deep is not read: keep it flat/);
  });

  it("SKILL.md frontmatter of 30,000 tab-separated `?` indicators is refused before the YAML parser (it aborted the process)", async () => {
    // In a child process: on the old code V8's regexp compiler ran out of memory on the second parse and aborted.
    const script = path.join(tmp, "tabs.ts");
    const src = path.resolve(__dirname, "../../../src/core/skills");
    writeFileSync(
      script,
      `import { parseSkill } from ${JSON.stringify(path.join(src, "parse.ts"))};\nimport { splitSkillSections } from ${JSON.stringify(path.join(src, "sections.ts"))};\n` +
        `const text = "---\\n" + "?\\t".repeat(30000) + "a\\n---\\nBody.\\n";\n` +
        `for (let i = 0; i < 3; i++) { splitSkillSections(text); const r = parseSkill("/x/SKILL.md", text); if (i === 2) process.stdout.write(r.findings[0].line + " " + r.findings[0].message); }\n`,
    );
    const r = await spawnCollect(process.execPath, ["--import", "tsx", script], { cwd: path.resolve(__dirname, "../../.."), env: { PATH: process.env.PATH ?? "" } });
    assert.equal(r.code, 0, r.stderr.slice(0, 400));
    assert.match(r.stdout, /^2 YAML error: nesting deeper than 100 levels/);
  });

  it("readRunFile: a header line nested 10,000 deep is a located error, not a stack overflow", async () => {
    const headerDeep = path.join(tmp, "unit-run-head.jsonl");
    writeFileSync(headerDeep, `{"type":"header","deep":${deepArray}}\n`);
    await assert.rejects(readRunFile(headerDeep), (e: Error) => e.message.startsWith(`${headerDeep}:1:${24 + MAX_JSON_NESTING}: nested deeper than 64 levels`));
  });
});

describe("bounded parsers through the CLI", { skip: !existsSync(cli) && "build first (node esbuild.mjs)" }, () => {
  let server: ScriptedServer;
  const cwd = mkdtempSync(path.join(os.tmpdir(), "sf-deep-cli-"));
  const { skillsDir } = writeLibrary(cwd);
  const deepFile = path.join(skillsDir, "commit-style", "evals", "evals.json");
  writeFileSync(deepFile, deepEvals);
  mkdirSync(path.join(skillsDir, "deep"));
  writeFileSync(path.join(skillsDir, "deep", "SKILL.md"), deepFrontmatter);

  before(async () => {
    server = await startScriptedServer({ script: withJudge(agentScript, tagJudge) });
  });
  after(() => server.close());

  it("run --tasks skill-evals: an evals.json and a SKILL.md nested 10,000 deep are located errors; the other skills' evals run and a run file is written", async () => {
    const run = await runCli(["run", "--skills", skillsDir, "--tasks", "skill-evals", "--model", "m", "--out", "run.jsonl"], { cwd, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /RangeError|Maximum call stack/);
    assert.ok(run.stderr.includes(`${deepFile}:3:${deepEvalsColumn}: nested deeper than 64 levels; the file is not read: flatten it`), run.stderr);
    assert.match(run.stderr, /deep[/\\]SKILL\.md:4:\d+.*nesting deeper than 100 levels/);
    const lines = readFileSync(path.join(cwd, "run.jsonl"), "utf8").trim().split("\n");
    const tasks = new Set(lines.slice(1).map((l) => (JSON.parse(l) as { taskId?: string }).taskId));
    assert.ok(tasks.has("release-notes/1") && tasks.has("csv-report/sum"), [...tasks].join(", "));
    assert.ok(![...tasks].some((t) => t?.startsWith("commit-style/")));
  });

  it("report and run --resume on a run file with a line nested 10,000 deep: a located warning, the line skipped, no crash", async () => {
    // Its own run of the untouched library, so this case stands alone.
    const clean = writeLibrary(path.join(cwd, "clean")).skillsDir;
    const first = await runCli(["run", "--skills", clean, "--tasks", "skill-evals", "--model", "m", "--out", "good.jsonl"], { cwd, baseUrl: server.url });
    assert.equal(first.code, 0, first.stderr);
    const good = path.join(cwd, "good.jsonl");
    const damaged = path.join(cwd, "damaged.jsonl");
    copyFileSync(good, damaged);
    const n = readFileSync(good, "utf8").trim().split("\n").length;
    const record = JSON.parse(readFileSync(good, "utf8").split("\n")[1]!) as Record<string, unknown>;
    // A record that is valid but for one extra member nested 10,000 deep: zod would strip it without a word.
    appendFileSync(damaged, `{"deep":${deepArray},${JSON.stringify({ ...record, key: "other" }).slice(1)}\n`);
    const where = `${damaged}:${n + 1}:${9 + MAX_JSON_NESTING - 1}: nested deeper than 64 levels`;
    for (const args of [["report", "damaged.jsonl"], ["report", "damaged.jsonl", "--format", "json"], ["run", "--skills", clean, "--tasks", "skill-evals", "--model", "m", "--out", "damaged.jsonl", "--resume"]]) {
      const r = await runCli(args, { cwd, baseUrl: server.url });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stderr.includes(where), `${args.join(" ")}: ${r.stderr}`);
    }
    const head = path.join(cwd, "deep-header.jsonl");
    writeFileSync(head, `{"deep":${deepArray}}\n`);
    const r = await runCli(["report", "deep-header.jsonl"], { cwd, baseUrl: server.url });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`${head}:1:${9 + MAX_JSON_NESTING - 1}: nested deeper than 64 levels`), r.stderr);
  });
});
