/**
 * The report webview's bundle (dist/webview/main.js) in Chromium, fed the report of the skill-evals scenario
 * (test/support/skill-evals-scenario.ts, run through the engine against the scripted server): the trigger heat map
 * holds the hand-computed matrix as text, shaded by class, with the diagonal marked; the triggering table and the
 * judge line follow. SF_SCREENSHOT=<file.png> saves what it looks like.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createGrader } from "../../src/core/grading/index.js";
import { createOpenAIClient } from "../../src/core/models/openai-client.js";
import { evaluate } from "../../src/core/runs/evaluate.js";
import { readRunFile } from "../../src/core/runs/store.js";
import { scanSkills } from "../../src/core/skills/index.js";
import { loadSkillEvals, loadTriggerEvals, withTriggerTasks } from "../../src/core/tasks/index.js";
import { buildReportView } from "../../src/extension/report-view-model.js";
import { PROTOCOL_VERSION } from "../../src/shared/protocol.js";
import { CHROMIUM, launchBrowser, REPO_ROOT } from "../integration/support/code-server.js";
import { startScriptedServer } from "../support/scripted-server.js";
import { DOCS_IMAGES } from "./ui.js";
import { agentScript, writeLibrary } from "../support/skill-evals-scenario.js";
import { tagJudge, withJudge } from "../support/scripts.js";

const bundle = path.join(REPO_ROOT, "dist", "webview", "main.js");
const skip = !existsSync(CHROMIUM) ? `chromium not found at ${CHROMIUM}` : !existsSync(bundle) ? `${bundle} missing (npm run build)` : undefined;

describe("report webview: the trigger heat map of a library's own evals", { skip: skip ?? false, timeout: 90_000 }, () => {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const posted: Array<{ type?: string; triggerCells?: number }> = [];

  before(async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "sf-heat-"));
    const { skillsDir, triggerFile } = writeLibrary(root);
    const server = await startScriptedServer({ script: withJudge(agentScript, tagJudge) });
    const grader = createGrader();
    try {
      const scan = await scanSkills([skillsDir]);
      const triggers = loadTriggerEvals(triggerFile, scan.skills);
      const taskSet = withTriggerTasks(loadSkillEvals(scan.skills), triggers.tasks, triggerFile, triggers.issues);
      const client = createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m" });
      const runFile = path.join(root, "run.jsonl");
      const result = await evaluate({ mode: "catalog" }, { skills: scan.skills, taskSet, client, model: "m", grader, runFile, resume: false });
      const back = await readRunFile(result.runFile);
      const view = buildReportView([{ file: runFile, header: back.header, records: back.records, stops: [], warnings: [] }], 0.05);
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      page.on("pageerror", (e) => errors.push(e.message));
      await page.exposeFunction("__sfPost", (m: { type?: string }) => void posted.push(m));
      await page.setContent('<!doctype html><html><body><div id="app"></div></body></html>');
      await page.addStyleTag({ content: readFileSync(path.join(REPO_ROOT, "media", "report.css"), "utf8") });
      await page.addScriptTag({ content: "window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sfPost(m), setState() {}, getState() { return undefined; } });" });
      await page.addScriptTag({ content: readFileSync(bundle, "utf8") });
      await page.addScriptTag({ content: `window.postMessage(${JSON.stringify({ v: PROTOCOL_VERSION, type: "report", report: view })}, "*");` });
      await page.locator(".trigger-matrix").waitFor({ timeout: 15_000 });
    } finally {
      await server.close();
      await grader.dispose();
    }
  });
  after(async () => {
    await browser?.close();
  });

  it("holds the matrix as text, shaded by share, the diagonal marked", async () => {
    const rows: string[][] = [];
    for (const tr of await page.locator(".trigger-matrix tbody tr").all()) rows.push([(await tr.locator("th").textContent()) ?? "", ...(await tr.locator("td").allTextContents())]);
    assert.deepEqual(rows, [
      ["commit-style", "3/3", "0/3", "0/2"],
      ["csv-report", "1/3", "1/3", "0/2"],
      ["release-notes", "0/3", "1/3", "2/2"],
    ]);
    const classes = await page.locator(".trigger-matrix td").evaluateAll((tds) => tds.map((td) => td.className));
    assert.deepEqual(classes.slice(0, 3), ["num heat heat-5 diagonal", "num heat heat-0", "num heat heat-0"]);
    assert.equal(classes[3], "num heat heat-2", "1/3 → round(5/3) = 2");
    assert.equal(await page.locator(".trigger-matrix td.diagonal").count(), 3);
    assert.match((await page.locator(".trigger-matrix td").first().getAttribute("title")) ?? "", /commit-style was loaded on 3 of 3 runs of commit-style's evals \(trigger recall\)/);
  });

  it("lists recall, near misses and false triggers per skill, then the pass rates", async () => {
    const rn = await page.locator('.trigger-table tr[data-skill="release-notes"] td').allTextContents();
    assert.deepEqual(rn, ["release-notes", "100% (2/2)", "100% (1/1)", "14% (1/7)", "+0.50 (n 2)"]);
    assert.match((await page.locator(".judge-line").textContent()) ?? "", /Expectations passed: enabled 67%, disabled 67%\. Judge m, one grading per output/);
    assert.equal(posted.find((m) => m.type === "rendered")?.triggerCells, 9);
    assert.deepEqual(errors, []);
    if (process.env.SF_SCREENSHOT) await page.locator("#skill-evals").screenshot({ path: process.env.SF_SCREENSHOT });
    // The README's picture of the heat map comes from this run.
    if (process.env.SF_UPDATE_DOCS_IMAGES === "1") await page.locator("#skill-evals").screenshot({ path: path.join(DOCS_IMAGES, "trigger-heat-map.png") });
  });
});
