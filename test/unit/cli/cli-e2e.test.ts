// test-requires: shared-data
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { FAKE_KEY, MBPP, essence, mbppScenario, runCli, tempWorkspace, verdictsOf, type JsonEvaluation } from "./harness.js";

function pick(t: { n: number; bothPass: number; rescued: number; harmed: number; bothFail: number }) {
  return { n: t.n, bothPass: t.bothPass, rescued: t.rescued, harmed: t.harmed, bothFail: t.bothFail };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("skill-following run/report end to end (real MBPP+ tasks, scripted server over HTTP)", () => {
  let server: ScriptedServer;
  let scenario: Awaited<ReturnType<typeof mbppScenario>>;
  let ws: string;
  let cleanEssence: ReturnType<typeof essence>;
  const base = ["run", "--skills", "skills", "--tasks", MBPP, "--limit", "8", "--model", "scripted-model", "--concurrency", "4"];

  before(async () => {
    scenario = await mbppScenario();
    server = await startScriptedServer({ script: scenario.script });
    ws = tempWorkspace();
  });
  after(async () => {
    await server?.close();
  });

  it("catalog mode: rescued/harmed sets and effects match the script", async () => {
    const run = await runCli([...base, "--out", "runs/clean.jsonl"], { cwd: ws, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /run file: .*clean\.jsonl/);
    // 8 disabled runs + enabled turns: 2+2+2+1+2+2+2+3 = 16.
    assert.equal(server.calls, 24);

    const rep = await runCli(["report", "runs/clean.jsonl", "--format", "json"], { cwd: ws, baseUrl: server.url });
    assert.equal(rep.code, 0, rep.stderr);
    const ev = (JSON.parse(rep.stdout) as { evaluations: JsonEvaluation[] }).evaluations;
    assert.equal(ev.length, 1);
    const e = ev[0]!;
    const x = scenario.expected;
    assert.deepEqual(pick(e.overall), x.overall);
    assert.deepEqual(pick(e.retrieved), x.retrieved);
    assert.deepEqual(pick(e.notRetrieved), x.notRetrieved);
    assert.equal(e.overall.effect, (3 - 2) / 8);
    assert.equal(e.retrieved.effect, 0);
    // lift = acc+(retrieved) − acc+(not retrieved) = 3/6 − 2/2
    assert.ok(Math.abs((e.lift as number) - (3 / 6 - 1)) < 1e-12);
    const alpha = e.skills.find((s) => s.name === "alpha-guide")!;
    const beta = e.skills.find((s) => s.name === "beta-guide")!;
    assert.deepEqual({ ...pick(alpha.table), rescuedTasks: [...alpha.rescuedTasks].sort(), harmedTasks: alpha.harmedTasks }, { ...x.alpha, rescuedTasks: [...x.alpha.rescuedTasks].sort() });
    assert.deepEqual({ ...pick(beta.table), rescuedTasks: beta.rescuedTasks, harmedTasks: beta.harmedTasks }, x.beta);
    assert.equal(e.skills.some((s) => s.name === "gamma-guide"), false, "an unknown skill name is not a retrieval");
    cleanEssence = essence(rep.stdout);
  });

  it("re-running an unchanged evaluation makes zero model calls", async () => {
    server.reset();
    const run = await runCli([...base, "--out", "runs/again.jsonl"], { cwd: ws, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.calls, 0);
    // Every verdict comes back (from the verdict cache: nothing is re-checked), with its reason.
    assert.deepEqual(verdictsOf(path.join(ws, "runs/again.jsonl")), verdictsOf(path.join(ws, "runs/clean.jsonl")));
    const rep = await runCli(["report", "runs/again.jsonl", "--format", "json"], { cwd: ws, baseUrl: server.url });
    assert.deepEqual(essence(rep.stdout), cleanEssence);
  });

  it("editing one skill's body re-issues only the requests after that skill was loaded", async () => {
    const file = path.join(ws, "skills/alpha-guide/SKILL.md");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, `${original}\nAlso: never mutate the caller's list.\n`);
    try {
      server.reset();
      const run = await runCli([...base, "--out", "runs/edited.jsonl"], { cwd: ws, baseUrl: server.url });
      assert.equal(run.code, 0, run.stderr);
      // alpha is loaded on tasks 0, 1, 5 (one answer turn after the load each) and 7 (load beta, then answer): 1+1+1+2.
      assert.equal(server.calls, 5);
      for (const req of server.requests) {
        assert.ok(req.tools, "no disabled request is re-issued");
        assert.ok(req.messages.some((m) => m.role === "tool" && (m.content ?? "").includes("never mutate")), "every re-issued request contains the edited body");
      }
    } finally {
      writeFileSync(file, original);
    }
  });

  it("search mode: retrieval is a search that returns skills", async () => {
    server.reset();
    const run = await runCli([...base, "--mode", "search", "--out", "runs/search.jsonl"], { cwd: ws, baseUrl: server.url });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(server.requests.some((r) => r.tools?.[0]?.function.name === "search_skills"));
    const rep = await runCli(["report", "runs/search.jsonl", "--format", "json"], { cwd: ws, baseUrl: server.url });
    const e = (JSON.parse(rep.stdout) as { evaluations: JsonEvaluation[] }).evaluations[0]!;
    assert.equal(e.mode, "search");
    assert.equal(e.overall.n, 8);
    // The plan's queries are skill names; a query naming a skill finds it, and a search for "gamma guide" still
    // returns the best partial match ("guide"), so in search mode task 4 is a retrieval too.
    assert.ok(e.retrieved.n >= 6);
  });

  it("the API key never appears in any file the tool wrote", () => {
    for (const f of filesUnder(ws)) {
      assert.ok(!readFileSync(f).includes(FAKE_KEY), `${f} contains the API key`);
    }
  });
});
