/**
 * Measurement, not a test (no assertion on time): opens a synthetic 10,000-task run in the report webview through
 * the UI and prints how long the user waits and how long the webview's own render took.
 *   node --import tsx test/e2e/measure-large-report.ts [tasks]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { extensionPayload, launchBrowser, openWorkbench, REPO_ROOT, startCodeServer } from "../integration/support/code-server.js";

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 10_000);
  const root = mkdtempSync(path.join(os.tmpdir(), "sf-measure-"));
  const ws = path.join(root, "ws");
  mkdirSync(ws, { recursive: true });
  const skills = Array.from({ length: 20 }, (_, i) => `skill-${i}`);
  const header = {
    type: "header", formatVersion: 1, toolVersion: "0", runId: "big", createdAt: new Date().toISOString(),
    model: { id: "openai-compatible:m@x", name: "m" }, params: { samples: 1, maxTurns: 6 },
    taskSet: { name: "synthetic", format: "native", file: "/x.jsonl", hash: "h", size: n },
    taskIds: Array.from({ length: n }, (_, i) => `task-${i}`),
    skills: skills.map((s) => ({ name: s, contentHash: `h-${s}`, file: `/skills/${s}/SKILL.md`, description: "d" })),
    skillLibraryHash: "lib", mode: "catalog", design: "paired", promptVersion: "1", sandbox: { isolation: "none" }, stopWhen: "never",
  };
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < n; i++) {
    const retrieved = rand() < 0.4 ? [{ name: skills[Math.floor(rand() * skills.length)]!, contentHash: "h" }] : [];
    retrieved.forEach((r) => (r.contentHash = `h-${r.name}`));
    for (const condition of ["disabled", "enabled"] as const) {
      const pass = rand() < 0.6;
      lines.push(JSON.stringify({
        type: "run", key: `task-${i}\u0000${condition}\u00000`, taskId: `task-${i}`, condition, sample: 0,
        retrieved: condition === "enabled" ? retrieved : [], toolCalls: [], answer: "a",
        verdict: { pass, reason: pass ? "ok" : "expected 1, got 2" }, tokens: { prompt: 100, completion: 20 }, latencyMs: 10,
        modelCalls: 1, cachedCalls: 0, turns: 1, transcript: [], finishedAt: new Date().toISOString(),
      }));
    }
  }
  const runFile = path.join(ws, "big.jsonl");
  writeFileSync(runFile, lines.join("\n") + "\n");
  const server = await startCodeServer({ sessionDir: path.join(root, "session"), logFile: path.join(REPO_ROOT, "test-results", "measure-code-server.log") });
  const browser = await launchBrowser();
  try {
    const page = await openWorkbench(browser, server.url(ws, extensionPayload(server)));
    // Commands are listed once the extension host has scanned the development extension.
    await page.waitForTimeout(3000);
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").fill(">Skill Following: Open Report");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Open Report" }).first().waitFor().catch(async (e: unknown) => {
      await page.screenshot({ path: path.join(REPO_ROOT, "test-results", "measure-fail.png") });
      throw e;
    });
    await page.keyboard.press("Enter");
    const input = page.locator(".quick-input-widget input");
    await page.waitForFunction(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { value?: string } | null } }).document;
      return (doc.querySelector(".quick-input-widget input")?.value ?? "").length > 0;
    });
    await input.fill(runFile);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "big.jsonl" }).first().waitFor();
    const started = Date.now();
    await page.locator(".quick-input-widget .monaco-button", { hasText: "Open Report" }).click();
    for (;;) {
      if (Date.now() - started > 90_000) {
        await page.screenshot({ path: path.join(REPO_ROOT, "test-results", "measure-fail.png") });
        throw new Error("report did not render within 90 s (see test-results/measure-fail.png)");
      }
      for (const f of page.frames()) {
        const ms = await f.locator("#app").getAttribute("data-render-ms", { timeout: 50 }).catch(() => null);
        if (ms) {
          const rows = await f.locator("#harmed-list li").count();
          console.log(JSON.stringify({ tasks: n, records: 2 * n, userWaitMs: Date.now() - started, webviewRenderMs: Number(ms), harmedRows: rows }));
          return;
        }
      }
      await page.waitForTimeout(50);
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
