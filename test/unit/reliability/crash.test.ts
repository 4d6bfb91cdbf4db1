/**
 * Reliability: the CLI is SIGKILLed at several seeded random points of a run against a server with latency,
 * then `--resume`d each time. The final run file holds every task × condition × sample exactly once and the
 * report equals an uninterrupted run's.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { essence } from "../cli/harness.js";
import { runCli, runFileLines, startCli, tempDir } from "./cli-process.js";
import { mathScenario, SCENARIO_SKILLS, writeScenarioSkills, writeScenarioTasks } from "./math-scenario.js";
import { mulberry32 } from "../../../src/core/stats/bootstrap.js";

const KEY = "sk-test-crash-0000";


function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, "utf8");
  return text.split("\n").length - 1;
}

const VARIANTS = [
  { name: "paired design", extra: [] as string[], samples: 1, design: "paired" as const, seed: 2026 },
  { name: "RAE-only design, 2 samples", extra: ["--rae-only", "--samples", "2"], samples: 2, design: "rae-only" as const, seed: 7 },
];

describe("reliability: SIGKILL at random points, --resume each time", () => {
  const n = 30;
  const scenario = mathScenario({ n, seed: 33 });
  let ws: string;
  let server: ScriptedServer;

  before(async () => {
    ws = tempDir("sf-rel-crash-");
    writeScenarioSkills(path.join(ws, "skills"));
    writeScenarioTasks(scenario, path.join(ws, "tasks.jsonl"));
    server = await startScriptedServer({ script: scenario.script, latencyMs: 60 });
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  for (const variant of VARIANTS) {
    it(`${variant.name}: every run exactly once and the uninterrupted run's report`, async () => {
      const tag = variant.design + variant.samples;
      const args = (out: string, resume: boolean) => [
        "run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--concurrency", "4", ...variant.extra, "--out", out, ...(resume ? ["--resume"] : []),
      ];
      const env = { cwd: ws, apiKey: KEY, baseUrl: server.url };
      const straight = await runCli([...args(`runs/straight-${tag}.jsonl`, false), "--cache-dir", `cache-straight-${tag}`], env);
      assert.equal(straight.code, 0, straight.stderr);

      const out = path.join(ws, `runs/killed-${tag}.jsonl`);
      const expected = scenario.tasks
        .flatMap((t) => {
          const retrieved = t.loads.some((l) => (SCENARIO_SKILLS as readonly string[]).includes(l));
          const conditions = variant.design === "paired" || retrieved ? ["enabled", "disabled"] : ["enabled"];
          return conditions.flatMap((c) => Array.from({ length: variant.samples }, (_, k) => `${t.task.id}|${c}|${k}`));
        })
        .sort();
      const total = expected.length + 1; // header + one line per run
      const rand = mulberry32(variant.seed);
      const kills: string[] = [];
      // Kill points: a random delay after start (may land before the header), then random record counts.
      const targets = [{ afterMs: Math.floor(rand() * 600) }, ...Array.from({ length: 4 }, () => ({ lines: 2 + Math.floor(rand() * (total - 3)) }))].sort(
        (a, b) => ("lines" in a ? a.lines : 0) - ("lines" in b ? b.lines : 0),
      );
      let attempt = 0;
      for (const target of targets) {
        const run = startCli(args(out, attempt++ > 0), env);
        let finished = false;
        void run.done.then(() => (finished = true));
        if ("afterMs" in target) await sleep(target.afterMs);
        else while (!finished && lineCount(out) < target.lines) await sleep(5);
        if (finished) {
          kills.push("finished before the kill point");
          continue;
        }
        run.child.kill("SIGKILL");
        const r = await run.done;
        assert.equal(r.signal, "SIGKILL", `attempt ${attempt} was killed (stderr: ${r.stderr})`);
        kills.push(`killed at ${lineCount(out)} lines`);
      }
      assert.ok(kills.filter((k) => k.startsWith("killed")).length >= 3, `at least three kills landed mid-run: ${kills.join("; ")}`);

      const final = await runCli(args(out, true), env);
      assert.equal(final.code, 0, final.stderr);

      const lines = runFileLines(out);
      assert.deepEqual(lines.filter((l) => "invalid" in l), [], "no torn or invalid line is left in the file");
      assert.equal(lines.filter((l) => l.type === "header").length, 1, "exactly one header");
      const keys = lines.filter((l) => l.type === "run").map((l) => `${String(l.taskId)}|${String(l.condition)}|${String(l.sample)}`);
      assert.deepEqual([...keys].sort(), expected, `every task × condition × sample exactly once (${kills.join("; ")})`);

      const a = await runCli(["report", `runs/straight-${tag}.jsonl`, "--format", "json"], { cwd: ws });
      const b = await runCli(["report", out, "--format", "json"], { cwd: ws });
      assert.equal(b.code, 0, b.stderr);
      assert.deepEqual(essence(b.stdout), essence(a.stdout));
    });
  }
});
