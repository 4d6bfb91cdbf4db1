/**
 * The report webview's own bundle (dist/webview/main.js) in Chromium, fed reports through the message the host posts,
 * with VS Code's theme variables set on the page as VS Code sets them. Checks what a reader depends on: the report
 * explains itself ("?" explainer, definitions, multiplicity notes, the pair tables), every number reads exactly as
 * in the CodeLens, the diagnostic and every export (one formatter), tables sort by any column from the keyboard, the
 * chart follows a theme change and says why it is empty, the stale banner offers Show latest, a re-render keeps the
 * scroll position, and Compare Models lays out skills × models.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { renderHtml, renderMarkdown, renderText } from "../../src/core/report/index.js";
import { buildReportModel, skillResults } from "../../src/extension/report-view-model.js";
import { lensTitle, verdictMessage } from "../../src/extension/verdict-text.js";
import { interval, pValue, signed } from "../../src/shared/format.js";
import { PROTOCOL_VERSION } from "../../src/shared/protocol.js";
import type { ReportView } from "../../src/shared/report-view.js";
import { CHROMIUM, launchBrowser, REPO_ROOT } from "../integration/support/code-server.js";
import { LIBRARY, libraryRun } from "../support/report-fixture.js";

const bundle = path.join(REPO_ROOT, "dist", "webview", "main.js");
const css = path.join(REPO_ROOT, "media", "report.css");
const skip = !existsSync(CHROMIUM) ? `chromium not found at ${CHROMIUM}` : !existsSync(bundle) ? `${bundle} missing (npm run build)` : undefined;

/** The variables of the VS Code themes the tests switch between (the values Dark Modern, Light HC and Dark HC use). */
const DARK = { "--vscode-foreground": "#cccccc", "--vscode-editor-background": "#1f1f1f", "--vscode-editorWarning-foreground": "#cca700", "--vscode-descriptionForeground": "#9d9d9d", "--vscode-font-size": "13px" };
const LIGHT_HC = { "--vscode-foreground": "#292929", "--vscode-editor-background": "#ffffff", "--vscode-editorWarning-foreground": "#895503", "--vscode-contrastBorder": "#0f4a85", "--vscode-descriptionForeground": "#292929", "--vscode-font-size": "13px" };
const DARK_HC = { "--vscode-foreground": "#ffffff", "--vscode-editor-background": "#000000", "--vscode-editorWarning-foreground": "#ffd370", "--vscode-contrastBorder": "#6fc3df", "--vscode-descriptionForeground": "#ffffffb3", "--vscode-font-size": "13px" };
const styleOf = (vars: Record<string, string>) => Object.entries(vars).map(([k, v]) => `${k}: ${v}`).join("; ");

