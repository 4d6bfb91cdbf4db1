/** What a person does in code-server's UI, for the e2e tests: the palette, quick picks, the report's frame. */
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { REPO_ROOT } from "../integration/support/code-server.js";

export const SHOTS = path.join(REPO_ROOT, "test-results", "e2e");
export const DOCS_IMAGES = path.join(REPO_ROOT, "docs", "images");

/**
 * Re-checks `probe` every `everyMs` until it gives a value (not undefined or false); fails naming `what` after
 * `polls` checks. Counted in checks, never by the clock: on a loaded machine each check only comes later. For UI
 * state no event announces (rows a tree drew, a file the extension wrote).
 */
export async function until<T>(page: Page, what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, polls = 300, everyMs = 100): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (i >= polls) throw new Error(`still not ${what} after ${polls} checks`);
    await page.waitForTimeout(everyMs);
  }
}

/** A screenshot in test-results/e2e/; with SF_UPDATE_DOCS_IMAGES=1 also the README's picture of that name. */
export async function shot(target: Page | { screenshot(o: { path: string }): Promise<unknown> }, name: string): Promise<void> {
  const file = path.join(SHOTS, `${name}.png`);
  await target.screenshot({ path: file });
  if (process.env.SF_UPDATE_DOCS_IMAGES === "1") copyFileSync(file, path.join(DOCS_IMAGES, `${name}.png`));
}

export async function palette(page: Page, command: string): Promise<void> {
  const input = page.locator(".quick-input-widget input");
  // F1 can be swallowed while focus sits in a notification or a closing quick pick (seen on a loaded machine), and
  // right after the workbench opens the extension's commands may not be registered yet: close and try again.
  // A box that is still closing (the last command's palette, an input box just answered) would take the keys typed
  // for this one: wait until it has gone, as a person does before pressing F1.
  await input.waitFor({ state: "hidden", timeout: 10_000 }).catch(() => {});
  await traceFocus(page);
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    try {
      await input.waitFor({ state: "visible", timeout: 6_000 });
      await input.fill(`>${command}`);
      // Enter runs the focused row: wait until that is the command (not a recently used one above it, still focused).
      await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: command }).first().waitFor({ timeout: 8_000 });
      // The palette closes when it loses the focus, and the Welcome page takes it: whenever the focus comes back to
      // it (a quick input closing hands it back), it focuses its selected step again 250 ms later, seconds late on a
      // loaded machine. Seen in traceFocus's log: F1, the palette focused, the step focused, Enter on the step. So the
      // Enter counts only if it reached the palette; else the palette is opened again (an Enter on the step only
      // selects the step it had).
      if (!(await enterReaches(page, () => page.keyboard.press("Enter")))) throw new Error(`the Enter for ${command} went elsewhere: the palette lost the focus`);
      return;
    } catch (err) {
      if (attempt >= 8) throw err;
      console.log(`palette: attempt ${attempt} at ${command} failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); trying again`);
      await page.keyboard.press("Escape");
      await focusNeutral(page);
    }
  }
}

/**
 * Enter in the open quick input: the box is focused, Enter is pressed in it, and it counts only once it reached the
 * box (traceFocus counts them), as a person presses again when nothing happened. A bare key press goes wherever the
 * focus is: the Welcome page takes the focus back 250 ms after it got it (late under load), and an Enter meant for
 * "Another OpenAI-compatible server…" went to the page's step while the pick stayed open with that row focused.
 */
export async function submit(page: Page): Promise<void> {
  await traceFocus(page);
  const input = page.locator(".quick-input-widget input");
  for (let attempt = 1; ; attempt++) {
    if (await enterReaches(page, () => input.press("Enter"))) return;
    if (attempt >= 5) throw new Error("Enter never reached the quick input: the focus was elsewhere each time");
    console.log(`submit: Enter ${attempt} went elsewhere (the focus was taken); pressing it again in the box`);
  }
}

/** Presses Enter by `press`; true when it reached a quick input (counted by traceFocus's listener). */
async function enterReaches(page: Page, press: () => Promise<void>): Promise<boolean> {
  const count = () => page.evaluate<number>("globalThis.__sfQuickEnters ?? 0");
  const before = await count();
  await press();
  return (await count()) > before;
}

