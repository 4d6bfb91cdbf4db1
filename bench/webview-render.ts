/**
 * Report webview at scale (DESIGN §5: a 10,000-task run opens and renders in well under a second). The host side
 * in-process (read the run file, build the view model), then the real webview bundle (dist/webview/main.js,
 * media/report.css, the panel's CSP) in headless Chromium: time from the host's `report` message to the webview's
 * `rendered` reply, and to the first frame painted after it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { readRunFile } from "../src/core/runs/store.js";
import { buildReportView } from "../src/extension/report-view-model.js";
import { PROTOCOL_VERSION } from "../src/shared/protocol.js";
import { syntheticRun, writeRunFile } from "./synthetic-run.js";
import type { BenchRow } from "./types.js";

const repoRoot = path.resolve(__dirname, "..");
const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export async function benchWebviewRender(tasks = 10_000, skills = 20): Promise<BenchRow[]> {
  const label = `${tasks} tasks × ${skills} skills`;
  const rows: BenchRow[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-bench-webview-"));
  try {
    const file = path.join(tmp, "run.jsonl");
    await writeRunFile(syntheticRun({ tasks, skills }), file);
    const t0 = performance.now();
    const contents = await readRunFile(file);
    const t1 = performance.now();
    const view = buildReportView([{ ...contents, file }], 0.05);
    const t2 = performance.now();
    const message = JSON.stringify({ v: PROTOCOL_VERSION, type: "report", report: view });
    rows.push({ group: "webview", metric: "host: read + validate run file", value: Math.round(t1 - t0), unit: "ms", note: label });
    rows.push({ group: "webview", metric: "host: build report view", value: Math.round(t2 - t1), unit: "ms", note: `${label}; message ${Math.round(Buffer.byteLength(message) / 1024)} KiB, ${view.rescued.length} rescued + ${view.harmed.length} harmed rows` });

    const executablePath = CHROMIUM_CANDIDATES.find((p): p is string => !!p && existsSync(p));
    if (!executablePath) {
      rows.push({ group: "webview", metric: "render in Chromium", value: "not run", note: "no Chromium found (set CHROMIUM_PATH)" });
      return rows;
    }
    const script = path.join(repoRoot, "dist", "webview", "main.js");
    if (!existsSync(script)) throw new Error("dist/webview/main.js is missing: run `node esbuild.mjs` first");
    const served = await serve({
      "/main.js": ["text/javascript", readFileSync(script)],
      "/report.css": ["text/css", readFileSync(path.join(repoRoot, "media", "report.css"))],
      "/message.json": ["application/json", Buffer.from(message)],
    });
    const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto(`${served.url}/index.html`);
      // The message is fetched first so that only postMessage (a structured clone, as in VS Code) and rendering are timed.
      const result = (await page.evaluate(`(async () => {
        const msg = await (await fetch("/message.json")).json();
        const rendered = new Promise((resolve) => { window.__onPosted = (m) => { if (m.type === "rendered") resolve(m); }; });
        const start = performance.now();
        window.postMessage(msg, "*");
        const r = await rendered;
        const atRendered = performance.now() - start;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        return { ownMs: r.ms, toRendered: atRendered, toPaint: performance.now() - start, rows: document.querySelectorAll("tr, li").length };
      })()`)) as { ownMs: number; toRendered: number; toPaint: number; rows: number };
      if (errors.length) rows.push({ group: "webview", metric: "page errors", value: errors.length, note: errors.slice(0, 2).join(" | ").slice(0, 200) });
      rows.push({ group: "webview", metric: "webview: report message → rendered", value: Math.round(result.toRendered), unit: "ms", reference: "well under 1000", note: `render() itself ${Math.round(result.ownMs)} ms; ${result.rows} table rows/list items` });
      rows.push({ group: "webview", metric: "webview: report message → first paint", value: Math.round(result.toPaint), unit: "ms", reference: "well under 1000", note: `headless Chromium (${path.basename(executablePath)}), 1400×900` });
      rows.push({ group: "webview", metric: "host + webview: open to first paint", value: Math.round(t2 - t0 + result.toPaint), unit: "ms", note: "read run file + build view + render (message transport not included)" });
    } finally {
      await browser.close();
      await served.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

/** The webview page as the panel builds it (same CSP: nonce'd script only, no inline style), served over loopback. */
async function serve(files: Record<string, [string, Buffer]>): Promise<{ url: string; close: () => Promise<void> }> {
  const nonce = "YmVuY2gtbm9uY2UtMTIzNA";
  const csp = ["default-src 'none'", "img-src 'self' data:", "style-src 'self'", "font-src 'self'", `script-src 'nonce-${nonce}'`, "connect-src 'self'"].join("; ");
  const index = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="/report.css"><title>bench</title></head>
<body><div id="app"><p id="loading">Loading report…</p></div>
<script nonce="${nonce}">window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__onPosted && window.__onPosted(m), setState() {}, getState() { return undefined; } });</script>
<script nonce="${nonce}" src="/main.js"></script></body></html>`;
  const all: Record<string, [string, Buffer]> = { ...files, "/index.html": ["text/html; charset=utf-8", Buffer.from(index)], "/favicon.ico": ["image/x-icon", Buffer.alloc(0)] };
  const server = http.createServer((req, res) => {
    const hit = all[new URL(req.url ?? "/", "http://x").pathname];
    if (!hit) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": hit[0], "content-length": hit[1].length }).end(hit[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
