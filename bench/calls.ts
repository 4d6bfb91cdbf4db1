/**
 * Model calls vs the minimum, counted at the scripted server (DESIGN §5): a first paired run costs exactly the
 * script's turns (2n when every enabled run is one turn), RAE-only n_enabled_turns + n_cond, an unchanged
 * re-run 0, a skill-body edit only the requests after that skill was loaded, a description edit (catalog
 * mode) only the enabled side.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ChatCompletionRequestBody } from "../test/support/scripted-server.js";
import { callsAfterLoad, enabledCalls, expectedCalls, mathScenario, retrievedCount, writeScenarioSkills } from "../test/unit/reliability/math-scenario.js";
import { runEngine } from "./engine.js";
import type { BenchRow } from "./types.js";

export async function benchCalls(n = 40): Promise<BenchRow[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-bench-calls-"));
  const scenario = mathScenario({ n, seed: 3 });
  const oneTurn = mathScenario({ n, seed: 3, oneTurn: true });
  const server = await startScriptedServer({ script: scenario.script });
  const oneTurnServer = await startScriptedServer({ script: oneTurn.script });
  const skillsDir = writeScenarioSkills(path.join(tmp, "skills"));
  const rows: BenchRow[] = [];
  let seq = 0;
  const measure = async (
    metric: string,
    expected: number,
    opts: { cacheDir?: string; design?: "paired" | "rae-only"; note: string; oneTurn?: boolean; every?: [string, (r: ChatCompletionRequestBody) => boolean] },
  ) => {
    const s = opts.oneTurn ? oneTurnServer : server;
    s.reset();
    const result = await runEngine({
      baseUrl: s.url,
      skillsDir,
      taskSet: (opts.oneTurn ? oneTurn : scenario).taskSet,
      runFile: path.join(tmp, `run-${++seq}.jsonl`),
      concurrency: 8,
      ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
      ...(opts.design ? { design: opts.design } : {}),
    });
    let note = result.failedRuns > 0 ? `${opts.note}; ${result.failedRuns} runs FAILED` : opts.note;
    // Not only how many: which. Every re-issued request must be one the edit really changed.
    if (opts.every) note += `; ${opts.every[0]}: ${s.requests.every(opts.every[1]) ? "yes" : "NO"}`;
    rows.push({ group: "model calls", metric, value: s.calls, reference: expected, unit: "calls", note });
  };
  try {
    const cacheA = path.join(tmp, "cache-a");
    const nCond = retrievedCount(scenario);
    await measure("first run, paired, 1 turn per run", 2 * n, { cacheDir: path.join(tmp, "cache-1"), oneTurn: true, note: `2n, n=${n}` });
    await measure("first run, paired, scripted turns", expectedCalls(scenario), { cacheDir: cacheA, note: `n + enabled turns (${enabledCalls(scenario)})` });
    await measure("unchanged re-run", 0, { cacheDir: cacheA, note: "all from the response cache" });
    const skill = "carry-digits";
    const file = path.join(skillsDir, skill, "SKILL.md");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, `${original}\nAlways write the carried digit above the next column.\n`);
    const hasEditedBody = (r: ChatCompletionRequestBody) => r.tools !== undefined && r.messages.some((m) => m.role === "tool" && (m.content ?? "").includes("carried digit above"));
    await measure(`one skill body edited (${skill})`, callsAfterLoad(scenario, skill), { cacheDir: cacheA, note: "requests after that skill was loaded", every: ["each holds the new body", hasEditedBody] });
    writeFileSync(file, original.replace(/^description: .*$/m, "description: Column addition with carries; use for any multi-digit sum."));
    const hasNewDescription = (r: ChatCompletionRequestBody) => r.tools !== undefined && (r.messages[0]?.content ?? "").includes("any multi-digit sum");
    await measure("one description edited (catalog)", enabledCalls(scenario), { cacheDir: cacheA, note: "enabled side only", every: ["each is enabled, with the new description", hasNewDescription] });
    writeFileSync(file, original);
    await measure("first run, RAE-only", expectedCalls(scenario, "rae-only"), { cacheDir: path.join(tmp, "cache-b"), design: "rae-only", note: `enabled turns + n_cond (${nCond})` });
  } finally {
    await server.close();
    await oneTurnServer.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}