/** Types `text` into the open input box titled `title` (waits for that box) and presses Enter in it. */
export async function answerInput(page: Page, title: string, text: string, timeout = 30_000): Promise<void> {
  await page.locator(".quick-input-widget .quick-input-title", { hasText: title }).waitFor({ timeout });
  await page.locator(".quick-input-widget input").fill(text);
  await submit(page);
}

/** Opens a workspace file from Quick Open by a path fragment (`skills/x/SKILL.md`), waiting for its editor tab. */
export async function openFile(page: Page, fragment: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(fragment);
  await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: path.basename(fragment) }).first().waitFor();
  await submit(page);
  await page.locator(".tab", { hasText: path.basename(fragment) }).first().waitFor();
}

/** Brings SKILL.md to the front and puts the cursor at the start of a 1-based line (Ctrl+G), so that line is in view. */
export async function goToLine(page: Page, line: number): Promise<void> {
  await page.locator(".tab", { hasText: "SKILL.md" }).first().click();
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`:${line}`);
  await submit(page);
}

/**
 * Moves focus out of a notification or a closing quick pick without pressing anything: a click in the empty middle
 * of the activity bar. A click in the editor area is not neutral (on the Welcome page it can land on a walkthrough
 * step or one of its command links and start a flow of its own).
 */
export async function focusNeutral(page: Page): Promise<void> {
  const bar = page.locator(".part.activitybar");
  const box = await bar.boundingBox().catch(() => null);
  if (!box) return;
  await bar.click({ position: { x: box.width / 2, y: box.height * 0.6 } }).catch(() => {});
}

/**
 * Types into the open quick pick and accepts the first row that shows `text`. Enter accepts the focused row, so it
 * waits until that row has the focus: a row that is drawn but not yet focused (the list still filtering, on a loaded
 * machine) would take Enter to another row, or to none, and VS Code then hands the extension no pick at all.
 */
export async function pick(page: Page, text: string, timeout = 30_000): Promise<void> {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout });
  await input.fill(text);
  await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: text }).first().waitFor({ timeout });
  await submit(page);
}

/** The quick input's title, to know which question is on screen. */
export async function quickInputTitle(page: Page, timeout = 30_000): Promise<string> {
  const title = page.locator(".quick-input-widget .quick-input-title");
  await title.waitFor({ state: "visible", timeout });
  return (await title.textContent()) ?? "";
}

/**
 * The report's document: the innermost webview frame holding `selector` (and `text`, when given). `waitMs` is the
 * patience on an idle machine, spent as a count of checks 250 ms apart: on a loaded machine each check comes later.
 */
export async function reportFrame(page: Page, selector: string, text?: string | RegExp, waitMs = 90_000): Promise<Frame> {
  const polls = Math.ceil(waitMs / 250);
  for (let i = 0; ; i++) {
    for (const f of page.frames()) {
      try {
        const loc = f.locator(selector).first();
        if ((await loc.count()) === 0) continue;
        if (text === undefined) return f;
        const content = (await loc.textContent({ timeout: 200 })) ?? "";
        if (typeof text === "string" ? content.includes(text) : text.test(content)) return f;
      } catch {
        // not this frame, or not rendered yet
      }
    }
    if (i >= polls) {
      await page.screenshot({ path: path.join(SHOTS, "timeout.png") });
      throw new Error(`no report webview with ${selector}${text ? ` showing ${String(text)}` : ""} after ${polls} checks (see test-results/e2e/timeout.png)`);
    }
    await page.waitForTimeout(250);
  }
}

/** Every notification text shown so far that is still on screen (toasts and the center). */
export async function notificationTexts(page: Page): Promise<string[]> {
  return page.locator(".notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message").allTextContents();
}

/** Files named `name` below `dir` (a code-server user-data folder's logs, say). */
function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const p = path.join(dir, entry);
    return statSync(p).isDirectory() ? findFiles(p, name) : entry === name ? [p] : [];
  });
}

/**
 * Records in the page where the focus goes and where each key lands, in order (capturing listeners, numbered, the
 * last 200 events; no clock, so nothing here depends on how fast a loaded machine is), for
 * diagnose(): a key that went to another element than the one the test meant is then visible in a failure. Counts
 * the Enters that reached a quick input, for submit() and palette(). Installing it twice changes nothing.
 */
