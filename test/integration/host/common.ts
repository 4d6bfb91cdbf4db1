/**
 * What every in-host test module shares: its configuration (baked in at bundle time by bundleHostModule) and the
 * way it reports (a JSON file of facts, written atomically, with the failure recorded instead of thrown, so a
 * failure shows up as a failing assertion with its message, not as a timeout).
 */
import * as vscode from "vscode";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

declare const __SF_HOST_CONFIG__: string;

export function hostConfig<T extends { resultsFile: string }>(): T {
  return JSON.parse(__SF_HOST_CONFIG__) as T;
}

/**
 * Runs `body`, then writes `facts` (with `error`: null or the failure, and `steps` when given) to the results file.
 * With `budgetMs` (a hang guard below the test's own), a body that has not finished by then fails naming its last
 * step and what it was waiting for, so a hang reads as a located failure instead of "no results".
 */
export async function reportFacts(resultsFile: string, facts: Record<string, unknown>, body: () => Promise<void>, steps?: string[], budgetMs?: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const guard =
    budgetMs === undefined
      ? undefined
      : new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            abandoned = true;
            reject(new Error(`hung in step ${steps?.[steps.length - 1] ?? "(none)"}${waiting ? `, waiting for ${waiting}` : ""}`));
          }, budgetMs);
        });
  try {
    await (guard ? Promise.race([body(), guard]) : body());
    facts.error = null;
  } catch (err) {
    facts.error = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
  } finally {
    clearTimeout(timer);
  }
  if (steps) facts.steps = steps;
  const tmp = `${resultsFile}.tmp`;
  writeFileSync(tmp, JSON.stringify(facts, null, 2));
  renameSync(tmp, resultsFile);
}

/** Completions the scripted server has answered so far, read from its control URL (see support/fixture.ts). */
export async function serverCalls(controlUrl: string): Promise<number> {
  const res = await fetch(controlUrl);
  return ((await res.json()) as { calls: number }).calls;
}

/** What the module waits for now, and whether its budget ran out (then every wait stops). */
let waiting: string | undefined;
let abandoned = false;

/**
 * Re-checks `probe` every 100 ms until it gives a value (not undefined or false). The editor's state has no single
 * event to wait on (CodeLens titles, webview renders, tree items), so the wait polls; it has no deadline of its own.
 * The module's budget in reportFacts bounds a hang, and its failure names this wait.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  waiting = what;
  try {
    while (!abandoned) {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`abandoned while waiting for ${what}`);
  } finally {
    waiting = undefined;
  }
}

/**
 * Asks the outer test for a screenshot of the workbench as it is now (runInExtensionHost with `shotsDir` takes it
 * and removes the request), and waits until it is taken. Without a taker it goes on after 15 s: shots are evidence
 * for a reader, never what a test asserts.
 */
export async function requestShot(resultsFile: string, name: string): Promise<void> {
  const request = `${resultsFile}.shot`;
  writeFileSync(request, name);
  for (let waited = 0; existsSync(request) && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
}

/**
 * Sets a skillFollowing setting in the workspace and waits until the extension's own copy of the settings has it.
 * The extension reads that copy, which changes on the configuration event, and under load the event can come after
 * update() resolves: a step that acted at once would still run with the old value. `services` is the extension's
 * exported services (its `config`).
 */
export async function setSetting(services: unknown, key: string, value: string | number | boolean): Promise<void> {
  await vscode.workspace.getConfiguration("skillFollowing").update(key, value, vscode.ConfigurationTarget.Workspace);
  const config = (services as { config: { get(): Record<string, unknown> } }).config;
  await waitFor(`the extension to see ${key} = ${JSON.stringify(value)}`, () => isDeepStrictEqual(config.get()[key], value));
}
