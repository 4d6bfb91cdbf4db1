/**
 * End-to-end tier, "what did my edit change" (issue 28), clicked through code-server's real UI in chromium, in a git
 * workspace holding the shipped harmful example skill (committed): evaluate it, delete its harmful section in the
 * editor and save (evaluate-on-save), read the CodeLens "this edit: 7 improved · 0 regressed (p …)", open the edit
 * (the two SKILL.md versions side by side, then one task's transcripts before and after), and run Compare with
 * Committed Version. A screenshot of each step goes to test-results/e2e/ (SF_UPDATE_DOCS_IMAGES=1: docs/images/).
 * With SF_VSIX the session runs the packaged extension.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createAblationFixture, type AblationFixture } from "../integration/support/ablation-fixture.js";
import { extensionPayload, launchBrowser, missingPrerequisite, openWorkbench, REPO_ROOT, startCodeServer, type CodeServer } from "../integration/support/code-server.js";
import { API_KEY } from "../integration/support/fixture.js";
import { answerInput, diagnosedIt, goToLine, notificationTexts, openFile, palette, pick, reportFrame, shot, SHOTS } from "./ui.js";

const skip = missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`e2e prerequisite missing under CI: ${skip}`);

describe("a skill author sees what an edit changed, in the browser", { skip: skip ?? false, timeout: 300_000 }, () => {
  let root: string;
  let fixture: AblationFixture;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const it = diagnosedIt("edit", () => ({ page, server }));

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    root = mkdtempSync(path.join(os.tmpdir(), "sf-e2e-edit-"));
    fixture = await createAblationFixture(path.join(root, "ws"), { latencyMs: 30 });
    const settings = path.join(fixture.dir, ".vscode", "settings.json");
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), "skillFollowing.evaluateOnSave": true }, null, 2));
    // A git workspace with the skill committed as shipped: HEAD is the harmful version.
    const git = (...a: string[]) => execFileSync("git", ["-c", "user.email=e2e@example.com", "-c", "user.name=e2e", ...a], { cwd: fixture.dir });
    git("init", "-q", "-b", "main");
    git("add", "skills", "tasks");
    git("commit", "-q", "-m", "the harmful example");
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "e2e-edit-code-server.log") });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.url(fixture.dir, extensionPayload(server)), 1500, 950);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("1. evaluates the harmful example skill", async () => {
    await openFile(page, "tidy-list-outputs/SKILL.md");
    await palette(page, "Skill Following: Set API Key");
    await answerInput(page, "API key", API_KEY);
    await page.locator(".notifications-toasts", { hasText: "API key saved" }).waitFor();
    await palette(page, "Skill Following: Evaluate This Skill");
    await pick(page, "list-tasks.jsonl");
    await pick(page, "scripted-model");
    await reportFrame(page, "#headline-flips .card-value", "3 / 7");
    await goToLine(page, 2);
    await page.locator(".codelens-decoration a", { hasText: /RAE .* 3 rescued \u00b7 7 harmed/ }).first().waitFor({ timeout: 30_000 });
    await shot(page, "edit-1-evaluated");
  });

  it("2. deletes the harmful section and saves; the CodeLens reads what the edit changed", async () => {
    // "## The rule" is lines 16-25 of the shipped skill: select them whole and delete.
    assert.equal(readFileSync(fixture.skillFile, "utf8").split("\n")[15], "## The rule");
    await goToLine(page, 16);
    for (let i = 0; i < 10; i++) await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Delete");
    await page.keyboard.press("Control+S");
    await goToLine(page, 2);
    const lens = page.locator(".codelens-decoration a", { hasText: /this edit: 7 improved \u00b7 0 regressed \(p [0-9.]+\)/ });
    await lens.first().waitFor({ timeout: 120_000 });
    assert.ok(!readFileSync(fixture.skillFile, "utf8").includes("## The rule"));
    await shot(page, "edit-2-codelens");
  });

  it("3. the lens opens the two versions side by side and the changed tasks; a task opens its transcripts before and after", async () => {
    await page.locator(".codelens-decoration a", { hasText: /this edit: 7 improved/ }).first().click();
    await page.locator(".tab", { hasText: /previous evaluation \u2194 this version/ }).first().waitFor({ timeout: 30_000 });
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "O1" }).first().waitFor({ timeout: 30_000 });
    assert.ok((await page.locator(".quick-input-list .monaco-list-row", { hasText: "improved" }).count()) > 0);
    await shot(page, "edit-3-diff-report");
    await pick(page, "O1");
    await page.locator(".tab", { hasText: "O1: before \u2194 after the edit" }).first().waitFor({ timeout: 30_000 });
    await shot(page, "edit-4-task-transcripts");
  });

  it("4. Compare with Committed Version evaluates the SKILL.md at HEAD through the git extension and shows the edit", async () => {
    await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
    await palette(page, "Skill Following: Compare with Committed Version");
    try {
      await page.locator(".tab", { hasText: /HEAD \u2194 this version/ }).first().waitFor({ timeout: 120_000 });
    } catch (err) {
      await shot(page, "edit-5-timeout");
      throw new Error(`${(err as Error).message}\nnotifications: ${(await notificationTexts(page)).join(" | ")}`, { cause: err });
    }
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "O7" }).first().waitFor({ timeout: 30_000 });
    await shot(page, "edit-5-compare-committed");
    await page.keyboard.press("Escape");
  });

  it("5. the Skill Following view keeps the skill's edits with their verdicts and the tasks each changed", async () => {
    // Room for the view: the folder tree's pane is collapsed.
    const folders = page.locator(".pane-header", { hasText: /^\s*ws/i }).first();
    if ((await folders.getAttribute("aria-expanded").catch(() => null)) === "true") await folders.click();
    const header = page.locator(".pane-header", { hasText: /Skill Following/i }).first();
    if ((await header.getAttribute("aria-expanded")) !== "true") await header.click();
    const skillRow = page.locator(".monaco-list-row", { hasText: "tidy-list-outputs" }).filter({ hasText: "RAE" }).first();
    await skillRow.waitFor({ timeout: 30_000 });
    if ((await skillRow.getAttribute("aria-expanded")) !== "true") await skillRow.locator(".monaco-tl-twistie").click();
    const headEdit = page.locator(".monaco-list-row", { hasText: /HEAD \u2192 [0-9a-f]{8}/ }).first();
    await headEdit.waitFor({ timeout: 30_000 });
    assert.match((await headEdit.textContent()) ?? "", /7 improved \u00b7 0 regressed/);
    await page.locator(".monaco-list-row", { hasText: /previous evaluation \u2192 [0-9a-f]{8}/ }).first().waitFor();
    await headEdit.locator(".monaco-tl-twistie").click();
    // :visible — the closed quick pick keeps hidden rows with the same text.
    await page
      .locator(".monaco-list-row:visible", { hasText: "O1" })
      .filter({ hasText: "improved" })
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (err: unknown) => {
        await shot(page, "edit-6-timeout");
        throw err;
      });
    await shot(page, "edit-6-history-view");
  });
});
