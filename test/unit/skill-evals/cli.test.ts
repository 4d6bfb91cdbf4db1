/**
 * The built CLI on the skill-evals scenario (test/support/skill-evals-scenario.ts): the judge graded three times by a
 * judge scripted to change its mind on chosen expectations, and the skill-creator export checked against
 * skill-creator's documented schemas. Needs `node esbuild.mjs` first.
 *
 * The judge follows the tags (tagJudge) except: "[crash]" (release-notes/2, both outputs) flips on the second grading,
 * and commit-style/1's enabled output ("Fix typo in README [imperative]") flips on the third. Ten graded items, one
 * judged expectation per output; votes per repeat (r0, r1, r2):
 *   release-notes/1 E, D   T T T      release-notes/2 E, D   T F T      release-notes/3 E F F F, D T T T
 *   csv-report/empty E, D  F F F      commit-style/1 E       T T F      commit-style/1 D        T T T
 * Self-agreement: seven unanimous items (1) and three with one dissent (1/3): (7 + 3·1/3)/10 = 0.8.
 * Repeat pass rates 7/10, 5/10, 6/10. Cohen's kappa: (r0, r1) agree 8/10, chance 0.5 → 0.6; (r0, r2) agree 9/10, chance
 * 0.54 → 0.36/0.46; (r1, r2) agree 7/10, chance 0.5 → 0.4. Light's kappa = their mean. Fleiss: P̄ 0.8, p = 18/30,
 * chance 0.52 → 0.28/0.48. Unstable pairs: commit-style/1 (both pass, then harmed on r2) and release-notes/2 (both pass,
 * both fail on r1). RAE over the 7 retrieved pairs 1/7; without the two unstable (both both-pass) 1/5.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { BenchmarkJsonSchema, EvalMetadataSchema, GradingJsonSchema, TimingJsonSchema } from "../../support/skill-creator-schemas.js";
import { agentScript, writeLibrary } from "../../support/skill-evals-scenario.js";
import { tagJudge, withJudge } from "../../support/scripts.js";
import { cli, repoRoot, runCli } from "../cli/harness.js";
import { REFERENCE } from "../../support/example-answers.js";
import { planContext } from "../../support/scripts.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import { loadSkillEvals, type SkillEvalTask } from "../../../src/core/tasks/index.js";

/** Anthropic's skill-creator scripts (aggregate_benchmark.py, eval-viewer/generate_review.py), a shared read-only copy. */
const skillCreatorDir = path.resolve(repoRoot, "../shared/data/interop/skill-creator");
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
type Benchmark = {
  runs: Array<{ eval_id: number; configuration: string; run_number: number; result: Record<string, number> }>;
  run_summary: Record<string, unknown>;
};

const flippingJudge = withJudge(agentScript, (ask, expectation) => {
  const base = tagJudge(ask, expectation);
  const flip = (expectation.includes("[crash]") && ask.seenBefore === 1) || (ask.response === "Fix typo in README [imperative]" && ask.seenBefore === 2);
  return flip ? { passed: !base.passed, evidence: `changed its mind: ${base.evidence}` } : base;
});

