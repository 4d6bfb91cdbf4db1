import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { buildReport, renderHtml, renderJson, renderMarkdown, renderText, ReportSchema, type Report, type SectionResult } from "../../../src/core/report/index.js";
import { readAblationFile, siblingAblationFiles } from "../../../src/core/runs/ablation-store.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { buildReportView } from "../../../src/extension/report-view-model.js";
import { ABLATION_SKILL, ABLATION_SKILL_TEXT, SCENARIO } from "../../support/ablation-scenario.js";
import { runAblationScenario } from "../../support/ablation-run.js";

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol;
const z = 1.959963984540054;

describe("report: the sections table of an ablated skill", () => {
  let report: Report;
  let plain: Report;
  let byHeading: Map<string, SectionResult>;
  let runFile: string;

  before(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sf-sections-"));
    const out = await runAblationScenario(dir);
    runFile = out.runFile;
    assert.deepEqual(siblingAblationFiles(runFile), [out.ablationFile], "written beside the run file under the default name");
    const run = await readRunFile(runFile);
    const ablation = await readAblationFile(out.ablationFile);
    report = buildReport([run], { ablations: [ablation] });
    plain = buildReport([run]);
    byHeading = new Map(report.evaluations[0]!.skills[0]!.sections.map((s) => [s.heading, s]));
  });

  it("has the contract shape, validates, and is empty without an ablation", () => {
    assert.doesNotThrow(() => ReportSchema.parse(report));
    assert.deepEqual(plain.evaluations[0]!.skills[0]!.sections, []);
    assert.equal(plain.evaluations[0]!.skills[0]!.ablation, null);
    const s = report.evaluations[0]!.skills[0]!.sections[0]!;
    for (const k of ["id", "heading", "startLine", "endLine", "table", "pHolm", "repairedTasks", "brokenTasks"]) assert.ok(k in s, k);
    for (const k of ["n", "repaired", "broken", "effect", "pMid", "pExact", "ci"]) assert.ok(k in s.table, k);
  });

  it("orders sections by harm and gives the harmful one its hand-computed table", () => {
    assert.deepEqual(report.evaluations[0]!.skills[0]!.sections.map((s) => s.heading), ["The rule", "Tidy list outputs", "Why", "Examples", "Notes", "How to apply"]);
    const rule = byHeading.get("The rule")!;
    const lines = ABLATION_SKILL_TEXT.split("\n");
    assert.equal(lines[rule.startLine - 1], "## The rule");
    assert.equal(rule.endLine, rule.startLine + 8);
    assert.equal(rule.table.n, 14);
    assert.equal(rule.table.repaired, 7);
    assert.equal(rule.table.broken, 0);
    assert.equal(rule.table.effect, -0.5); // (0 − 7)/14
    assert.equal(rule.table.pMid, 1 / 128); // 2·½·P(X = 0), X ~ Bin(7, ½)
    assert.equal(rule.table.pExact, 1 / 64); // 2·P(X ≤ 0)
    assert.equal(rule.pHolm, 2 / 128); // smallest of K = 2 tested sections: 2 · 1/128
    assert.ok(close(rule.table.ci![0], -0.7320079754758633) && close(rule.table.ci![1], -0.17703379589354645), String(rule.table.ci));
    assert.deepEqual(rule.repairedTasks, SCENARIO.harmed);
    assert.deepEqual(rule.brokenTasks, []);
    assert.equal(rule.verdict, "harms");
  });

  it("a section that only helps shows as broken when removed", () => {
    const how = byHeading.get("How to apply")!;
    assert.deepEqual([how.table.n, how.table.repaired, how.table.broken], [14, 0, 3]);
    assert.equal(how.table.effect, 3 / 14);
    assert.equal(how.table.pMid, 1 / 8);
    assert.equal(how.table.pExact, 1 / 4);
    assert.equal(how.pHolm, 1 / 8); // max(2/128, 1 · 1/8)
    assert.ok(close(how.table.ci![0], -0.047163117609986205) && close(how.table.ci![1], 0.47589230586600284));
    assert.deepEqual(how.brokenTasks, SCENARIO.rescued);
    assert.deepEqual(how.repairedTasks, []);
    assert.equal(how.verdict, "inconclusive");
  });

  it("harmless sections: no discordant pair, p = 1, the all-agree Tango interval ±z²/(n + z²), left out of Holm", () => {
    for (const h of ["Tidy list outputs", "Why", "Examples", "Notes"]) {
      const s = byHeading.get(h)!;
      assert.deepEqual([s.table.n, s.table.repaired, s.table.broken, s.table.effect, s.table.pMid, s.table.pExact], [14, 0, 0, 0, 1, 1], h);
      const w = (z * z) / (14 + z * z);
      assert.ok(close(s.table.ci![0], -w) && close(s.table.ci![1], w), `${h}: ${s.table.ci}`);
      assert.equal(s.pHolm, null);
      assert.equal(s.verdict, "no-effect");
    }
  });

  it("states the task selection and that single-section ablation can miss interactions", () => {
    const a = report.evaluations[0]!.skills[0]!.ablation!;
    assert.deepEqual(a.control, { q: 0.25, sampled: 4, of: 8 });
    assert.equal(a.tasks, 14);
    assert.ok(a.notes.some((n) => /can miss interactions/.test(n)));
    assert.match(a.notes[0]!, /harmed \(7\) and rescued \(3\)/);
  });

  it("the report webview's view carries the rows and the notes", async () => {
    const run = await readRunFile(runFile);
    const ablation = await readAblationFile(siblingAblationFiles(runFile)[0]!);
    const view = buildReportView([{ file: runFile, ...run, ablations: [ablation] }], 0.05);
    assert.deepEqual(view.sections!.map((r) => [r.heading, r.repaired, r.broken]), [
      ["The rule", 7, 0], ["Tidy list outputs", 0, 0], ["Why", 0, 0], ["Examples", 0, 0], ["Notes", 0, 0], ["How to apply", 0, 3],
    ]);
    assert.equal(view.sections![0]!.verdict, "harms");
    assert.ok(view.notes.some((n) => n.startsWith(`${ABLATION_SKILL}: Single-section ablation can miss interactions`)));
    assert.deepEqual(buildReportView([{ file: runFile, ...run }], 0.05).sections, []);
  });

  it("every renderer carries the table: JSON by contract, Markdown, HTML (escaped) and text", () => {
    const json = JSON.parse(renderJson(report)) as Report;
    assert.equal(json.evaluations[0]!.skills[0]!.sections[0]!.table.repaired, 7);
    const md = renderMarkdown(report);
    assert.match(md, /Sections of tidy\\-list\\-outputs/);
    assert.match(md, /\| The rule \| \d+–\d+ \| 7 \| 0 \| −0\.50 \[−0\.73, −0\.18\] \| 0\.016 \| ❌ harms \|/);
    assert.match(md, /can miss interactions/);
    const html = renderHtml(report);
    assert.match(html, /<td>The rule<\/td><td class="num">\d+–\d+<\/td><td class="num">7<\/td><td class="num">0<\/td>/);
    const text = renderText(report);
    assert.match(text, /sections of tidy-list-outputs \(most harmful first/);
    assert.match(text, /The rule\s+\d+–\d+\s+14\s+7\s+0\s+−0\.50/);
  });
});

