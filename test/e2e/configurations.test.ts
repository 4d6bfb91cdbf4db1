/**
 * E2E tier, issue 24's Done-when sequence as a person does it in code-server (the installed .vsix under SF_VSIX),
 * with a screenshot of each step: Try the Example evaluates the harmful example with model A (the configured
 * model: no model picker), Evaluate Skill Library… runs with model B, Compare Models… runs A and B; the skill's
 * CodeLens still shows A's own verdict, says so, and links to B's. Then the Testing view, clicked: it lists the
 * skills and the example's tasks, and the Run button of one task re-runs only that task's pair, with exactly the
 * model calls the response cache implies (none for the unchanged skill; one after an edit of its body), counted by
 * the scripted server and checked against the re-run's own run file. The same sequence runs in the integration
 * tier (test/integration/configurations.test.ts), which asserts the diagnostic and the Testing view's states too.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { Browser, Page } from "playwright-core";
import { extensionPayload, launchBrowser, missingPrerequisite, openWorkbench, REPO_ROOT, startCodeServer, type CodeServer } from "../integration/support/code-server.js";
import { createConfigsFixture, MODEL_A, MODEL_B, type ConfigsFixture } from "../integration/support/configs-fixture.js";
import { API_KEY } from "../integration/support/fixture.js";
import { EXAMPLE_EXPECTED, EXAMPLE_HARMED, EXAMPLE_RESCUED, EXAMPLE_SKILL, EXAMPLE_TASKS_FILE } from "../support/example-scenario.js";
import { answerInput, diagnosedIt, palette, pick, reportFrame, shot, SHOTS, submit, until } from "./ui.js";

const skip = missingPrerequisite();
if (skip && process.env.CI === "true") throw new Error(`e2e prerequisite missing under CI: ${skip}`);

describe("verdicts per configuration: example with A, library with B, compare A and B", { skip: skip ?? false, timeout: 480_000 }, () => {
  let root: string;
  let fixture: ConfigsFixture;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const it = diagnosedIt("configs", () => ({ page, server }));
  let ws: string;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    root = mkdtempSync(path.join(os.tmpdir(), "sf-e2e-configs-"));
    ws = path.join(root, "my-skills");
    mkdirSync(ws, { recursive: true });
    // Model B is listed in the model picker through skillFollowing.models.
    fixture = await createConfigsFixture(ws, { "skillFollowing.models": [MODEL_B] });
    server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "e2e-configurations-code-server.log") });
    browser = await launchBrowser();
    page = await openWorkbench(browser, server.url(ws, extensionPayload(server)));
    await palette(page, "Skill Following: Set API Key");
    await answerInput(page, "API key", API_KEY);
    await page.locator(".notifications-toasts", { hasText: "API key saved" }).first().waitFor({ timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await fixture?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("1. Try the Example with model A: the harmful report", async () => {
    await palette(page, "Skill Following: Try the Example");
    await page.locator(".quick-input-widget .quick-input-title", { hasText: "example skills" }).waitFor({ timeout: 30_000 });
    await page.locator(".quick-input-widget .monaco-button", { hasText: "Copy Example Skills Here" }).click();
    // Model A is the one the settings name: no model picker (the evaluation starts at once).
    const report = await reportFrame(page, "#title", `${EXAMPLE_SKILL} on math-word \u00b7 ${MODEL_A}`, 180_000);
    assert.equal(await report.locator("#headline-flips .card-value").textContent(), `${EXAMPLE_EXPECTED.rescued} / ${EXAMPLE_EXPECTED.harmed}`);
    await shot(page, "configs-1-example-model-a");
  });

  it("2. Evaluate Skill Library… with model B", async () => {
    await palette(page, "Skill Following: Evaluate Skill Library");
    await pick(page, "math-word");
    await pick(page, MODEL_B);
    await reportFrame(page, "#title", `skills on math-word \u00b7 ${MODEL_B}`, 180_000);
    await shot(page, "configs-2-library-model-b");
  });

  it("3. Compare Models… A and B", async () => {
    await palette(page, "Skill Following: Compare Models");
    // Filter to the two models, tick every row shown, accept.
    await page.locator(".quick-input-list .monaco-list-row", { hasText: MODEL_B }).first().waitFor({ timeout: 30_000 });
    await page.locator(".quick-input-widget input").fill("model-");
    // The list re-renders once the filter applies: wait for that (a row that does not match leaves it), then count.
    await page.locator(".quick-input-list .monaco-list-row").filter({ hasNotText: "model-" }).first().waitFor({ state: "detached", timeout: 30_000 }).catch(() => undefined);
    assert.equal(await page.locator(".quick-input-list .monaco-list-row").count(), 2);
    for (const name of [MODEL_A, MODEL_B]) {
      // The pointer left over a ticked row raises that row's hover, which can cover the next checkbox: move it away
      // first (a person's pointer moves too), so the click lands on the checkbox, not on the hover.
      await page.mouse.move(1, 1);
      await page.locator(`.quick-input-list .monaco-checkbox[aria-label="${name}"]`).click();
    }
    await shot(page, "configs-3a-compare-picker");
    await submit(page);
    await pick(page, "math-word");
    // The models in the order picked (the last one used first).
    await reportFrame(page, "#title", new RegExp(`Model comparison: (${MODEL_A}, ${MODEL_B}|${MODEL_B}, ${MODEL_A})`), 240_000);
    await shot(page, "configs-3-compare-a-b");
  });

  it("4. the skill's CodeLens still shows A's own verdict, names it, and links to B's", async () => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "SKILL.md" }).first().click();
    const lens = page.locator(".codelens-decoration a", { hasText: `${EXAMPLE_EXPECTED.harmed} harmed \u00b7 ${MODEL_A} on math-word` }).first();
    await lens.waitFor({ timeout: 30_000 });
    const alsoB = page.locator(".codelens-decoration a", { hasText: `also: ${MODEL_B} on math-word in a library of` }).first();
    await alsoB.waitFor({ timeout: 30_000 });
    await page.keyboard.press("Control+Shift+M");
    await page.locator(".markers-panel", { hasText: `on math-word with ${MODEL_A}` }).first().waitFor({ timeout: 30_000 }).catch(() => undefined);
    await shot(page, "configs-4-verdict-still-model-a");
    await alsoB.click();
    await reportFrame(page, "#title", `skills on math-word \u00b7 ${MODEL_B}`, 60_000);
    await shot(page, "configs-5-also-opens-b");
  });

  // The Testing view, clicked like a person: the tree, a task's row, its Run button.
  const TASK_IDS = readFileSync(EXAMPLE_TASKS_FILE, "utf8").split("\n").filter((l) => l.trim()).map((l) => (JSON.parse(l) as { id: string }).id);
  const explorerRow = (text: string) => page.locator(".test-explorer .monaco-list-row", { hasText: text }).first();
  // The view's filter is a one-line editor (a suggest-enabled input), typed into like a person does.
  const filter = async (text: string) => {
    await page.locator(".testing-filter-action-item .monaco-editor").first().click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    if (text) await page.keyboard.type(text);
  };
  /**
   * The row of the example skill's task `id`: the tree draws only the rows on screen and every skill has the task,
   * so the filter narrows the tree to that task under each skill, and the row right below the skill's is its own.
   */
  async function taskRow(id: string) {
    await filter(id);
    // The filter has applied once every task row drawn is that task (the row indices below are the filtered tree's).
    const tasks = page.locator('.test-explorer .monaco-list-row[aria-level="2"]');
    await until(page, `the Testing view's filter narrowing the tree to ${id}`, async () => {
      const texts = await tasks.allTextContents();
      return texts.length > 0 && texts.every((t) => t.includes(id));
    });
    const skill = page.locator('.test-explorer .monaco-list-row[aria-level="1"]', { hasText: EXAMPLE_SKILL }).first();
    await skill.waitFor({ timeout: 30_000 });
    if ((await skill.getAttribute("aria-expanded")) !== "true") await skill.locator(".monaco-tl-twistie").click();
    const row = page.locator(`.test-explorer .monaco-list-row[data-index="${Number(await skill.getAttribute("data-index")) + 1}"]`);
    await row.filter({ hasText: id }).waitFor({ timeout: 30_000 });
    return row;
  }
  const rerunFiles = () => {
    const dir = path.join(ws, ".skill-following", "runs");
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.includes("-task-rerun--") && f.endsWith(".jsonl")).map((f) => path.join(dir, f)) : [];
  };
  type Line = { type: string; taskId?: string; condition?: string; modelCalls?: number; cachedCalls?: number; params?: { samples: number } };
  const linesOf = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);

  /**
   * Clicks the Run button of `taskId`'s row and waits for the re-run's run file to hold both conditions of every
   * sample (each record is written after its model calls). Returns the calls the scripted server received meanwhile
   * and the re-run file's own count of calls sent and answered by the response cache.
   */
  async function runTaskFromView(taskId: string): Promise<{ received: number; sent: number; cached: number; file: string; taskIds: string[] }> {
    const known = new Set(rerunFiles());
    const before = fixture.server.calls;
    const row = await taskRow(taskId);
    await row.hover();
    await row.locator(".action-label.codicon-testing-run-icon").click();
    const done = await until(page, `a finished re-run file after clicking Run on ${taskId}`, () => {
      const file = rerunFiles().find((f) => !known.has(f));
      const lines = file ? linesOf(file) : [];
      const header = lines.find((l) => l.type === "header");
      const runs = lines.filter((l) => l.type === "run");
      return file && header && runs.length >= 2 * header.params!.samples ? { file, runs } : undefined;
    }, 720, 250).catch(async (err: unknown) => {
      await shot(page, "timeout");
      throw err;
    });
    const { file, runs } = done;
    return {
      received: fixture.server.calls - before,
      sent: runs.reduce((n, r) => n + r.modelCalls!, 0),
      cached: runs.reduce((n, r) => n + r.cachedCalls!, 0),
      file,
      taskIds: [...new Set(runs.map((r) => r.taskId!))],
    };
  }

  it("5. the Testing view lists the skills and the example's tasks", async () => {
    await palette(page, "Testing: Focus on Test Explorer View");
    const skillRow = explorerRow(EXAMPLE_SKILL);
    await skillRow.waitFor({ timeout: 60_000 });
    await explorerRow("tidy-list-outputs").waitFor({ timeout: 30_000 });
    if ((await skillRow.getAttribute("aria-expanded")) !== "true") await skillRow.locator(".monaco-tl-twistie").click();
    await explorerRow(TASK_IDS.slice().sort()[0]!).waitFor({ timeout: 30_000 });
    await shot(page, "configs-6-testing-view");
    // The tree draws only the rows on screen: the view's filter brings each task of the example's verdict up, with
    // the result Try the Example published (harmed failed, rescued passed).
    for (const [ids, icon] of [[EXAMPLE_HARMED, "failed"], [EXAMPLE_RESCUED, "passed"]] as const) {
      for (const id of ids) {
        try {
          await (await taskRow(id)).locator(`.codicon-testing-${icon}-icon`).waitFor({ timeout: 30_000 });
        } catch (err) {
          await shot(page, "timeout");
          throw err;
        }
      }
    }
    await filter("");
    await explorerRow(TASK_IDS.slice().sort()[0]!).waitFor({ timeout: 30_000 });
  });

  it("6. Run on one task's row re-runs only its pair: 0 model calls for the unchanged skill (all from the cache)", async () => {
    const harmed = EXAMPLE_HARMED[0]!;
    const r = await runTaskFromView(harmed);
    assert.deepEqual(r.taskIds, [harmed], "only that task's pair ran");
    assert.equal(r.received, r.sent, "the server received what the re-run says it sent");
    assert.equal(r.sent, 0, "the skill is unchanged: the response cache answers every call");
    assert.ok(r.cached >= 2, `both conditions' calls came from the cache (${r.cached})`);
    await (await taskRow(harmed)).locator(".codicon-testing-failed-icon").waitFor({ timeout: 30_000 });
    await shot(page, "configs-7-testing-rerun-cached");
  });

  it("7. after an edit of the skill's body, Run on one task's row costs exactly one model call", async () => {
    appendFileSync(path.join(ws, "skills", EXAMPLE_SKILL, "SKILL.md"), "\nKeep the currency symbol in the answer.\n");
    const rescued = EXAMPLE_RESCUED[0]!;
    const r = await runTaskFromView(rescued);
    assert.deepEqual(r.taskIds, [rescued]);
    assert.equal(r.received, r.sent, "the server received what the re-run says it sent");
    // The disabled run and the enabled run's first request (the catalog: name and description) are unchanged; only
    // the answer after load_skill sees the new body.
    assert.equal(r.sent, 1);
    await (await taskRow(rescued)).locator(".codicon-testing-passed-icon").waitFor({ timeout: 30_000 });
    await shot(page, "configs-8-testing-rerun-edited");
  });
});
