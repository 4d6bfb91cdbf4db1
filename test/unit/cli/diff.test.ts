/**
 * `skill-following diff` (issue 28): what an edit to one skill changed, paired by task on the tasks where both
 * versions loaded it. A scripted model answers each task by the version of the skill text it was shown, so every
 * improved, regressed and trigger-changed task is known in advance; the model calls an edit costs are counted.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { mcnemarExactP, mcnemarMidP, tangoInterval } from "../../../src/core/stats/index.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { DESC, editScript, LOADS, skillText, T, taskLines } from "../../support/edit-scenario.js";
import { runCli } from "./harness.js";

const skill = skillText;

let server: ScriptedServer;
let ws: string;

before(async () => {
  server = await startScriptedServer({
    script: editScript,
  });
  ws = mkdtempSync(path.join(os.tmpdir(), "sf-diff-"));
  mkdirSync(path.join(ws, "skills", "sums"), { recursive: true });
  writeFileSync(path.join(ws, "tasks.jsonl"), `${taskLines().join("\n")}\n`);
});
after(async () => {
  await server?.close();
  rmSync(ws, { recursive: true, force: true });
});

async function runWith(text: string, out: string): Promise<number> {
  writeFileSync(path.join(ws, "skills", "sums", "SKILL.md"), text);
  server.reset();
  const r = await runCli(["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--out", out, "--quiet"], { cwd: ws, baseUrl: server.url });
  assert.equal(r.code, 0, r.stderr);
  return server.calls;
}

const diff = (args: string[]) => runCli(["diff", "--skill", "sums", ...args], { cwd: ws, baseUrl: server.url });

describe("CLI: diff of two versions of a skill", () => {
  it("an edit that fixes 5 tasks and breaks 1: the lists, the effect, the interval and p as computed by hand; the edit costs exactly the continuations after the load", async () => {
    assert.equal(await runWith(skill(DESC, "OLD"), "before.jsonl"), T * 2 + LOADS.size);
    // Only the body changed: every request before the load is the old run's, so the new calls are the 14 continuations.
    assert.equal(await runWith(skill(DESC, "NEW"), "after.jsonl"), LOADS.size);
    // An unchanged "after" costs nothing.
    assert.equal(await runWith(skill(DESC, "NEW"), "after-again.jsonl"), 0);

    const r = await diff(["before.jsonl", "after.jsonl", "--format", "json"]);
    assert.equal(r.code, 0, r.stderr);
    const d = JSON.parse(r.stdout).diff;
    assert.deepEqual(d.improvedTasks, ["t0", "t1", "t2", "t3", "t4"]);
    assert.deepEqual(d.regressedTasks, ["t5"]);
    assert.deepEqual(d.triggerChanged, { gained: [], lost: [] });
    // 14 pairs: 5 improved, 1 regressed, 6 both pass (8–13), 2 both fail (6, 7).
    assert.deepEqual([d.table.n, d.table.improved, d.table.regressed, d.table.bothPass, d.table.bothFail], [14, 5, 1, 6, 2]);
    assert.equal(d.table.effect, 4 / 14);
    // McNemar on b = 5, c = 1 (6 discordant): exact two-sided 2·(C(6,0) + C(6,1))/2^6 = 14/64; mid-p 2·(1 + 6/2)/64 = 8/64.
    assert.equal(d.table.pExact, 14 / 64);
    assert.equal(d.table.pMid, 8 / 64);
    assert.equal(mcnemarExactP(5, 1), 14 / 64);
    assert.equal(mcnemarMidP(5, 1), 8 / 64);
    assert.deepEqual(d.table.ci, tangoInterval(5, 1, 14, 0.05));
    assert.ok(d.table.ci[0] < 0 && d.table.ci[1] > 4 / 14, "the 95% interval holds the estimate and 0 (p > 0.05)");
    assert.equal(d.verdict, "inconclusive");
    assert.notEqual(d.before.hash, d.after.hash);
    assert.equal(d.before.source, "before.jsonl");

    const text = await diff(["before.jsonl", "after.jsonl"]);
    assert.match(text.stdout, /5 improved · 1 regressed of 14 pairs · effect \+0\.29 \[.*\] · p 0\.125/);
    assert.match(text.stdout, /improved: t0, t1, t2, t3, t4\n {2}regressed: t5/);
  });

  it("--fail-on regressed exits 3 on a significant regression and 0 when the regression is not significant", async () => {
    await runWith(skill(DESC, "BAD"), "bad.jsonl");
    const bad = await diff(["after.jsonl", "bad.jsonl", "--format", "json", "--fail-on", "regressed"]);
    assert.equal(bad.code, 3, bad.stderr);
    const d = JSON.parse(bad.stdout).diff;
    // NEW passes 0–4 and 8–13 (11 tasks); BAD passes none: 11 regressed, 0 improved.
    assert.deepEqual([d.table.improved, d.table.regressed, d.verdict], [0, 11, "regressed"]);
    assert.match(bad.stderr, /--fail-on regressed/);
    // Reversed, the first edit regresses 5 and improves 1: worse, but p = 0.125, so the gate stays open.
    const mild = await diff(["after.jsonl", "before.jsonl", "--fail-on", "regressed"]);
    assert.equal(mild.code, 0, mild.stderr);
    assert.match(mild.stdout, /1 improved · 5 regressed/);
  });

  it("a description edit that makes the skill load on 3 more tasks lists them as trigger changes, never as improved or regressed", async () => {
    await runWith(skill(`${DESC} Also for products.`, "NEW"), "wider.jsonl");
    const r = await diff(["after.jsonl", "wider.jsonl", "--format", "json"]);
    assert.equal(r.code, 0, r.stderr);
    const d = JSON.parse(r.stdout).diff;
    assert.deepEqual(d.triggerChanged, { gained: ["t14", "t15", "t16"], lost: [] });
    assert.deepEqual([d.table.n, d.table.improved, d.table.regressed, d.verdict], [14, 0, 0, "no-change"]);
    const back = JSON.parse((await diff(["wider.jsonl", "after.jsonl", "--format", "json"])).stdout).diff;
    assert.deepEqual(back.triggerChanged, { gained: [], lost: ["t14", "t15", "t16"] });
  });

  it("the JSON holds the issue's contract: skill, before/after {hash, source}, table {n, improved, regressed, effect, pMid, pExact, ci}, the task lists and triggerChanged", async () => {
    const d = JSON.parse((await diff(["before.jsonl", "after.jsonl", "--format", "json"])).stdout).diff;
    for (const k of ["skill", "before", "after", "table", "improvedTasks", "regressedTasks", "triggerChanged"]) assert.ok(k in d, k);
    for (const k of ["n", "improved", "regressed", "effect", "pMid", "pExact", "ci"]) assert.ok(k in d.table, `table.${k}`);
    assert.deepEqual(Object.keys(d.before).sort(), ["hash", "source"]);
    assert.deepEqual(Object.keys(d.triggerChanged).sort(), ["gained", "lost"]);
    assert.equal(d.skill, "sums");
    assert.equal(d.table.ci.length, 2);
  });

  it("report --against a base run adds each edited skill's diff to the markdown and JSON reports and gates with --fail-on regressed", async () => {
    const mdRun = await runCli(["report", "after.jsonl", "--against", "before.jsonl", "--format", "markdown"], { cwd: ws, baseUrl: server.url });
    assert.equal(mdRun.code, 0, mdRun.stderr);
    assert.match(mdRun.stdout, /## Skill changes against the base run/);
    assert.match(mdRun.stdout, /### Skill Following — what the edit to `sums` changed/);
    assert.match(mdRun.stdout, /\| 14 \| 5 \| 1 \| \+0\.29 \| \[.*\] \| 0\.125 \|/);
    assert.match(mdRun.stdout, /Improved: t0, t1, t2, t3, t4/);
    const json = await runCli(["report", "after.jsonl", "--against", "before.jsonl", "--format", "json"], { cwd: ws, baseUrl: server.url });
    const r = JSON.parse(json.stdout);
    assert.ok(Array.isArray(r.evaluations), "the report itself is still there");
    assert.equal(r.diffs.length, 1);
    assert.deepEqual([r.diffs[0].skill, r.diffs[0].table.improved, r.diffs[0].table.regressed], ["sums", 5, 1]);
    // The same text on both sides: nothing to diff.
    const same = await runCli(["report", "after.jsonl", "--against", "after-again.jsonl", "--format", "json"], { cwd: ws, baseUrl: server.url });
    assert.deepEqual(JSON.parse(same.stdout).diffs, []);
    const gate = await runCli(["report", "bad.jsonl", "--against", "after.jsonl", "--fail-on", "regressed"], { cwd: ws, baseUrl: server.url });
    assert.equal(gate.code, 3, gate.stderr);
    assert.match(gate.stderr, /significantly worse \(sums\)/);
    const open = await runCli(["report", "before.jsonl", "--against", "after.jsonl", "--fail-on", "regressed", "--format", "markdown"], { cwd: ws, baseUrl: server.url });
    assert.equal(open.code, 0, open.stderr);
    const noBase = await runCli(["report", "after.jsonl", "--fail-on", "regressed"], { cwd: ws, baseUrl: server.url });
    assert.equal(noBase.code, 2);
    assert.match(noBase.stderr, /needs the base run to compare with: add --against/);
    const html = await runCli(["report", "after.jsonl", "--against", "before.jsonl", "--format", "html"], { cwd: ws, baseUrl: server.url });
    assert.equal(html.code, 2);
    assert.match(html.stderr, /not to html/);
  });

  it("two SKILL.md files are run through the engine and the cache: the old text costs its whole run, the new one exactly the 14 continuations after the load, a repeat nothing", async () => {
    for (const [dir, version] of [["v1", "OLD"], ["v2", "NEW"]] as const) {
      mkdirSync(path.join(ws, dir, "sums"), { recursive: true });
      writeFileSync(path.join(ws, dir, "sums", "SKILL.md"), skill(DESC, version));
    }
    const args = ["v1/sums/SKILL.md", "v2/sums", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--cache-dir", "cache-files", "--format", "json"];
    server.reset();
    const r = await diff(args);
    assert.equal(r.code, 0, r.stderr);
    // A fresh cache: before = 20 tasks × 2 conditions + 14 continuations; after = the 14 continuations only.
    assert.equal(server.calls, T * 2 + LOADS.size + LOADS.size);
    const d = JSON.parse(r.stdout).diff;
    assert.deepEqual([d.improvedTasks, d.regressedTasks, d.table.n, d.table.pMid], [["t0", "t1", "t2", "t3", "t4"], ["t5"], 14, 8 / 64]);
    assert.deepEqual([d.before.source, d.after.source], ["v1/sums/SKILL.md", "v2/sums"]);
    assert.match(r.stderr, /before: run file .*sums-before/);
    server.reset();
    const again = await diff(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.calls, 0, "both texts unchanged: every call comes from the cache");
    assert.deepEqual(JSON.parse(again.stdout).diff.table, d.table);
    // A run file against an unchanged SKILL.md: the run is its own, no engine, no calls.
    server.reset();
    const same = await diff(["after.jsonl", "v2/sums/SKILL.md", "--format", "json", "--cache-dir", "cache-empty"]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(server.calls, 0);
    assert.equal(JSON.parse(same.stdout).diff.verdict, "no-change");
    assert.ok(!existsSync(path.join(ws, "cache-empty", "responses")) || readdirSync(path.join(ws, "cache-empty", "responses")).length === 0);
  });

  it("--against HEAD: the before side is the SKILL.md committed at HEAD, run as the after run was with only the text changed; it costs exactly the continuations", async () => {
    const git = (...a: string[]) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...a], { cwd: ws, env: { PATH: process.env.PATH ?? "", HOME: ws } });
    git("init", "-q");
    writeFileSync(path.join(ws, "skills", "sums", "SKILL.md"), skill(DESC, "OLD"));
    git("add", "skills/sums/SKILL.md");
    git("commit", "-q", "-m", "old");
    writeFileSync(path.join(ws, "skills", "sums", "SKILL.md"), skill(DESC, "NEW"));
    server.reset();
    const run = await runCli(["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "scripted-model", "--out", "work.jsonl", "--cache-dir", "cache-git", "--quiet"], { cwd: ws, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.calls, T * 2 + LOADS.size);
    server.reset();
    const r = await diff(["work.jsonl", "--against", "HEAD", "--cache-dir", "cache-git", "--format", "json", "--fail-on", "regressed"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.calls, LOADS.size, "only the continuations after load_skill are new");
    const d = JSON.parse(r.stdout).diff;
    assert.deepEqual([d.improvedTasks, d.regressedTasks], [["t0", "t1", "t2", "t3", "t4"], ["t5"]]);
    assert.match(d.before.source, /^HEAD:skills\/sums\/SKILL\.md$/);
    assert.equal(d.after.source, "work.jsonl");
    // A skill never committed: the error says so and what to do.
    const missing = await diff(["work.jsonl", "--against", "HEAD~3"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no version of this SKILL\.md at HEAD~3 .*commit it first, or name another ref/);
  });

  it("refuses runs that cannot be paired, naming the field and both values, and a skill neither run has", async () => {
    const other = await runCli(["diff", "--skill", "nope", "before.jsonl", "after.jsonl"], { cwd: ws, baseUrl: server.url });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /before\.jsonl: the before run has no skill named 'nope' \(its skills: sums\)/);
    const one = await diff(["before.jsonl"]);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /give two run files or SKILL\.md files/);
    const noTasks = await diff(["v1/sums/SKILL.md", "v2/sums/SKILL.md"]);
    assert.equal(noTasks.code, 2);
    assert.match(noTasks.stderr, /two SKILL\.md files are run on the tasks given with --tasks/);
  });
});