describe("report: hostile section headings", () => {
  it("are escaped by the HTML and Markdown renderers (a heading is file text, like any other)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sf-sections-hostile-"));
    const out = await runAblationScenario(dir);
    const report = buildReport([await readRunFile(out.runFile)], { ablations: [await readAblationFile(out.ablationFile)] });
    const evil = `<img src=x onerror="alert(1)"><script>alert(2)</script>|`;
    report.evaluations[0]!.skills[0]!.sections[0]!.heading = evil;
    const html = renderHtml(report);
    assert.ok(!html.includes("<img") && !html.includes("<script>alert"), "no element from the heading");
    assert.ok(html.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"));
    const md = renderMarkdown(report);
    assert.ok(!md.includes("<img") && !md.includes("<script"));
    assert.ok(md.includes("\\|"), "a pipe cannot break the table");
  });
});

describe("report: section pairs", () => {
  it("--ablate-pairs reports each pair with its interaction; no interactions note then", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sf-sections-pairs-"));
    const out = await runAblationScenario(dir, { pairs: true });
    const report = buildReport([await readRunFile(out.runFile)], { ablations: [await readAblationFile(out.ablationFile)] });
    const skill = report.evaluations[0]!.skills.find((s) => s.name === ABLATION_SKILL)!;
    assert.equal(skill.sectionPairs.length, 3);
    const withRule = skill.sectionPairs.filter((p) => p.headings.includes("The rule"));
    assert.equal(withRule.length, 2);
    // Removing "The rule" with a harmless section repairs the same 7 tasks: no interaction.
    for (const p of withRule) assert.deepEqual([p.table.repaired, p.table.broken, p.interaction], [7, 0, 0]);
    assert.ok(!skill.ablation!.notes.some((n) => /can miss interactions/.test(n)));
    assert.match(renderMarkdown(report), /Section pairs/);
  });
});
