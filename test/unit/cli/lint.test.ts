import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { renderLintSarif } from "../../../src/cli/lint-command.js";
import { EVALS_RULES, lintRules, lintSkills, type LintResult } from "../../../src/cli/lint.js";
import { SKILL_FINDING_CODES } from "../../../src/core/skills/index.js";
import { SKILL_RULES } from "../../../src/core/skills/rules.js";
import { regionText, sarifValidator } from "../../support/sarif.js";
import { repoRoot, spawnCollect } from "./harness.js";
import { writeLintLibrary } from "./lint-library.js";

interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn: number } } }>;
  fixes?: Array<{ description: { text: string }; artifactChanges: Array<{ replacements: Array<{ deletedRegion: { startLine: number; startColumn: number; endColumn: number }; insertedContent: { text: string } }> }> }>;
}
interface SarifLog {
  runs: Array<{ tool: { driver: { rules: Array<{ id: string; shortDescription: { text: string }; help: { text: string } }> } }; results: SarifResult[] }>;
}

const cli = path.join(repoRoot, "dist", "cli.js");
const lint = (args: string[], cwd: string) => spawnCollect(process.execPath, [cli, "lint", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd } });

describe("lint: every rule on a fixture library", () => {
  let lib: { root: string; paths: string[] };
  let result: LintResult;
  let log: SarifLog;
  before(async () => {
    lib = writeLintLibrary();
    result = await lintSkills(lib.paths.map((p) => path.join(lib.root, p)));
    log = JSON.parse(renderLintSarif(result, lib.root)) as SarifLog;
  });

  it("names a source and a fix for every SKILL.md code, and the library fires every rule (a missing path is exit 2 instead)", () => {
    assert.deepEqual(Object.keys(SKILL_RULES).sort(), Object.keys(SKILL_FINDING_CODES).sort());
    const fired = new Set(result.findings.map((f) => f.code));
    const missing = lintRules()
      .map((r) => r.id)
      .filter((id) => !fired.has(id) && id !== "path-not-found");
    assert.deepEqual(missing, []);
    for (const r of lintRules()) assert.ok(r.sources.length > 0 && r.help !== "", r.id);
  });

  it("the SARIF validates against the official SARIF 2.1.0 schema and lists every rule", () => {
    assert.deepEqual(sarifValidator()(log), []);
    const ids = log.runs[0]!.tool.driver.rules.map((r) => r.id);
    assert.deepEqual(ids, lintRules().map((r) => r.id));
    assert.ok(ids.includes("description-angle-brackets") && ids.includes("evals-schema"));
  });

  it("every result points into its file (relative uri, 1-based region with an end on a real line)", () => {
    const results = log.runs[0]!.results;
    assert.equal(results.length, result.findings.length);
    for (const r of results) {
      const { artifactLocation, region } = r.locations[0]!.physicalLocation;
      assert.ok(!artifactLocation.uri.startsWith("/") && !artifactLocation.uri.includes(".."), artifactLocation.uri);
      assert.ok(region.startLine >= 1 && region.startColumn >= 1 && region.endLine >= region.startLine, `${r.ruleId} ${JSON.stringify(region)}`);
      if (region.endLine === region.startLine) assert.ok(region.endColumn >= region.startColumn, `${r.ruleId} ${JSON.stringify(region)}`);
    }
  });

  it("regions cover exactly the offending text", () => {
    const results = log.runs[0]!.results;
    const covered = (ruleId: string, uri: string) => {
      const r = results.find((x) => x.ruleId === ruleId && x.locations[0]!.physicalLocation.artifactLocation.uri === uri);
      assert.ok(r, `${ruleId} in ${uri}`);
      const { region } = r.locations[0]!.physicalLocation;
      return { region, text: regionText(readFileSync(path.join(lib.root, uri), "utf8"), region) };
    };
    const angle = covered("description-angle-brackets", "skills/angle/SKILL.md");
    assert.deepEqual(angle.region, { startLine: 3, startColumn: 14, endLine: 3, endColumn: 49 });
    assert.equal(angle.text, "Use when the prompt shows f(x) -> y");
    assert.equal(covered("name-format", "skills/bad-name/SKILL.md").text, "Bad_Name");
    assert.equal(covered("name-unsafe", "skills/unsafe/SKILL.md").text, "../unsafe");
    assert.equal(covered("unknown-field", "skills/unknown/SKILL.md").text, "extra");
    assert.equal(covered("field-not-string", "skills/2024/SKILL.md").text, "2024");
    assert.equal(covered("field-type", "skills/field-type/SKILL.md").text, "[MIT]");
    assert.equal(covered("yaml-warning", "skills/yaml-warning/SKILL.md").text, "!foo");
    assert.equal(covered("compatibility-too-long", "skills/compat/SKILL.md").text, "c".repeat(501));
    assert.equal(covered("description-too-long", "skills/long-desc/SKILL.md").text, "w".repeat(1025));
    assert.equal(covered("frontmatter-unterminated", "skills/unterminated/SKILL.md").text, "---");
    assert.equal(covered("body-empty", "skills/empty-body/SKILL.md").text, "---");
    assert.equal(covered("evals-duplicate-id", "skills/with-evals/evals/evals.json").text, '"id": 1,');
    assert.equal(covered("evals-schema", "skills/with-evals/evals/evals.json").text, '"expectation": [');
    assert.equal(covered("evals-file-ref", "skills/with-evals/evals/evals.json").text.trim(), '"../outside.txt"');
    assert.equal(covered("evals-syntax", "skills/bad-json/evals/evals.json").region.startLine, 2);
  });

  it("quick fixes travel as SARIF fixes whose replacement regions hit the text they replace", () => {
    const r = log.runs[0]!.results.find((x) => x.ruleId === "name-format")!;
    const fix = r.fixes?.[0];
    assert.ok(fix);
    assert.equal(fix.description.text, "Set name to the folder name (bad-name)");
    const rep = fix.artifactChanges[0]!.replacements[0]!;
    assert.equal(regionText(readFileSync(path.join(lib.root, "skills/bad-name/SKILL.md"), "utf8"), rep.deletedRegion), "Bad_Name");
    assert.equal(rep.insertedContent.text, "bad-name");
    const quote = log.runs[0]!.results.find((x) => x.ruleId === "yaml-syntax")!;
    assert.equal(quote.fixes?.[0]?.artifactChanges[0]!.replacements[0]!.insertedContent.text, '"Use when: the user asks"');
  });

  it("severities and levels: errors, warnings and notes as the code tables say", () => {
    const level = { error: "error", warning: "warning", info: "note" } as const;
    for (const r of log.runs[0]!.results) {
      const sev = r.ruleId in EVALS_RULES ? EVALS_RULES[r.ruleId as keyof typeof EVALS_RULES].severity : SKILL_FINDING_CODES[r.ruleId as keyof typeof SKILL_FINDING_CODES].severity;
      assert.equal(r.level, level[sev], r.ruleId);
    }
  });
});