describe("report webview in Chromium", { skip: skip ?? false, timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  let posted: Array<{ type?: string }> = [];
  let pageErrors: string[] = [];
  /** Who waits for the webview's next "rendered" message (resolved by it, rejected by a page error). */
  let onRendered: { resolve: () => void; reject: (e: Error) => void } | undefined;

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    posted = [];
    pageErrors = [];
    page.on("pageerror", (e) => {
      pageErrors.push(e.message);
      onRendered?.reject(new Error(`the report did not render: ${e.message}`));
    });
    await page.exposeFunction("__sfPost", (m: { type?: string }) => {
      posted.push(m);
      if (m.type === "rendered") onRendered?.resolve();
    });
    await page.setContent(`<!doctype html><html style="${styleOf(DARK)}"><head><style>${readFileSync(css, "utf8")}</style></head><body class="vscode-dark"><div id="app"></div></body></html>`);
    // What VS Code gives a webview: acquireVsCodeApi(), whose postMessage reaches the host (here, this test).
    await page.addScriptTag({ content: "window.__sfState = undefined; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sfPost(m), setState(s) { window.__sfState = s; }, getState() { return window.__sfState; } });" });
    await page.addScriptTag({ content: readFileSync(bundle, "utf8") });
  });

  /** Posts the report to the webview and resolves on its "rendered" reply (the suite's timeout bounds a hang). */
  async function show(view: ReportView): Promise<void> {
    const rendered = new Promise<void>((resolve, reject) => (onRendered = { resolve, reject }));
    try {
      await page.addScriptTag({ content: `window.postMessage(${JSON.stringify({ v: PROTOCOL_VERSION, type: "report", report: view })}, "*");` });
      await rendered;
    } finally {
      onRendered = undefined;
    }
  }

  it("reads every number exactly as the CodeLens, the diagnostic, the text, Markdown and HTML exports do", async () => {
    const run = libraryRun(LIBRARY);
    const { report, view } = buildReportModel([run], 0.05);
    await show(view);
    const money = skillResults(run, view).find((r) => r.name === "money")!;
    const rae = signed(money.rae);
    const ci = interval(money.low, money.high);
    const p = pValue(money.p);
    const holm = pValue(money.pHolm);
    const row = page.locator("#skills-table tbody tr[data-skill='money'] td");
    const cells = await row.allTextContents();
    assert.ok(cells.includes(rae) && cells.includes(ci) && cells.includes(p) && cells.includes(holm), `webview row: ${cells.join(" | ")}`);
    const headline = await page.locator("#headline-rae .card-value").textContent();
    assert.equal(headline, signed(view.headline.rae.value));
    const lens = lensTitle(money, false);
    const diagnostic = verdictMessage(money, false)!;
    const text = renderText(report);
    const markdown = renderMarkdown(report);
    const html = renderHtml(report);
    for (const [where, out] of Object.entries({ lens, diagnostic, text, markdown, html })) {
      assert.ok(out.includes(rae), `${where} has RAE ${rae}`);
      assert.ok(out.includes(ci), `${where} has the interval ${ci}`);
    }
    for (const [where, out] of Object.entries({ diagnostic, text, markdown, html })) assert.ok(out.includes(holm), `${where} has Holm p ${holm}`);
    for (const [where, out] of Object.entries({ text, markdown, html })) assert.ok(out.includes(headline!), `${where} has the headline RAE ${headline}`);
    assert.match(lens, /^RAE \u22120\.50 \[\u22120\.\d\d, \u22120\.\d\d\] · 0 rescued · 5 harmed · model-one on synthetic in a library of 3 skills$/);
    // The multiplicity note, word for word, in the report, the diagnostic and the exports.
    const note = "harmful alone (p 0.031); inconclusive among 3 skills (Holm p 0.094)";
    assert.equal(await page.locator("#skills-table tr[data-skill='money'] .note").textContent(), note);
    for (const [where, out] of Object.entries({ diagnostic, text, markdown: markdown.replace(/\\/g, ""), html })) assert.ok(out.includes(note), `${where} carries the note`);
    assert.deepEqual(pageErrors, []);
  });

  it("explains itself: a definition under every card, '?' opens the explainer from the keyboard, the pair tables and facts", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY)], 0.05);
    await show(view);
    assert.equal(await page.locator(".card .definition").count(), 5);
    assert.equal(await page.locator("#explainer").isHidden(), true);
    await page.locator("#headline-lift button.explain").focus();
    await page.keyboard.press("Enter");
    await page.locator("#explainer").waitFor({ state: "visible" });
    assert.equal(await page.locator("#headline-lift button.explain").getAttribute("aria-expanded"), "true");
    const explainer = (await page.locator("#explainer").textContent()) ?? "";
    assert.match(explainer, /What the pair table means/);
    assert.match(explainer, /Why the aggregate lift misleads[\s\S]*lift \+0\.14 = difficulty gap \+0\.30/);
    assert.match(explainer, /What Holm does[\s\S]*money has p 0\.031 on its own and Holm p 0\.094 among 3 skills/);
    await page.keyboard.press("Escape");
    await page.locator("#explainer").waitFor({ state: "hidden" });
    const subsets = await page.locator("#subsets-table tbody tr").allTextContents();
    assert.equal(subsets.length, 3);
    assert.match(subsets[2]!, /not retrieved \(NRAE\)/);
    assert.match((await page.locator("#facts").textContent()) ?? "", /selection term \+0\.30/);
    assert.match((await page.locator("#headline-flips .card-detail").textContent()) ?? "", /13 passed and 2 failed both ways/);
  });

  it("sorts a table by any column, from the keyboard, with aria-sort", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY)], 0.05);
    await show(view);
    const names = () => page.locator("#skills-table tbody tr .skill-name").allTextContents();
    assert.deepEqual(await names(), ["money", "lists", "units"], "most harmful first (RAE ascending)");
    await page.locator("#skills-table th[data-key='name'] button").focus();
    await page.keyboard.press("Enter");
    assert.deepEqual(await names(), ["lists", "money", "units"]);
    assert.equal(await page.locator("#skills-table th[data-key='name']").getAttribute("aria-sort"), "ascending");
    await page.keyboard.press("Enter");
    assert.deepEqual(await names(), ["units", "money", "lists"]);
    await page.locator("#skills-table th[data-key='harmed'] button").click();
    assert.equal((await names())[2], "money", "by harmed, ascending: money's 5 come last");
    assert.equal(await page.locator("#skills-table th[data-key='name']").getAttribute("aria-sort"), "none");
  });

  it("redraws the chart on each theme change (Dark Modern → Light HC → Dark HC): its axis text takes the new foreground, the quadrants stay drawn", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY)], 0.05);
    await show(view);
    const canvas = page.locator("#scatter-canvas");
    assert.equal(await canvas.getAttribute("data-tick-color"), DARK["--vscode-foreground"]);
    const hatched = async () =>
      page.evaluate(`(() => {
        const c = document.getElementById("scatter-canvas");
        const a = JSON.parse(c.dataset.area);
        const ctx = c.getContext("2d");
        const r = c.width / c.clientWidth;
        // The bottom-right quadrant (lift > 0, RAE < 0): count pixels that are painted (hatch, tint, border).
        const img = ctx.getImageData(Math.round((a.x0 + 4) * r), Math.round((a.y0 + 4) * r), Math.round((a.right - a.x0 - 8) * r), Math.round((a.bottom - a.y0 - 8) * r)).data;
        let painted = 0;
        for (let i = 3; i < img.length; i += 4) if (img[i] > 0) painted++;
        return painted / (img.length / 4);
      })()`);
    assert.ok(((await hatched()) as number) > 0.1, "the disagreement quadrant is hatched");
    await page.evaluate(`document.documentElement.setAttribute("style", ${JSON.stringify(styleOf(LIGHT_HC))}); document.body.className = "vscode-high-contrast vscode-high-contrast-light";`);
    await page.waitForFunction(`document.getElementById("scatter-canvas")?.dataset.tickColor === ${JSON.stringify(LIGHT_HC["--vscode-foreground"])}`, undefined, { timeout: 30_000 });
    assert.equal(await canvas.getAttribute("data-quadrant-color"), LIGHT_HC["--vscode-editorWarning-foreground"]);
    assert.ok(((await hatched()) as number) > 0.1, "still hatched in high contrast");
    // Dark Modern → Light High Contrast → Dark High Contrast: each switch redraws with that theme's colours.
    await page.evaluate(`document.documentElement.setAttribute("style", ${JSON.stringify(styleOf(DARK_HC))}); document.body.className = "vscode-high-contrast";`);
    await page.waitForFunction(`document.getElementById("scatter-canvas")?.dataset.tickColor === ${JSON.stringify(DARK_HC["--vscode-foreground"])}`, undefined, { timeout: 30_000 });
    assert.equal(await canvas.getAttribute("data-quadrant-color"), DARK_HC["--vscode-editorWarning-foreground"]);
    assert.ok(((await hatched()) as number) > 0.1, "still hatched in dark high contrast");
    assert.equal(await canvas.getAttribute("aria-describedby"), "skills-table", "the table is the chart's text alternative");
  });

  it("links points to table rows, and says why in a sentence when there is nothing to plot", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY)], 0.05);
    await show(view);
    const empty = { ...view, points: view.points.map((p) => ({ ...p, lift: null })) };
    await show(empty);
    assert.equal(await page.locator("#scatter-canvas").count(), 0, "no empty chart");
    assert.match((await page.locator("#scatter-empty").textContent()) ?? "", /No skill has both numbers the figure needs\. 0 of 3 have no RAE .* 3 have no lift/);
  });

  it("shows the stale banner with Show latest, and keeps the scroll position when the report re-renders", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY)], 0.05);
    await show(view);
    await page.evaluate("window.scrollTo(0, 400)");
    await show({ ...view, stale: { reason: "a newer run of money exists.", latestRunFile: "/runs/new.jsonl", skillFile: "/skills/money/SKILL.md" } });
    assert.equal(await page.evaluate("Math.round(window.scrollY)"), 400);
    assert.match((await page.locator("#stale").textContent()) ?? "", /Out of date: a newer run of money exists\./);
    await page.locator("#stale button", { hasText: "Show latest" }).click();
    assert.ok(posted.some((m) => m.type === "showLatest"));
    await page.locator("#stale button", { hasText: "Evaluate again" }).click();
    assert.ok(posted.some((m) => m.type === "evaluateAgain"));
  });

  it("lays out Compare Models as skills × models", async () => {
    const { view } = buildReportModel([libraryRun(LIBRARY, { model: "model-a" }), libraryRun(LIBRARY.map((s) => ({ ...s, rescued: s.harmed, harmed: s.rescued })), { model: "model-b" })], 0.05);
    await show(view);
    const heads = await page.locator("#matrix-table thead th").allTextContents();
    assert.deepEqual(heads, ["Skill", "model-a", "model-b"]);
    const money = await page.locator("#matrix-table tr[data-skill='money'] td").allTextContents();
    assert.match(money[0]!, /^\u22120\.50\[/);
    assert.match(money[1]!, /^\+0\.50\[/);
  });
});