describe("CLI: skill evals with --judge-repeats 3 and the skill-creator export", { skip: !existsSync(cli) && "build first (node esbuild.mjs)" }, () => {
  let server: ScriptedServer;
  const cwd = mkdtempSync(path.join(os.tmpdir(), "sf-evals-cli-"));
  const { skillsDir } = writeLibrary(cwd);

  before(async () => {
    server = await startScriptedServer({ script: flippingJudge });
  });
  after(() => server.close());

  it("gives the self-agreement, kappa and unstable pairs the scripted judge implies", async () => {
    const run = await runCli(["run", "--skills", skillsDir, "--tasks", "skill-evals", "--model", "m", "--judge-repeats", "3", "--out", "run.jsonl", "--concurrency", "2"], { cwd, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    // Agent turns 17 + 8; the judge: 10 outputs × 3.
    assert.equal(server.calls, 17 + 8 + 30);
    assert.match(run.stdout, /judge: m, 3 gradings per output; self-agreement 80\.0%/);
    // By default the evaluated model judges: said in the log and under the judge line of the report.
    assert.match(run.stderr, /the judge is the evaluated model \(m\): it grades its own outputs/);
    assert.match(run.stdout, /note: the judge is the evaluated model, so it graded its own outputs/);
    assert.doesNotMatch(run.stderr, /an even number/);
    const report = await runCli(["report", "run.jsonl", "--format", "json"], { cwd, baseUrl: server.url });
    assert.equal(report.code, 0, report.stderr);
    const e = (JSON.parse(report.stdout) as { evaluations: Array<Record<string, unknown>> }).evaluations[0]!;
    const judge = e.judge as { model: string; repeats: number; agreement: number; kappa: number; fleissKappa: number; unstablePairs: string[]; items: number; rae: Record<string, number> };
    assert.equal(judge.model, "m");
    assert.equal(judge.repeats, 3);
    assert.equal(judge.items, 10);
    assert.ok(Math.abs(judge.agreement - 0.8) < 1e-12);
    assert.ok(Math.abs(judge.kappa - (0.6 + 0.36 / 0.46 + 0.4) / 3) < 1e-12, String(judge.kappa));
    assert.ok(Math.abs(judge.fleissKappa - 0.28 / 0.48) < 1e-12);
    assert.deepEqual(judge.unstablePairs, ["commit-style/1", "release-notes/2"]);
    assert.deepEqual(judge.rae, { all: 1 / 7, withoutUnstable: 1 / 5, nAll: 7, nWithoutUnstable: 5 });
    // Majority votes keep the verdicts of a steady judge: the same rescued and harmed tasks.
    const skills = e.skills as Array<{ name: string; harmedTasks: string[] }>;
    assert.deepEqual(skills.find((s) => s.name === "release-notes")!.harmedTasks, ["csv-report/mean", "release-notes/3"]);
    // Each judged run record carries its votes; the expectation passes on the majority.
    const records = readFileSync(path.join(cwd, "run.jsonl"), "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l) as { taskId: string; condition: string; verdict: { expectations: Array<{ votes?: boolean[]; passed: boolean }> } });
    const rn2 = records.find((r) => r.taskId === "release-notes/2" && r.condition === "enabled")!;
    assert.deepEqual(rn2.verdict.expectations[0], { ...rn2.verdict.expectations[0], votes: [true, false, true], passed: true });
    // Resuming a complete run asks nobody anything.
    server.reset();
    const again = await runCli(["run", "--skills", skillsDir, "--tasks", "skill-evals", "--model", "m", "--judge-repeats", "3", "--out", "run.jsonl", "--resume"], { cwd, baseUrl: server.url });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.calls, 0);
  });

  it("warns when --judge-repeats is even: a tie fails (the gradings come from the cache)", async () => {
    server.reset();
    const run = await runCli(["run", "--skills", skillsDir, "--tasks", "skill-evals", "--model", "m", "--judge-repeats", "2", "--out", "run-even.jsonl", "--concurrency", "2"], { cwd, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.calls, 0);
    assert.match(run.stderr, /the judge grades each output 2 times, an even number: an expectation passes on more than half of the gradings, so a tie fails it/);
    assert.match(run.stdout, /note: 2 gradings, an even number: an expectation passes on more than half of them, so a tie failed it/);
    // release-notes/2's "[crash]" votes true, false: a tie, so it fails (it passed 2 of 3 above).
    const records = readFileSync(path.join(cwd, "run-even.jsonl"), "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l) as { taskId: string; condition: string; verdict: { expectations: Array<{ votes?: boolean[]; passed: boolean }> } });
    const rn2 = records.find((r) => r.taskId === "release-notes/2" && r.condition === "enabled")!;
    assert.deepEqual([rn2.verdict.expectations[0]!.votes, rn2.verdict.expectations[0]!.passed], [[true, false], false]);
  });

  it("writes skill-creator's iteration layout, valid against its documented schemas", async () => {
    const out = await runCli(["report", "run.jsonl", "--format", "skill-creator", "export"], { cwd, baseUrl: server.url });
    assert.equal(out.code, 0, out.stderr);
    const dir = path.join(cwd, "export");
    assert.deepEqual(readdirSync(dir).sort(), ["commit-style", "csv-report", "release-notes"]);
    const check = <T>(schema: z.ZodType<T>, file: string): T => {
      const r = schema.safeParse(JSON.parse(readFileSync(path.join(dir, file), "utf8")));
      assert.ok(r.success, `${file}: ${r.success ? "" : JSON.stringify(r.error.issues[0])}`);
      return r.data!;
    };
    const bench = check(BenchmarkJsonSchema, "release-notes/benchmark.json");
    assert.deepEqual(bench.metadata.evals_run, [1, 2, 3]);
    assert.equal(bench.runs.length, 6);
    // release-notes expectation pass rates per run, with_skill: 1, 1, 0; without_skill: 0.5, 1, 1.
    assert.equal(bench.run_summary.with_skill.pass_rate.mean, 0.6667);
    assert.equal(bench.run_summary.without_skill.pass_rate.mean, 0.8333);
    assert.equal(bench.run_summary.delta.pass_rate, "-0.17");
    assert.ok(bench.notes.some((n) => n.includes("Trigger recall on its own evals: 2/2")));
    for (const skill of ["commit-style", "csv-report", "release-notes"]) {
      check(BenchmarkJsonSchema, `${skill}/benchmark.json`);
      for (const evalDir of readdirSync(path.join(dir, skill)).filter((f) => f.startsWith("eval-"))) {
        check(EvalMetadataSchema, `${skill}/${evalDir}/eval_metadata.json`);
        for (const config of ["with_skill", "without_skill"]) {
          const run = `${skill}/${evalDir}/${config}/run-1`;
          const grading = check(GradingJsonSchema, `${run}/grading.json`);
          check(TimingJsonSchema, `${run}/timing.json`);
          assert.ok(existsSync(path.join(dir, run, "outputs", "response.md")));
          assert.equal(grading.summary.total, grading.expectations.length);
        }
      }
    }
    assert.ok(existsSync(path.join(dir, "csv-report", "eval-sum", "with_skill", "run-1", "grading.json")), "string ids name their folder");
    const g = check(GradingJsonSchema, "release-notes/eval-1/without_skill/run-1/grading.json");
    assert.deepEqual(g.summary, { passed: 1, failed: 1, total: 2, pass_rate: 0.5 });
  });

  it("skill-creator's own aggregate_benchmark.py and eval viewer read the export: every prompt, with_skill first, the gradings, our numbers", { skip: !existsSync(skillCreatorDir) && `no copy of skill-creator's scripts at ${skillCreatorDir}` }, () => {
    const dir = path.join(cwd, "export");
    for (const skill of ["commit-style", "csv-report", "release-notes"]) {
      const ours = JSON.parse(readFileSync(path.join(dir, skill, "benchmark.json"), "utf8")) as Benchmark;
      // Their aggregator, run on our folders (output outside the export, so our benchmark.json stays ours).
      const theirsFile = path.join(cwd, `aggregated-${skill}.json`);
      const agg = spawnSync(python, ["-B", path.join(skillCreatorDir, "scripts", "aggregate_benchmark.py"), path.join(dir, skill), "--output", theirsFile], { encoding: "utf8" });
      assert.equal(agg.status, 0, agg.stderr + agg.stdout);
      assert.doesNotMatch(agg.stdout, /Warning/);
      const theirs = JSON.parse(readFileSync(theirsFile, "utf8")) as Benchmark;
      assert.deepEqual(Object.keys(theirs.run_summary), ["with_skill", "without_skill", "delta"], "with_skill is their first configuration, so their delta is with minus without");
      assert.deepEqual(theirs.run_summary, ours.run_summary, `${skill}: aggregate_benchmark.py's numbers equal ours`);
      const runKey = (r: Benchmark["runs"][number]) => `${r.eval_id}/${r.configuration}/${r.run_number}`;
      assert.deepEqual(new Map(theirs.runs.map((r) => [runKey(r), r.result])), new Map(ours.runs.map((r) => [runKey(r), r.result])));
      assert.equal(ours.runs[0]!.configuration, "with_skill", "our benchmark.json lists with_skill first");

      // Their viewer, as a static page: the runs it embeds.
      const html = path.join(cwd, `review-${skill}.html`);
      const view = spawnSync(python, ["-B", path.join(skillCreatorDir, "eval-viewer", "generate_review.py"), path.join(dir, skill), "--static", html, "--benchmark", path.join(dir, skill, "benchmark.json")], { encoding: "utf8" });
      assert.equal(view.status, 0, view.stderr + view.stdout);
      const page = readFileSync(html, "utf8");
      const data = JSON.parse(/const EMBEDDED_DATA = (.*);\n/.exec(page)![1]!) as { runs: Array<{ id: string; prompt: string; eval_id: number | null; grading: { summary: { pass_rate: number } } | null }> };
      const evalDirs = readdirSync(path.join(dir, skill)).filter((f) => f.startsWith("eval-"));
      assert.equal(data.runs.length, ours.runs.length);
      for (const evalDir of evalDirs) {
        const meta = JSON.parse(readFileSync(path.join(dir, skill, evalDir, "eval_metadata.json"), "utf8")) as { eval_id: number; prompt: string };
        const runs = data.runs.filter((r) => r.id.startsWith(`${evalDir}-`));
        assert.ok(runs.length >= 2, `${skill}/${evalDir}: runs in the viewer`);
        for (const r of runs) {
          assert.notEqual(r.prompt, "(No prompt found)", `${r.id}: the viewer finds the prompt`);
          assert.equal(r.prompt, meta.prompt);
          assert.equal(r.eval_id, meta.eval_id);
          const grading = JSON.parse(readFileSync(path.join(dir, skill, r.id.slice(evalDir.length + 1).replace(/^(with_skill|without_skill)-/, `${evalDir}/$1/`), "grading.json"), "utf8")) as unknown;
          assert.deepEqual(r.grading, grading, `${r.id}: the viewer shows its grading`);
        }
        assert.match(runs[0]!.id, /-with_skill-run-1$/, `${skill}/${evalDir}: the with-skill run comes first`);
      }
      assert.ok(data.runs.every((r) => r.prompt.length > 0 && r.grading !== null));
    }
  });

  it("refuses an export without a folder", async () => {
    const noFolder = await runCli(["report", "run.jsonl", "--format", "skill-creator"], { cwd, baseUrl: server.url });
    assert.equal(noFolder.code, 2);
    assert.match(noFolder.stderr, /writes a folder/);
  });
});

describe("CLI: the README's skill-evals command on the shipped examples", { skip: !existsSync(cli) && "build first (node esbuild.mjs)" }, () => {
  it("runs every example skill's own evals: each loads its skill and is rescued; near misses load nothing", async () => {
    const tasks = loadSkillEvals((await scanSkills([path.join(repoRoot, "skills")])).skills).tasks as SkillEvalTask[];
    const good = new Set(Object.values(REFERENCE).map((r) => r.good));
    // Enabled runs load the eval's owner (near misses load nothing) and answer well; disabled runs answer badly, but
    // on near misses, where both answer well.
    const script = withJudge(
      (req) => {
        const ctx = planContext(req);
        const task = tasks.find((t) => ctx.userText.startsWith(t.prompt));
        if (!task) return { error: { status: 400, message: "unknown prompt" } };
        const ref = REFERENCE[task.id]!;
        if (!ctx.hasTools) return { content: task.shouldTrigger ? ref.bad : ref.good };
        if (task.shouldTrigger && ctx.turn === 0) return { toolCalls: [{ name: "load_skill", arguments: JSON.stringify({ name: task.owner }) }] };
        return { content: ref.good };
      },
      (ask) => (good.has(ask.response) ? { passed: true, evidence: ask.response.split("\n")[0]! } : { passed: false, evidence: "not a reference answer" }),
    );
    const server = await startScriptedServer({ script });
    const cwd = mkdtempSync(path.join(os.tmpdir(), "sf-evals-readme-"));
    try {
      const run = await runCli(["run", "--skills", path.join(repoRoot, "skills"), "--tasks", "skill-evals", "--model", "m", "--out", "run.jsonl"], { cwd, baseUrl: server.url });
      assert.equal(run.code, 0, run.stderr);
      const report = await runCli(["report", "run.jsonl", "--format", "json"], { cwd, baseUrl: server.url });
      const e = (JSON.parse(report.stdout) as { evaluations: Array<{ retrieved: { n: number; rescued: number }; skills: Array<{ name: string; trigger: { ownEvals: { n: number; loaded: number }; nearMiss: { n: number; loaded: number } } | null }> }> }).evaluations[0]!;
      const triggered = tasks.filter((t) => t.shouldTrigger);
      assert.deepEqual([e.retrieved.n, e.retrieved.rescued], [triggered.length, triggered.length]);
      for (const owner of ["release-notes", "regex-pitfalls", "word-problem-units"]) {
        const s = e.skills.find((x) => x.name === owner)!;
        const own = triggered.filter((t) => t.owner === owner).length;
        assert.deepEqual(s.trigger, { ...s.trigger!, ownEvals: { n: own, loaded: own }, nearMiss: { n: tasks.filter((t) => t.owner === owner && !t.shouldTrigger).length, loaded: 0 } });
      }
    } finally {
      await server.close();
    }
  });
});
