/**
 * End-to-end tier: a person's path through the real UI of code-server in chromium. Open SKILL.md, set the API key
 * from the palette, run Evaluate This Skill from the palette, pick the task set and model, read the report in the
 * webview (headline numbers, harmed list, hostile text inert), open a harmed task side by side, and open a crafted
 * run file whose skill name and task ids carry HTML. Screenshots go to test-results/e2e/.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { extensionPayload, launchBrowser, missingPrerequisite, openWorkbench, REPO_ROOT, startCodeServer, type CodeServer } from "../integration/support/code-server.js";
import { diagnosedIt, DOCS_IMAGES, openFile, palette, pick, reportFrame, submit } from "./ui.js";
import { API_KEY, createFixture, SKILL_NAME, XSS_TASK_ID, type Fixture } from "../integration/support/fixture.js";

const skip = missingPrerequisite();
const shots = path.join(REPO_ROOT, "test-results", "e2e");

describe("a skill author in the browser", { skip: skip ?? false, timeout: 240_000 }, () => {
  let root: string;
  let fixture: Fixture;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const it = diagnosedIt("report", () => ({ page, server }));
  let report: Frame;

  before(async () => {
    mkdirSync(shots, { recursive: true });
    root = mkdtempSync(path.join(os.tmpdir(), "sf-e2e-"));
    // Latency so the progress notification is on screen long enough to be read.
    fixture = await createFixture(path.join(root, "ws"), { latencyMs: 200 });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "e2e-code-server.log") });
    // The extension: the installed .vsix under SF_VSIX (as CI runs it), else the repository folder, as in development.
    browser = await launchBrowser();
    const url = server.url(fixture.dir, extensionPayload(server));
    page = await openWorkbench(browser, url);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("opens SKILL.md and sets the API key from the palette", async () => {
    await openFile(page, `${SKILL_NAME}/SKILL.md`);
    await palette(page, "Skill Following: Set API Key");
    const box = page.locator(".quick-input-widget input");
    await box.waitFor({ state: "visible" });
    assert.equal(await box.getAttribute("type"), "password", "the key is typed into a password box");
    await box.fill(API_KEY);
    await submit(page);
    await page.locator(".notifications-toasts", { hasText: "API key saved" }).waitFor();
    await page.screenshot({ path: path.join(shots, "1-skill-open.png") });
  });

  it("runs Evaluate This Skill from the palette and shows the report", async () => {
    await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
    await palette(page, "Skill Following: Evaluate This Skill");
    await pick(page, "fixture-math.jsonl");
    await pick(page, "scripted-model");
    const progress = page.locator(".notifications-toasts", { hasText: /Evaluating units-helper/ });
    await progress.waitFor({ timeout: 20_000 });
    await page.locator(".notifications-toasts", { hasText: /\d+\/\d+ runs · .* · \d+ retrievals? · running RAE/ }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: path.join(shots, "2a-progress.png") });
    report = await reportFrame(page, "#title", SKILL_NAME);
    await page.screenshot({ path: path.join(shots, "2-report.png"), fullPage: true });
    assert.equal(await report.locator("#headline-rae .card-value").textContent(), "\u22120.25");
    assert.equal(await report.locator("#headline-oae .card-value").textContent(), "\u22120.17");
    assert.equal(await report.locator("#headline-lift .card-value").textContent(), "+0.50");
    assert.equal(await report.locator("#headline-retrieved .card-value").textContent(), "4 / 6");
    assert.match((await report.locator("#paradox").textContent()) ?? "", /lift/);
    assert.equal(await report.locator("#skills-table tbody tr").count(), 1);
    assert.equal(await report.locator("#scatter-canvas").count(), 1);
  });

  it("lists the harmed tasks with hostile text shown as text, never run", async () => {
    const ids = await report.locator("#harmed-list .task-id").allTextContents();
    assert.deepEqual([...ids].sort(), ["T2-harmed", XSS_TASK_ID].sort());
    assert.deepEqual(await report.locator("#rescued-list .task-id").allTextContents(), ["T1-rescued"]);
    assert.equal(await report.evaluate(() => (globalThis as unknown as { __sfXss?: number }).__sfXss), undefined);
    assert.equal(await report.locator("img").count(), 0, "no element was created from the payload");
    // VS Code injects its own scripts into the frame; none may carry the payload.
    const scripts = await report.locator("script").evaluateAll((els) => els.map((e) => e.textContent ?? ""));
    assert.ok(!scripts.some((t) => t.includes("__sfXss")));
  });

  it("opens a harmed task's transcripts side by side", async () => {
    await report.locator("#harmed-list button", { hasText: "T2-harmed" }).click();
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 20_000 });
    await page.locator(".tab", { hasText: "T2-harmed" }).first().waitFor();
    await page.locator(".monaco-diff-editor .view-line", { hasText: "Verdict: FAIL" }).first().waitFor();
    await page.screenshot({ path: path.join(shots, "3-side-by-side.png") });
    // The README's picture of the side by side comes from this run (of the installed .vsix under CI).
    if (process.env.SF_UPDATE_DOCS_IMAGES === "1") copyFileSync(path.join(shots, "3-side-by-side.png"), path.join(DOCS_IMAGES, "side-by-side.png"));
  });

  it("shows the result in the CodeLens, which opens the report at the harmed tasks", async () => {
    await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
    const lens = page.locator(".codelens-decoration a", { hasText: "RAE \u22120.25" }).first();
    await lens.waitFor({ timeout: 20_000 });
    assert.match((await lens.textContent()) ?? "", /^RAE \u22120\.25 \[.*\] \u00b7 1 rescued \u00b7 2 harmed \u00b7 scripted-model on fixture-math$/);
    await page.screenshot({ path: path.join(shots, "3a-codelens.png") });
    await lens.click();
    // The report's page was destroyed while hidden behind SKILL.md; find the new one.
    report = await reportFrame(page, "#title", SKILL_NAME);
    await report.locator("#harmed.focused").waitFor({ timeout: 20_000 });
  });

  it("keeps a crafted run file's skill names and task ids inert", async () => {
    const runs = path.join(fixture.dir, ".skill-following", "runs");
    const original = readdirSync(runs).find((f) => f.endsWith(".jsonl"))!;
    const evilName = `<img src=x onerror="window.__sfXss=4"><script>window.__sfXss=5</script>`;
    const crafted = readFileSync(path.join(runs, original), "utf8").split(SKILL_NAME).join(JSON.stringify(evilName).slice(1, -1));
    const craftedFile = path.join(fixture.dir, "crafted.jsonl");
    writeFileSync(craftedFile, crafted);
    await palette(page, "Skill Following: Open Report…");
    // code-server's simple file dialog: type the path, accept.
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    // Wait for the dialog to show its default folder before replacing the path, or it overwrites what we type.
    await page.waitForFunction(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { value?: string } | null } }).document;
      return doc.querySelector(".quick-input-widget input")?.value?.includes("runs") === true;
    });
    await input.fill(craftedFile);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "crafted.jsonl" }).first().waitFor();
    await page.screenshot({ path: path.join(shots, "4-open-dialog.png") });
    await page.locator(".quick-input-widget .monaco-button", { hasText: "Open Report" }).click();
    const evil = await reportFrame(page, "#title", "<img src=x", 30_000);
    await page.screenshot({ path: path.join(shots, "4-crafted-report.png"), fullPage: true });
    assert.equal(await evil.locator("#skills-table .skill-name").first().textContent(), evilName);
    assert.equal(await evil.evaluate(() => (globalThis as unknown as { __sfXss?: number }).__sfXss), undefined);
    assert.equal(await evil.locator("img").count(), 0);
  });

  it("remembers the last task set and model in the pickers", async () => {
    await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
    await palette(page, "Skill Following: Evaluate This Skill");
    const first = page.locator(".quick-input-list .monaco-list-row").first();
    await first.waitFor();
    assert.match((await first.textContent()) ?? "", /fixture-math\.jsonl.*last used/);
    await submit(page);
    const firstModel = page.locator(".quick-input-list .monaco-list-row", { hasText: "scripted-model" }).first();
    await firstModel.waitFor();
    assert.match((await page.locator(".quick-input-list .monaco-list-row").first().textContent()) ?? "", /scripted-model.*last used/);
    await page.keyboard.press("Escape");
  });

  it("restores the report panel after a window reload", async () => {
    await page.reload();
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    // Hidden webview tabs are deserialized when shown: bring the report's tab to the front.
    const tab = page.locator(".tab", { hasText: "Report: units-helper" }).first();
    await tab.waitFor({ timeout: 60_000 });
    await tab.click();
    const restored = await reportFrame(page, "#title", "on fixture-math", 60_000);
    assert.equal(await restored.locator("#headline-rae .card-value").textContent(), "\u22120.25");
    await page.screenshot({ path: path.join(shots, "5-restored.png") });
  });
});
