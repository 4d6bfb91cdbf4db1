/**
 * End-to-end tier, a stranger's first five minutes: a fresh code-server with the extension installed (the .vsix under
 * SF_VSIX, as CI runs it), an empty folder, no settings, no network beyond 127.0.0.1. From the palette they run
 * *Try the Example*: it asks where model calls go first (an OpenAI-compatible URL: the scripted server), offers the
 * server's own models, copies the example skills into the folder, opens the harmful one and evaluates it on the
 * built-in math set, ending on the report. Then: the report follows live theme changes, evaluations leave nothing
 * for git to list, and no message shown names a CLI flag. With SF_UPDATE_DOCS_IMAGES=1 the README's pictures are
 * regenerated from this run.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { Browser, Frame, Page } from "playwright-core";
import { extensionPayload, launchBrowser, missingPrerequisite, openWorkbench, REPO_ROOT, startCodeServer, type CodeServer } from "../integration/support/code-server.js";
import { EXAMPLE_EXPECTED, EXAMPLE_HARMED, EXAMPLE_SKILL, exampleScript } from "../support/example-scenario.js";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-server.js";
import { MINIFIED_NAME } from "../support/minified.js";
import { answerInput, diagnosedIt, palette, pick, quickInputTitle, reportFrame, shot, SHOTS, until } from "./ui.js";

const skip = missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`e2e prerequisite missing under CI: ${skip}`);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Collects every notification message the workbench shows, even ones that are gone by the time a test looks. */
const COLLECT_NOTIFICATIONS = `
  window.__sfNotifications = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(".notification-list-item-message")) {
      const t = el.textContent || "";
      if (t && !window.__sfNotifications.includes(t)) window.__sfNotifications.push(t);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

describe("a stranger's first run: Try the Example from the installed extension", { skip: skip ?? false, timeout: 420_000 }, () => {
  let root: string;
  let ws: string;
  let model: ScriptedServer;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const it = diagnosedIt("first-run", () => ({ page, server }));
  let report: Frame;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    root = mkdtempSync(path.join(os.tmpdir(), "sf-e2e-first-"));
    ws = path.join(root, "my-project");
    mkdirSync(ws, { recursive: true });
    spawnSync("git", ["init", "-q"], { cwd: ws });
    // Latency so the progress notification is on screen long enough to be read and photographed.
    model = await startScriptedServer({ script: exampleScript(), latencyMs: 60, models: ["scripted-model", "scripted-model-large"] });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "e2e-first-run-code-server.log") });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.url(ws, extensionPayload(server)));
    await page.evaluate(COLLECT_NOTIFICATIONS);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("asks where model calls go before anything else, and offers the server's own models", async () => {
    await palette(page, "Skill Following: Try the Example");
    assert.match(await quickInputTitle(page), /Where should model calls go/);
    await shot(page, "first-1-endpoint");
    await pick(page, "Another OpenAI-compatible server");
    await answerInput(page, "Base URL", model.url);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "scripted-model-large" }).waitFor({ timeout: 30_000 });
    await pick(page, "scripted-model");
  });

  it("copies the example skills into the folder the user accepts and opens the harmful one", async () => {
    await page.locator(".quick-input-widget .quick-input-title", { hasText: "example skills" }).waitFor({ timeout: 30_000 });
    await page.locator(".quick-input-widget .monaco-button", { hasText: "Copy Example Skills Here" }).click();
    await page.locator(".tab", { hasText: "SKILL.md" }).first().waitFor({ timeout: 30_000 });
    assert.ok(existsSync(path.join(ws, "skills", EXAMPLE_SKILL, "SKILL.md")));
    assert.ok(existsSync(path.join(ws, "skills", "tidy-list-outputs", "SKILL.md")));
    await page.locator(".notifications-toasts", { hasText: "harmful on purpose" }).first().waitFor({ timeout: 30_000 });
  });

  it("evaluates it on the built-in math set and ends on the report", async () => {
    report = await reportFrame(page, "#title", EXAMPLE_SKILL, 180_000);
    assert.match((await report.locator("#title").textContent()) ?? "", /round-money-whole-units on math-word/);
    assert.equal(await report.locator("#headline-flips .card-value").textContent(), `${EXAMPLE_EXPECTED.rescued} / ${EXAMPLE_EXPECTED.harmed}`);
    assert.equal(await report.locator("#headline-retrieved .card-value").textContent(), `${EXAMPLE_EXPECTED.nRetrieved} / ${EXAMPLE_EXPECTED.n}`);
    const harmed = await report.locator("#harmed-list .task-id").allTextContents();
    assert.deepEqual([...harmed].sort(), EXAMPLE_HARMED);
    assert.ok(model.calls > 0);
    await shot(page, "report");
  });

  /** The run files of the evaluations so far, oldest first (their names end in a UTC time stamp). */
  const runFiles = () => {
    const dir = path.join(ws, ".skill-following", "runs");
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(dir, f)) : [];
  };

  it("writes .skill-following/.gitignore first, so three evaluations leave git status clean of it", async () => {
    assert.equal(readFileSync(path.join(ws, ".skill-following", ".gitignore"), "utf8").split("\n").filter((l) => l && !l.startsWith("#")).join("\n"), "*");
    for (let i = 0; i < 2; i++) {
      await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
      await palette(page, "Skill Following: Evaluate This Skill");
      await pick(page, "math-word");
      await pick(page, "scripted-model");
      // Each evaluation writes its own run file; when it finishes, the skill's open report shows that run (one tab per
      // skill, not one per evaluation), so its run line carries the new run's creation time.
      // Its header line complete, not just the file created (the header is written right after the create).
      const newest = await until(page, `the run file of evaluation ${i + 2} written`, () => {
        const f = runFiles()[i + 1];
        return f && readFileSync(f, "utf8").includes("\n") ? f : undefined;
      }, 480, 250);
      const header = JSON.parse(readFileSync(newest, "utf8").split("\n")[0]!) as { createdAt: string };
      await reportFrame(page, ".runs", header.createdAt, 120_000);
    }
    assert.equal(await page.locator(".tab", { hasText: "Report: " }).count(), 1, "three evaluations of one skill share one report tab");
    const runs = readdirSync(path.join(ws, ".skill-following", "runs")).filter((f) => f.endsWith(".jsonl"));
    assert.ok(runs.length >= 3, `three evaluations wrote ${runs.length} run files`);
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: ws, encoding: "utf8" });
    assert.equal(status.status, 0, status.stderr);
    const listed = status.stdout.split("\n").filter((l) => l.includes(".skill-following"));
    assert.deepEqual(listed, []);
    assert.ok(status.stdout.includes("skills/"), "git does list the copied skills (the check can see untracked files)");
  });

  it("shows no message that names a CLI flag, and its log has no minified names", async () => {
    const shown = ((await page.evaluate("window.__sfNotifications")) as string[] | undefined) ?? [];
    assert.ok(shown.length > 0, "the collector saw the notifications");
    assert.deepEqual(shown.filter((t) => /(^|\s)--[a-z]/.test(t)), []);
    const logs = filesUnder(path.join(server!.userDataDir, "logs")).filter((f) => /Skill Following/.test(path.basename(f)));
    assert.ok(logs.length > 0, "the extension's log file was found");
    const lines = logs.flatMap((f) => readFileSync(f, "utf8").split("\n"));
    assert.ok(lines.some((l) => /evaluating|starting evaluation/.test(l)));
    assert.deepEqual(lines.filter((l) => MINIFIED_NAME.test(l.replace(/^\S+ \S+ \[\w+\] /, ""))), []);
  });
});
