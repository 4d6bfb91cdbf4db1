import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { planAblation, runAblation, type AblateOptions } from "../../../src/core/runs/ablate.js";
import { readAblationFile } from "../../../src/core/runs/ablation-store.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { readRunFile } from "../../../src/core/runs/store.js";
import { parseSkill } from "../../../src/core/skills/index.js";
import { loadTaskSet } from "../../../src/core/tasks/index.js";
import { ABLATION_SKILL, ABLATION_SKILL_FILE, ABLATION_SKILL_TEXT, ablationScript, SCENARIO, scenarioTaskLines } from "../../support/ablation-scenario.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";

const SELECTED = [...SCENARIO.harmed, ...SCENARIO.rescued, "P1", "P5", "P6", "P8"];

describe("section ablation against the scripted server", () => {
  let server: ScriptedServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-ablate-"));
  const grader = createGrader();
  const skill = parseSkill(ABLATION_SKILL_FILE, ABLATION_SKILL_TEXT).skill!;
  const tasksFile = path.join(dir, "tasks.jsonl");
  writeFileSync(tasksFile, scenarioTaskLines());
  let runFile: string;
  let options: (extra?: Partial<AblateOptions>) => Promise<AblateOptions>;

  before(async () => {
    server = await startScriptedServer({ script: ablationScript() });
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(dir, "cache") });
    const taskSet = await loadTaskSet(tasksFile);
    const paired = await evaluate(
      { mode: "catalog", design: "paired", samples: 1, temperature: 0, concurrency: 4 },
      { skills: [skill], taskSet, client, model: "m", grader, runFile: path.join(dir, "run.jsonl"), resume: false },
    );
    assert.equal(server.calls, SCENARIO.pairedRunCalls);
    runFile = paired.runFile;
    options = async (extra = {}) => {
      const run = await readRunFile(runFile);
      return { run: { file: runFile, ...run }, skills: [skill], skillName: ABLATION_SKILL, skillText: ABLATION_SKILL_TEXT, taskSet, client, grader, concurrency: 3, resume: false, ...extra };
    };
  });
  after(async () => {
    await server.close();
    await grader.dispose();
  });

  it("selects the harmed and rescued tasks plus a seeded quarter of the both-pass ones", async () => {
    const plan = await planAblation(await options());
    assert.deepEqual(plan.header.taskIds, SELECTED);
    assert.deepEqual(plan.header.selection.harmed, SCENARIO.harmed);
    assert.deepEqual(plan.header.selection.rescued, SCENARIO.rescued);
    assert.deepEqual(plan.header.selection.bothPassSampled, ["P1", "P5", "P6", "P8"]);
    assert.equal(plan.header.selection.bothPassTotal, 8);
    assert.deepEqual(plan.header.sections.map((s) => s.heading), SCENARIO.sections);
    // The estimate reads the run's transcripts: one turn through the load (cached), one after it (new), per run.
    assert.deepEqual(plan.estimate, { variants: 6, tasks: 14, samples: 1, runs: 84, pairRuns: 0, cachedCalls: 84, newCalls: 84 });
  });

  it("issues exactly sections × tasks × samples continuations, none before the load, none disabled; a re-run issues 0", async () => {
    server.reset();
    const out = path.join(dir, "ablation-1.jsonl");
    const o = await options({ out });
    const result = await runAblation(await planAblation(o), o);
    assert.equal(result.failedRuns, 0);
    assert.equal(result.records.length, 6 * 14);
    assert.equal(server.calls, 6 * 14 * 1, "one continuation per section × task × sample");
    for (const req of server.requests) {
      assert.ok(req.tools !== undefined, "no request for the disabled condition");
      const tool = req.messages.find((m) => m.role === "tool");
      assert.ok(tool?.content?.startsWith(`# Skill: ${ABLATION_SKILL}`), "every new request comes after the load");
    }
    // Each request carries the skill without exactly one of its sections.
    const served = new Set(server.requests.map((r) => r.messages.find((m) => m.role === "tool")!.content));
    assert.equal(served.size, 6);
    assert.ok(result.records.every((r) => r.cachedCalls === 1 && r.modelCalls === 1));

    server.reset();
    const again = await options({ out: path.join(dir, "ablation-2.jsonl") });
    const rerun = await runAblation(await planAblation(again), again);
    assert.equal(server.calls, 0, "an unchanged re-run is served from the cache");
    assert.equal(rerun.records.length, 84);

    server.reset();
    const resumed = await options({ out, resume: true });
    const plan = await planAblation(resumed);
    assert.equal(plan.pending, 0);
    await runAblation(plan, resumed);
    assert.equal(server.calls, 0, "resuming a finished ablation plans nothing");
  });

  it("records outcomes the scenario fixes: removing 'The rule' repairs O1-O7, removing 'How to apply' breaks D1-D3", async () => {
    const file = await readAblationFile(path.join(dir, "ablation-1.jsonl"));
    const byHeading = new Map(file.header.sections.map((s) => [s.heading, s.id]));
    const passes = (heading: string) => file.records.filter((r) => r.variant === byHeading.get(heading) && r.verdict.pass).map((r) => r.taskId).sort();
    assert.deepEqual(passes("The rule"), [...SELECTED].sort());
    assert.deepEqual(passes("How to apply"), ["P1", "P5", "P6", "P8"]);
    assert.deepEqual(passes("Why"), [...SCENARIO.rescued, "P1", "P5", "P6", "P8"].sort());
  });

  it("reads an ablation file with the capped line reader: an oversized line and a torn tail are skipped, located", async () => {
    const text = readFileSync(path.join(dir, "ablation-1.jsonl"), "utf8");
    const longest = Math.max(...text.split("\n").map((l) => Buffer.byteLength(l)));
    const copy = path.join(dir, "ablation-capped.jsonl");
    const lines = text.trimEnd().split("\n");
    writeFileSync(copy, [lines[0], "x".repeat(longest + 100), ...lines.slice(1), '{"type":"ablation-run","ke'].join("\n"));
    const read = await readAblationFile(copy, { maxLineBytes: longest + 10 });
    assert.equal(read.records.length, 84);
    assert.deepEqual(read.warnings, [
      `${copy}:2: line is ${longest + 100} bytes, over the ${longest + 10}-byte line limit; skipped`,
      `${copy}:${lines.length + 2}: torn last line ignored (the ablation was interrupted while writing it)`,
    ]);
  });

  it("resumes a cancelled ablation without repeating a finished run", async () => {
    server.reset();
    const out = path.join(dir, "ablation-cancel.jsonl");
    // A fresh cache: every continuation costs a call, so the count shows what was repeated.
    const fresh = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(dir, "cache-2") });
    const controller = new AbortController();
    let seen = 0;
    const o = await options({ out, client: fresh, concurrency: 1, signal: controller.signal, onRecord: () => ++seen === 10 && controller.abort() });
    const first = await runAblation(await planAblation(o), o);
    assert.equal(first.stopReason, "cancelled");
    const kept = (await readAblationFile(out)).records.length;
    assert.ok(kept >= 10 && kept < 84, `kept ${kept}`);
    const o2 = await options({ out, client: fresh, resume: true, concurrency: 1 });
    const plan = await planAblation(o2);
    assert.equal(plan.pending, 84 - kept);
    await runAblation(plan, o2);
    assert.equal((await readAblationFile(out)).records.length, 84);
    // Before the load: one call per task (every section's first request of a task is the same request, so the
    // cache serves the other five); after it: one per run, never twice.
    assert.equal(server.calls, 14 + 84, `calls ${server.calls}`);
  });

  it("--ablate-pairs adds the pairs among the 3 most harmful sections", async () => {
    server.reset();
    const o = await options({ out: path.join(dir, "ablation-pairs.jsonl"), pairs: true });
    const plan = await planAblation(o);
    assert.equal(plan.estimate.pairRuns, 3 * 14);
    const result = await runAblation(plan, o);
    const pairs = [...new Set(result.records.map((r) => r.variant).filter((v) => v.includes("+")))];
    const id = (h: string) => plan.header.sections.find((s) => s.heading === h)!.id;
    // "The rule" repairs 7; the rest tie at 0 except "How to apply" (−3): ties go in document order.
    assert.deepEqual(pairs, [`${id("Tidy list outputs")}+${id("The rule")}`, `${id("Tidy list outputs")}+${id("Why")}`, `${id("The rule")}+${id("Why")}`]);
    assert.equal(server.calls, 3 * 14, "the single sections came from the cache; only the pairs' continuations are new");
  });

  it("with 2 samples: exactly sections × tasks × 2 continuations, each paired with the full skill's sample", async () => {
    const taskSet = await loadTaskSet(tasksFile);
    const client = createCachedClient(createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5, maxBackoffMs: 20 }), { dir: path.join(dir, "cache-k2") });
    const run2 = await evaluate(
      { mode: "catalog", design: "paired", samples: 2, temperature: 0, concurrency: 4 },
      { skills: [skill], taskSet, client, model: "m", grader, runFile: path.join(dir, "run-k2.jsonl"), resume: false },
    );
    server.reset();
    const o = { ...(await options()), client, run: { file: run2.runFile, ...(await readRunFile(run2.runFile)) }, out: path.join(dir, "ablation-k2.jsonl") };
    const plan = await planAblation(o);
    assert.equal(plan.header.samples, 2);
    assert.equal(plan.estimate.runs, 6 * 14 * 2);
    const result = await runAblation(plan, o);
    assert.equal(result.records.length, 6 * 14 * 2);
    assert.equal(server.calls, 6 * 14 * 2, `calls ${server.calls}`);
    assert.ok(server.requests.every((r) => r.tools !== undefined && r.messages.some((m) => m.role === "tool")));
  });

  it("--ablate-description (on request only) also removes the catalog description: all of its calls are new", async () => {
    server.reset();
    const o = await options({ out: path.join(dir, "ablation-description.jsonl"), description: true });
    const plan = await planAblation(o);
    assert.equal(plan.header.sections.at(-1)!.id, "frontmatter/description");
    assert.deepEqual([plan.header.sections.at(-1)!.startLine, plan.header.sections.at(-1)!.endLine], [3, 3]);
    // 6 body sections: 84 continuations, cached by the first ablation; the description: 14 × 2 turns, all new.
    assert.equal(plan.estimate.newCalls, 84 + 28);
    await runAblation(plan, o);
    assert.equal(server.calls, 28);
    const first = server.requests.find((r) => r.messages.length === 2)!;
    assert.match(first.messages[0]!.content ?? "", /- tidy-list-outputs: $/m, "the catalog lists the skill without its description");
  });

  it("refuses a skill that changed since the run, and an existing file without --resume", async () => {
    const edited = ABLATION_SKILL_TEXT.replace("## Why", "## Why this");
    await assert.rejects(async () => await planAblation(await options({ skillText: edited })), /changed since the run was made/);
    await assert.rejects(async () => await planAblation(await options({ out: path.join(dir, "ablation-1.jsonl") })), /already exists/);
    await assert.rejects(async () => await planAblation(await options({ skillName: "nope" })), /no skill named 'nope'/);
    await assert.rejects(async () => await planAblation(await options({ samples: 2 })), /samples must be a whole number from 1 to the run's 1/);
    const lines = readFileSync(runFile, "utf8").trimEnd().split("\n");
    assert.equal(lines.length, 1 + 40, "the run file is never written to: its header and the 40 paired runs");
    assert.ok(lines.every((l) => !l.includes('"type":"ablation')));
  });
});
