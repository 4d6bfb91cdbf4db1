import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, it } from "node:test";
import { parse } from "yaml";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript } from "../../support/scripts.js";
import { FAKE_KEY, cli, repoRoot, spawnCollect, tempWorkspace } from "./harness.js";

/**
 * The README's GitHub Actions example, run as CI would run it: every `run:` step that calls the CLI, once per matrix
 * cell, then the report job's steps in order, through a `skill-following` on PATH that is the built CLI, against
 * the scripted model. Steps that only install or move artifacts have nothing to check here (the jobs share one
 * folder, which is what download-artifact's merge-multiple gives the report job).
 */
interface Step {
  run?: string;
  if?: string;
  env?: Record<string, string>;
}
interface Workflow {
  jobs: { shard: { strategy: { matrix: { model: string[]; shard: number[] } }; steps: Step[] }; report: { needs: string; steps: Step[] } };
}

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const block = /<!-- ci-matrix -->\s*```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";

let server: ScriptedServer;
let ws: string;
const N = 15;

before(async () => {
  // Every task: right without skills, wrong after loading `careless-sums` (a skill that harms, significantly).
  server = await startScriptedServer({
    script: taskPlanScript((text) => {
      const m = /Task (\d+): what is (\d+) \+ 1\?/.exec(text);
      if (!m) return undefined;
      const right = boxedAnswer(String(Number(m[2]) + 1));
      return { disabled: right, enabled: [{ loadSkill: "careless-sums" }, { answer: boxedAnswer(String(Number(m[2]) + 2)) }] };
    }),
  });
  ws = tempWorkspace();
  mkdirSync(path.join(ws, "skills", "careless-sums"), { recursive: true });
  writeFileSync(path.join(ws, "skills", "careless-sums", "SKILL.md"), "---\nname: careless-sums\ndescription: Add numbers quickly. Use for any sum.\n---\n# Sums\n\nRound up.\n");
  mkdirSync(path.join(ws, "tasks"));
  const lines = Array.from({ length: N }, (_, i) => JSON.stringify({ id: `t${i}`, kind: "math-answer", prompt: `Task ${i}: what is ${10 + i} + 1?`, answer: String(11 + i) }));
  writeFileSync(path.join(ws, "tasks", "tasks.jsonl"), `${lines.join("\n")}\n`);
  mkdirSync(path.join(ws, "bin"));
  writeFileSync(path.join(ws, "bin", "skill-following"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(path.join(ws, "bin", "skill-following"), 0o755);
});
after(async () => {
  await server?.close();
});

function sh(script: string, extraEnv: Record<string, string>) {
  return spawnCollect("sh", ["-ec", script], {
    cwd: ws,
    env: { PATH: `${path.join(ws, "bin")}:${process.env.PATH ?? ""}`, HOME: ws, OPENAI_BASE_URL: server.url, GITHUB_STEP_SUMMARY: path.join(ws, "summary.md"), ...extraEnv },
  });
}

const expand = (text: string, vars: Record<string, string>) => text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => vars[name] ?? `<unset ${name}>`);

it("the README's CI matrix runs: one job per shard × model, a merge job that publishes the Markdown report and gates", async () => {
  assert.ok(block, "README has a <!-- ci-matrix --> yaml block");
  const wf = parse(block) as Workflow;
  const { model: models, shard: shards } = wf.jobs.shard.strategy.matrix;
  assert.ok(models.length >= 2 && shards.length >= 2, "a matrix over models and shards");
  assert.equal(wf.jobs.report.needs, "shard");
  const cliSteps = (steps: Step[]) => steps.filter((s) => s.run && /\bskill-following\b/.test(s.run) && !/npm install/.test(s.run));

  for (const model of models) {
    for (const shard of shards) {
      for (const step of cliSteps(wf.jobs.shard.steps)) {
        const vars = { "matrix.model": model, "matrix.shard": String(shard), "secrets.OPENAI_API_KEY": FAKE_KEY };
        const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, vars)]));
        const r = await sh(expand(step.run!, vars), env);
        assert.equal(r.code, 0, `${step.run}\n${r.stderr}`);
        assert.match(r.stderr, new RegExp(`shard ${shard}/${shards.length}`));
      }
    }
  }
  assert.equal(server.calls, models.length * N * 3, "each task once per model: 2 enabled turns + 1 disabled");

  const codes: number[] = [];
  for (const step of wf.jobs.report.steps.filter((s) => s.run && !/npm install/.test(s.run))) {
    // A failed step stops the job, except for steps marked `if: always()`.
    if (codes.some((c) => c !== 0) && step.if !== "always()") continue;
    const r = await sh(step.run!, {});
    codes.push(r.code ?? -1);
    if (/skill-following report/.test(step.run!)) assert.equal(r.code, 3, `the gate holds: careless-sums harms every task\n${r.stderr}`);
    else assert.equal(r.code, 0, `${step.run}\n${r.stderr}`);
  }
  for (const model of models) assert.ok(existsSync(path.join(ws, "merged", `${model}.jsonl`)), `merged/${model}.jsonl`);
  const report = readFileSync(path.join(ws, "report.md"), "utf8");
  const plain = report.replace(/\\(.)/g, "$1"); // Markdown escapes
  for (const model of models) assert.ok(plain.includes(model), `the report names ${model}`);
  assert.match(plain, /careless-sums \| 15 \| 0 \| 15 \|/);
  assert.equal(readFileSync(path.join(ws, "summary.md"), "utf8"), report, "the publish step ran after the gate failed the job");
});
