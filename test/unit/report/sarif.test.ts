import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { buildReport, renderSarif, type Report } from "../../../src/core/report/index.js";
import { readAblationFile, siblingAblationFiles } from "../../../src/core/runs/ablation-store.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { skillContentHash } from "../../../src/core/skills/index.js";
import { ABLATION_SKILL_FILE, ABLATION_SKILL_TEXT, HARMFUL_HEADING } from "../../support/ablation-scenario.js";
import { runAblationScenario } from "../../support/ablation-run.js";
import { libraryRun } from "../../support/report-fixture.js";
import { regionText, sarifValidator } from "../../support/sarif.js";
import { repoRoot, spawnCollect } from "../cli/harness.js";

interface Result {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number; endLine: number; endColumn?: number } } }>;
}
type Log = { runs: Array<{ results: Result[]; tool: { driver: { rules: Array<{ id: string }> } } }> };

const read = (f: string) => {
  try {
    return readFileSync(f, "utf8");
  } catch {
    return undefined;
  }
};

describe("report --format sarif: harmful skills on their name: line", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-sarif-"));
  const text = "---\nname: money\ndescription: Rounds money.\n---\n\nRound every amount to whole units.\n";
  let report: Report;
  before(() => {
    mkdirSync(path.join(root, "skills", "money"), { recursive: true });
    writeFileSync(path.join(root, "skills", "money", "SKILL.md"), text);
    const run = libraryRun([{ name: "money", rescued: 0, harmed: 10, bothPass: 4, bothFail: 1 }, { name: "units", rescued: 2, harmed: 1, bothPass: 4, bothFail: 1 }], { skillDir: path.join(root, "skills") });
    report = buildReport([run]);
  });

  it("an error with RAE, interval and Holm p, located on the name: line; nothing for a skill that is not harmful", () => {
    const money = report.evaluations[0]!.skills.find((s) => s.name === "money")!;
    assert.equal(money.badge, "harmful");
    money.contentHash = skillContentHash(text); // the fixture's hashes are names' hashes: this file is the version evaluated
    const log = JSON.parse(renderSarif(report, { root, readText: read, toolVersion: "0.1.0" })) as Log;
    assert.deepEqual(sarifValidator()(log), []);
    const results = log.runs[0]!.results;
    assert.equal(results.length, 1);
    const r = results[0]!;
    assert.equal(r.ruleId, "harmful-skill");
    assert.equal(r.level, "error");
    assert.equal(r.locations[0]!.physicalLocation.artifactLocation.uri, "skills/money/SKILL.md");
    assert.equal(regionText(text, r.locations[0]!.physicalLocation.region), "name: money");
    assert.match(r.message.text, /^Skill money is harmful: RAE [−-]0\.67 \[[−-]0\.\d+, [−-]0\.\d+\], p \(Holm\) [\d.<]+; where it was retrieved \(15 tasks\) it harmed 10 and rescued 0/);
  });

  it("says when SKILL.md changed since the run (the lines are the evaluated version's)", () => {
    const money = report.evaluations[0]!.skills.find((s) => s.name === "money")!;
    money.contentHash = "0".repeat(64);
    const log = JSON.parse(renderSarif(report, { root, readText: read, toolVersion: "0.1.0" })) as Log;
    const r = log.runs[0]!.results[0]!;
    assert.match(r.message.text, /SKILL\.md has changed since this run/);
    assert.equal(r.locations[0]!.physicalLocation.region.startLine, 1);
  });
});

describe("report --format sarif: harmful sections on their exact lines (ablation scenario)", () => {
  let dir: string;
  let runFile: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "sf-sarif-sections-"));
    runFile = (await runAblationScenario(dir)).runFile;
  });

  it("the harmful section is an error spanning its heading to its last line, with effect, interval and p", async () => {
    const run = await readRunFile(runFile);
    const report = buildReport([run], { ablations: [await readAblationFile(siblingAblationFiles(runFile)[0]!)] });
    const log = JSON.parse(renderSarif(report, { root: repoRoot, readText: read, toolVersion: "0.1.0" })) as Log;
    assert.deepEqual(sarifValidator()(log), []);
    const sections = log.runs[0]!.results.filter((r) => r.ruleId.startsWith("harmful-section"));
    assert.equal(sections.length, 1);
    const r = sections[0]!;
    assert.equal(r.ruleId, "harmful-section");
    assert.equal(r.locations[0]!.physicalLocation.artifactLocation.uri, "skills/tidy-list-outputs/SKILL.md");
    const region = r.locations[0]!.physicalLocation.region;
    const lines = ABLATION_SKILL_TEXT.split("\n");
    assert.equal(lines[region.startLine - 1], `## ${HARMFUL_HEADING}`);
    assert.equal(region.endLine, region.startLine + 8);
    assert.equal(region.endColumn, lines[region.endLine - 1]!.length + 1);
    assert.match(r.message.text, /^Section "The rule" of tidy-list-outputs harms: effect [−-]0\.50 \[[−-]0\.\d+, [−-]0\.\d+\] \(accuracy with the section minus without it\), p \(Holm\) [\d.<]+; removing it repaired 7 and broke 0 of 14 tasks/);
  });

  it("through the built CLI: report <run> --format sarif", async () => {
    const r = await spawnCollect(process.execPath, [path.join(repoRoot, "dist", "cli.js"), "report", runFile, "--format", "sarif"], { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: dir } });
    assert.equal(r.code, 0, r.stderr);
    const log = JSON.parse(r.stdout) as Log;
    assert.deepEqual(sarifValidator()(log), []);
    assert.ok(log.runs[0]!.results.some((x) => x.ruleId === "harmful-section" && x.locations[0]!.physicalLocation.artifactLocation.uri === "skills/tidy-list-outputs/SKILL.md"));
    assert.equal(ABLATION_SKILL_FILE, path.join(repoRoot, "skills/tidy-list-outputs/SKILL.md"));
  });
});

