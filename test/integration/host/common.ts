/**
 * What every in-host test module shares: its configuration (baked in at bundle time by bundleHostModule) and the
 * way it reports (a JSON file of facts, written atomically, with the failure recorded instead of thrown, so a
 * failure shows up as a failing assertion with its message, not as a timeout).
 */
import { renameSync, writeFileSync } from "node:fs";

declare const __SF_HOST_CONFIG__: string;

export function hostConfig<T extends { resultsFile: string }>(): T {
  return JSON.parse(__SF_HOST_CONFIG__) as T;
}

/** Runs `body`, then writes `facts` (with `error`: null or the failure, and `steps` when given) to the results file. */
export async function reportFacts(resultsFile: string, facts: Record<string, unknown>, body: () => Promise<void>, steps?: string[]): Promise<void> {
  try {
    await body();
    facts.error = null;
  } catch (err) {
    facts.error = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
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

/**
 * Polls `probe` every 100 ms until it gives a value (not undefined or false). The in-host modules wait on the editor's
 * state this way; the bound is a hang guard whose failure names what never came, not a timing assertion.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
