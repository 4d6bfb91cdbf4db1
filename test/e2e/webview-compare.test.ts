/**
 * The report webview's own bundle (dist/webview/main.js) in Chromium, fed a model comparison through the same
 * message the host posts. Faster than a full Compare Models… run in code-server, and it checks what the
 * comparison headline looks like: one row per model, each with its own numbers and tone.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { buildReportView, type LoadedRun } from "../../src/extension/report-view-model.js";
import type { RunHeader, RunRecord } from "../../src/core/runs/types.js";
import { PROTOCOL_VERSION } from "../../src/shared/protocol.js";
import { CHROMIUM, launchBrowser, REPO_ROOT } from "../integration/support/code-server.js";

const bundle = path.join(REPO_ROOT, "dist", "webview", "main.js");
const skip = !existsSync(CHROMIUM) ? `chromium not found at ${CHROMIUM}` : !existsSync(bundle) ? `${bundle} missing (npm run build)` : undefined;

function run(model: string, outcomes: Array<[string, boolean, boolean, boolean]>): LoadedRun {
  const header: RunHeader = {
    type: "header", formatVersion: 1, toolVersion: "0", runId: `run-${model}`, createdAt: "2026-01-01T00:00:00Z",
    model: { id: `openai-compatible:${model}@http://x/v1`, name: model }, params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "ts", format: "native", file: "/t.jsonl", hash: "h", size: outcomes.length }, taskIds: outcomes.map(([id]) => id),
    skills: [{ name: "s", contentHash: "hash-s", file: "/skills/s/SKILL.md", description: "d" }],
    skillLibraryHash: "lib", mode: "catalog", design: "paired", promptVersion: "1", sandbox: { isolation: "none" }, stopWhen: "never",
  };
  const rec = (taskId: string, condition: "enabled" | "disabled", pass: boolean, retrieved: boolean): RunRecord => ({
    type: "run", key: `${taskId}\u0000${condition}\u00000`, taskId, condition, sample: 0,
    retrieved: retrieved ? [{ name: "s", contentHash: "hash-s" }] : [], toolCalls: [], answer: "a",
    verdict: { pass, reason: pass ? "ok" : "expected 1, got 2" }, tokens: { prompt: 1, completion: 1 },
    latencyMs: 1, modelCalls: 1, cachedCalls: 0, turns: 1, transcript: [], finishedAt: "2026-01-01T00:00:01Z",
  });
  const records = outcomes.flatMap(([id, d, e, r]) => [rec(id, "disabled", d, false), rec(id, "enabled", e, r)]);
  return { file: `/runs/${model}.jsonl`, header, records, stops: [], warnings: [] };
}

describe("report webview: a model comparison", { skip: skip ?? false, timeout: 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  const posted: unknown[] = [];
  let pageErrors: string[] = [];

  before(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    pageErrors = errors;
    await page.exposeFunction("__sfPost", (m: unknown) => void posted.push(m));
    await page.setContent('<!doctype html><html><body><div id="app"></div></body></html>');
    // What VS Code gives a webview: acquireVsCodeApi(), whose postMessage reaches the host (here, this test).
    // (Page scripts as strings: functions from this file carry tsx's helpers, which the page does not have.)
    await page.addScriptTag({
      content: "window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sfPost(m), setState() {}, getState() { return undefined; } });",
    });
    await page.addScriptTag({ content: readFileSync(bundle, "utf8") });
  });
  after(async () => {
    await browser?.close();
  });

  it("shows one headline row per model, in the order compared, each with its own numbers", async () => {
    // Of 8 retrieved tasks, "harms" harms 6 (RAE −0.75, interval below 0), "helps" rescues 5 (interval above 0).
    const tasks = (flip: (i: number) => [boolean, boolean]) =>
      Array.from({ length: 10 }, (_, i): [string, boolean, boolean, boolean] => [`T${i}`, ...flip(i), i < 8]);
    const harms = run("harms", tasks((i) => (i <= 5 ? [true, false] : [true, true])));
    const helps = run("helps", tasks((i) => (i <= 4 ? [false, true] : [true, true])));
    const view = buildReportView([harms, helps], 0.05);
    await page.addScriptTag({ content: `window.postMessage(${JSON.stringify({ v: PROTOCOL_VERSION, type: "report", report: view })}, "*");` });
    await page.locator("#headline-models tbody tr").nth(1).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(".cards").count(), 0, "no single-model cards in a comparison");
    const rows: Array<{ model: string | null; tone: string; cells: string[] }> = [];
    for (const tr of await page.locator("#headline-models tbody tr").all()) {
      rows.push({ model: await tr.getAttribute("data-model"), tone: (await tr.getAttribute("class")) ?? "", cells: await tr.locator("td").allTextContents() });
    }
    assert.deepEqual(rows.map((r) => [r.model, r.cells[0], r.cells[1], r.cells[5], r.cells[6]]), [
      ["harms", "harms", "\u22120.75", "8 / 10", "0 / 6"],
      ["helps", "helps", "+0.63", "8 / 10", "5 / 0"],
    ]);
    assert.deepEqual(rows.map((r) => r.tone), ["bad", "good"], "each model's RAE interval decides its own tone");
    assert.ok(posted.some((m) => (m as { type?: string }).type === "rendered"));
    assert.deepEqual(pageErrors, []);
  });
});