describe("skill-following lint through the built CLI (dist/cli.js)", () => {
  it("text: one file:line:column line per finding with its quick fix, a summary; exit 1 on errors", async () => {
    const lib = writeLintLibrary();
    const r = await lint(lib.paths, lib.root);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.ok(lines.includes("skills/angle/SKILL.md:3:14: error description-angle-brackets: description contains `<` or `>`, which skill-creator's quick_validate.py and Claude.ai reject: write the words instead (e.g. \"returns\" for `->`, \"less than\" for `<`)"), r.stdout);
    const quote = lines.findIndex((l) => l.startsWith("skills/yaml-syntax/SKILL.md:3:14: error yaml-syntax:"));
    assert.equal(lines[quote + 1], '  quick fix: Quote the description (its ": " breaks the YAML)');
    assert.match(lines.at(-1)!, /^33 files \(17 skills\): 23 errors, 12 warnings, 4 notes$/);
  });

  it("json: findings with relative paths, help, sources and fixes; the summary", async () => {
    const lib = writeLintLibrary();
    const r = await lint([...lib.paths, "--format", "json"], lib.root);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { summary: Record<string, number>; findings: Array<{ file: string; line: number; code: string; sources: string[]; fixes: unknown[] }> };
    assert.deepEqual(out.summary, { error: 23, warning: 12, info: 4 });
    const angle = out.findings.find((f) => f.code === "description-angle-brackets")!;
    assert.deepEqual([angle.file, angle.line, angle.sources], ["skills/angle/SKILL.md", 3, ["skill-creator quick_validate.py"]]);
  });

  it("sarif --out writes a schema-valid log; the shipped example skills lint clean (exit 0), warnings alone exit 0", async () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), "sf-lint-cli-"));
    cpSync(path.join(repoRoot, "skills"), path.join(ws, "skills"), { recursive: true });
    const clean = await lint([], ws);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /: 0 errors, 0 warnings, 0 notes\n$/);
    const sarif = await lint(["--format", "sarif", "--out", "out/lint.sarif"], ws);
    assert.equal(sarif.code, 0, sarif.stderr);
    const log = JSON.parse(readFileSync(path.join(ws, "out/lint.sarif"), "utf8")) as SarifLog;
    assert.deepEqual(sarifValidator()(log), []);
    assert.deepEqual(log.runs[0]!.results, []);
    const lib = writeLintLibrary();
    const warnings = await lint(["skills/field-type", "skills/lower-case", "skills/unknown"], lib.root);
    assert.equal(warnings.code, 0, warnings.stdout);
    assert.match(warnings.stdout, /0 errors, 2 warnings, 1 note\n$/);
  });

  it("an evals/evals.json path lints its skill; the evals of a skill whose SKILL.md does not load are still checked", async () => {
    const lib = writeLintLibrary();
    const r = await lint(["skills/with-evals/evals/evals.json", "skills/no-frontmatter"], lib.root);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^skills\/with-evals\/evals\/evals\.json:12:7: error evals-duplicate-id:/m);
    assert.match(r.stdout, /^skills\/no-frontmatter\/evals\/evals\.json:1:\d+: error evals-schema: field "evals\.0\.prompt": missing \(required\)/m);
    assert.match(r.stdout, /^skills\/no-frontmatter\/SKILL\.md:1:1: error frontmatter-missing/m);
  });

  it("bad input exits 2: a path that does not exist, an unknown option or format, no skills folder", async () => {
    const lib = writeLintLibrary();
    const missing = await lint(["skills", "no-such-dir"], lib.root);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-such-dir: no such file or folder/);
    const flag = await lint(["--fromat", "json"], lib.root);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown option --fromat: did you mean --format\?/);
    assert.equal((await lint(["--format", "xml"], lib.root)).code, 2);
    assert.equal((await lint([], mkdtempSync(path.join(os.tmpdir(), "sf-lint-none-")))).code, 2);
  });
});