async function traceFocus(page: Page): Promise<void> {
  // A string, not a function: tsx wraps named inner functions in a helper that does not exist in the page.
  await page.evaluate(`(() => {
    if (globalThis.__sfFocus) return;
    const log = (globalThis.__sfFocus = []);
    let seq = 0;
    const name = (t) => {
      if (!(t instanceof Element)) return String(t);
      const label = t.getAttribute("aria-label") ?? t.getAttribute("data-step-id") ?? "";
      return t.tagName.toLowerCase() + "." + [...t.classList].slice(0, 3).join(".") + (label ? "[" + label.slice(0, 50) + "]" : "");
    };
    const add = (line) => {
      log.push("#" + ++seq + " " + line);
      if (log.length > 200) log.shift();
    };
    document.addEventListener("focusin", (e) => add("focus " + name(e.target)), true);
    globalThis.__sfQuickEnters = 0;
    document.addEventListener("keydown", (e) => {
      add("key " + e.key + " on " + name(e.target));
      if (e.key === "Enter" && e.target instanceof Element && e.target.closest(".quick-input-widget")) globalThis.__sfQuickEnters++;
    }, true);
  })()`);
}

/**
 * For a step that failed: a screenshot (test-results/e2e/<name>-failure.png), and a text for the failure's message,
 * because CI shows the failing tests' messages, not the files' output: whether a quick input is on screen (its title
 * and rows), the notifications, where the focus and the keys went (traceFocus), and the tail of the extension's log.
 */
async function diagnose(page: Page, userDataDir: string, name: string): Promise<string> {
  await shot(page, `${name}-failure`).catch(() => {});
  const widget = page.locator(".quick-input-widget");
  const shown = await widget.isVisible().catch(() => false);
  const title = shown ? await widget.locator(".quick-input-title").textContent({ timeout: 1000 }).catch(() => null) : null;
  const rows = shown ? await widget.locator(".monaco-list-row").allTextContents().catch(() => []) : [];
  const notes = await notificationTexts(page).catch(() => []);
  const focus = await page.evaluate<string[]>("globalThis.__sfFocus?.slice(-40) ?? []").catch(() => []);
  const lines = [`[${name}] quick input ${shown ? `shown, titled ${JSON.stringify(title)}, rows ${JSON.stringify(rows)}` : "hidden"}; notifications: ${JSON.stringify(notes)}`];
  if (focus.length > 0) lines.push(`[${name}] focus and keys, last ${focus.length}:\n${focus.join("\n")}`);
  for (const f of findFiles(path.join(userDataDir, "logs"), "Skill Following.log")) lines.push(`[${name}] the extension's log (${f}), last 40 lines:\n${readFileSync(f, "utf8").split("\n").slice(-40).join("\n")}`);
  return lines.join("\n");
}

/** Runs a test's body; when it fails, the failure also says what diagnose() saw (a screenshot is left as `name`-failure.png). */
async function withDiagnosis(session: () => { page: Page | undefined; userDataDir: string | undefined }, name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    const { page, userDataDir } = session();
    const seen = page && userDataDir ? await diagnose(page, userDataDir, name).catch((d: unknown) => `(diagnose failed: ${String(d)})`) : "";
    throw Object.assign(new Error(`${e instanceof Error ? e.message : String(e)}${seen ? `\n${seen}` : ""}`), { cause: e });
  }
}

/**
 * node:test's `it` for a test file driving one code-server session: a test that fails leaves a screenshot
 * (`<prefix>-<test>-failure.png`) and says in its failure what was on screen, where the focus and keys went, and the
 * tail of the extension's log (CI shows the failures' messages, not the files' output).
 */
export function diagnosedIt(prefix: string, session: () => { page: Page | undefined; server: { userDataDir: string } | undefined }) {
  const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40).replace(/^-|-$/g, "");
  return (name: string, fn: () => Promise<void>) =>
    it(name, () =>
      withDiagnosis(
        () => {
          const { page, server } = session();
          return { page, userDataDir: server?.userDataDir };
        },
        `${prefix}-${slug(name)}`,
        fn,
      ),
    );
}
