import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ABLATION_SKILL, ablationScript, SCENARIO, scenarioTaskLines } from "../../support/ablation-scenario.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { repoRoot, runCli } from "./harness.js";

/** `skill-following ablate` as a user runs it: run, ablate (costs printed first), report reads the sibling file. */
describe("skill-following ablate (scripted server over HTTP)", () => {
  let server: ScriptedServer;
  let cwd: string;
  let runFile: string;
  const baseUrl = () => server.url;

  before(async () => {
    server = await startScriptedServer({ script: ablationScript() });
    cwd = mkdtempSync(path.join(os.tmpdir(), "sf-cli-ablate-"));
    mkdirSync(path.join(cwd, "skills"));
    cpSync(path.join(repoRoot, "skills", ABLATION_SKILL), path.join(cwd, "skills", ABLATION_SKILL), { recursive: true });
    writeFileSync(path.join(cwd, "tasks.jsonl"), scenarioTaskLines());
    runFile = path.join(cwd, "run.jsonl");
    const r = await runCli(["run", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "m", "--out", runFile, "--quiet"], { cwd, baseUrl: baseUrl() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.calls, SCENARIO.pairedRunCalls);
  });
  after(async () => server.close());

  it("--dry-run prints the plan and costs and calls nothing", async () => {
    server.reset();
    const r = await runCli(["ablate", runFile, "--skill", ABLATION_SKILL, "--dry-run"], { cwd, baseUrl: baseUrl() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /6 sections × 14 tasks × 1 sample = 84 runs; about 84 new model calls \(the turns after load_skill\), 84 earlier calls served by the response cache/);
    assert.match(r.stderr, /7 harmed, 3 rescued, 4 of 8 both-pass \(q = 0\.25\)/);
    assert.equal(server.calls, 0);
  });

  it("ablates with exactly the continuations, prints the sections table, and report reads the sibling file", async () => {
    server.reset();
    const r = await runCli(["ablate", runFile, "--skill", ABLATION_SKILL], { cwd, baseUrl: baseUrl() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.calls, 84);
    assert.ok(r.stderr.indexOf("84 runs") < r.stderr.indexOf("ablation runs"), "costs are printed before the runs start");
    assert.match(r.stdout, /The rule\s+16–24\s+14\s+7\s+0/);
    const ablationFile = path.join(cwd, `run.ablation-${ABLATION_SKILL}.jsonl`);
    assert.match(r.stdout, new RegExp(`ablation file: ${ablationFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));

    const json = await runCli(["report", runFile, "--format", "json"], { cwd, baseUrl: baseUrl() });
    assert.equal(json.code, 0, json.stderr);
    const sections = JSON.parse(json.stdout).evaluations[0].skills[0].sections as Array<{ heading: string; startLine: number; endLine: number; table: { repaired: number; broken: number }; repairedTasks: string[] }>;
    assert.equal(sections[0]!.heading, "The rule");
    assert.deepEqual([sections[0]!.startLine, sections[0]!.endLine, sections[0]!.table.repaired, sections[0]!.table.broken], [16, 24, 7, 0]);
    const lines = readFileSync(path.join(cwd, "skills", ABLATION_SKILL, "SKILL.md"), "utf8").split("\n");
    assert.equal(lines[15], "## The rule");
    // Naming the ablation file directly gives the same table.
    const direct = await runCli(["report", runFile, ablationFile, "--format", "json"], { cwd, baseUrl: baseUrl() });
    assert.deepEqual(JSON.parse(direct.stdout).evaluations[0].skills[0].sections, JSON.parse(json.stdout).evaluations[0].skills[0].sections);
    const md = await runCli(["report", runFile, "--format", "markdown"], { cwd, baseUrl: baseUrl() });
    assert.match(md.stdout, /Sections of tidy\\-list\\-outputs/);
  });

  it("a second ablation to another file costs 0 calls; the same file needs --resume", async () => {
    server.reset();
    const again = await runCli(["ablate", runFile, "--skill", ABLATION_SKILL, "--out", path.join(cwd, "again.jsonl"), "--quiet"], { cwd, baseUrl: baseUrl() });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.calls, 0);
    const clash = await runCli(["ablate", runFile, "--skill", ABLATION_SKILL], { cwd, baseUrl: baseUrl() });
    assert.equal(clash.code, 2);
    assert.match(clash.stderr, /already exists/);
    assert.match(clash.stderr, /--resume/, "the CLI names its flag");
  });

  it("bad input names the problem: unknown skill, edited skill", async () => {
    const unknown = await runCli(["ablate", runFile, "--skill", "nope"], { cwd, baseUrl: baseUrl() });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no skill named 'nope'/);
    const file = path.join(cwd, "skills", ABLATION_SKILL, "SKILL.md");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, original.replace("## Why", "## Why not"));
    try {
      const edited = await runCli(["ablate", runFile, "--skill", ABLATION_SKILL, "--out", path.join(cwd, "x.jsonl")], { cwd, baseUrl: baseUrl() });
      assert.equal(edited.code, 2);
      assert.match(edited.stderr, /SKILL\.md: changed since the run was made/);
    } finally {
      writeFileSync(file, original);
    }
  });
});
