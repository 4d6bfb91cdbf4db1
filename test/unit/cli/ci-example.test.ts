import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, it } from "node:test";
import { parse } from "yaml";
import { runAction } from "../../support/github-action.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript } from "../../support/scripts.js";
import { FAKE_KEY, repoRoot, spawnCollect, tempWorkspace } from "./harness.js";

/**
 * The README's GitHub Actions example, run as CI would run it: every step of the shard job once per matrix cell, then
 * the report job's steps in order, against the scripted model. Each `uses:` of this repository's action runs
 * action.yml's own steps (test/support/github-action.ts: inputs as INPUT_*, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
 * GITHUB_ACTION_PATH = this repository, whose built dist/cli.js the action runs). GitHub's own actions (checkout,
 * download-artifact) have nothing to check here: the jobs share one folder, which is what download-artifact's
 * merge-multiple gives the report job.
 */
interface Step {
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
}
interface Workflow {
  jobs: { shard: { strategy: { matrix: { model: string[]; shard: number[] } }; steps: Step[] }; report: { needs: string; steps: Step[] } };
}

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const block = /<!-- ci-matrix -->\s*```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
const isOurs = (s: Step) => /(^|\/)skill-following@/.test(s.uses ?? "");

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
});
after(async () => {
  await server?.close();
});

const expand = (text: string, vars: Record<string, string>) => text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => vars[name] ?? `<unset ${name}>`);
const expandAll = (o: Record<string, unknown> | undefined, vars: Record<string, string>) => Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, expand(String(v), vars)]));

/** One step of a job: this repository's action through action.yml, a `run:` through bash, GitHub's own actions skipped. */
async function step(s: Step, vars: Record<string, string>, summary: string) {
  const env = { PATH: process.env.PATH ?? "", HOME: ws, OPENAI_BASE_URL: server.url, ...expandAll(s.env, vars) };
  if (isOurs(s)) return runAction(repoRoot, expandAll(s.with, vars), { workspace: ws, env, summary });
  if (s.run) {
    const r = await spawnCollect("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", expand(s.run, vars)], { cwd: ws, env: { ...env, GITHUB_STEP_SUMMARY: summary } });
    return { ...r, code: r.code ?? -1, outputs: {} as Record<string, string> };
  }
  return undefined;
}

it("the README installs this package from no registry: an npm install of it is of the tarball npm pack makes (other tools, e.g. @openai/codex, come from the registry)", () => {
  const text = readme.replace(/\n\s*/g, " "); // an inline command may wrap
  const installs = [...text.matchAll(/\b(npm (?:install|i)\b[^`]*|npx [^`]*)/g)].map((m) => m[1]!);
  assert.ok(installs.some((line) => /\.tgz\b/.test(line)), "the README shows how to install the tarball");
  for (const line of installs) {
    const packages = line.split(/\s+/).slice(line.startsWith("npx") ? 1 : 2).filter((w) => !w.startsWith("-"));
    assert.ok(packages.length > 0, `an install that names nothing: ${line}`);
    for (const p of packages) assert.ok(/\.tgz$/.test(p) || !/^skill-following(@|$)/.test(p), `installs skill-following from the registry: ${line}`);
  }
  assert.doesNotMatch(text, /npx skill-following\b|npm (install|i) (--global |-g )?skill-following\b/);
});

it("the README's CI matrix runs through the action: one job per shard × model, a report job that merges, publishes the Markdown report and gates", async () => {
  assert.ok(block, "README has a <!-- ci-matrix --> yaml block");
  const wf = parse(block) as Workflow;
  const { model: models, shard: shards } = wf.jobs.shard.strategy.matrix;
  assert.ok(models.length >= 2 && shards.length >= 2, "a matrix over models and shards");
  assert.equal(wf.jobs.report.needs, "shard");
  const all = [...wf.jobs.shard.steps, ...wf.jobs.report.steps];
  assert.ok(!all.some((s) => /npm (install|i)\b|npx /.test(s.run ?? "")), "no install step: the action brings its own CLI");
  assert.deepEqual(wf.jobs.report.steps.filter(isOurs).map((s) => s.with?.command), [...models.map(() => "merge"), "report"]);

  for (const model of models) {
    for (const shard of shards) {
      const vars = { "matrix.model": model, "matrix.shard": String(shard), "secrets.OPENAI_API_KEY": FAKE_KEY };
      const summary = path.join(ws, `summary-${model}-${shard}.md`);
      for (const s of wf.jobs.shard.steps) {
        const r = await step(s, vars, summary);
        if (!r) continue;
        assert.equal(r.code, 0, `${JSON.stringify(s.with)}\n${r.stderr}`);
        assert.match(r.stderr, new RegExp(`shard ${shard}/${shards.length}`));
        assert.equal(r.outputs["exit-code"], "0");
        assert.ok(existsSync(path.join(ws, r.outputs["run-file"] ?? "?")), `the run file the artifact step uploads: ${r.outputs["run-file"]}`);
      }
    }
  }
  assert.equal(server.calls, models.length * N * 3, "each task once per model: 2 enabled turns + 1 disabled");

  const summary = path.join(ws, "summary.md");
  const codes: number[] = [];
  let gate: Awaited<ReturnType<typeof step>>;
  for (const s of wf.jobs.report.steps) {
    // A failed step stops the job, except for steps marked `if: always()`.
    if (codes.some((c) => c !== 0) && s.if !== "always()") continue;
    const r = await step(s, {}, summary);
    if (!r) continue;
    codes.push(r.code);
    if (s.with?.command === "report") gate = r;
    else assert.equal(r.code, 0, `${JSON.stringify(s.with ?? s.run)}\n${r.stderr}`);
  }
  assert.ok(gate, "the report step ran");
  assert.equal(gate.code, 3, `the gate holds: careless-sums harms every task\n${gate.stderr}`);
  assert.equal(gate.outputs["exit-code"], "3");
  assert.deepEqual(codes, [...models.map(() => 0), 3], "the merges pass; the report step fails the job with exit code 3");
  for (const model of models) assert.ok(existsSync(path.join(ws, "merged", `${model}.jsonl`)), `merged/${model}.jsonl`);
  const report = readFileSync(path.join(ws, "report.md"), "utf8");
  const plain = report.replace(/\\(.)/g, "$1"); // Markdown escapes
  for (const model of models) assert.ok(plain.includes(model), `the report names ${model}`);
  assert.match(plain, /careless-sums \| 15 \| 0 \| 15 \|/);
  assert.equal(readFileSync(summary, "utf8"), report, "the job summary is the report, written before the gate failed the step");
});
