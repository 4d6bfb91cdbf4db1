/**
 * Batch mode end to end: evaluate() with the batch client, against the scripted server's Files and Batch API over
 * real HTTP with the real `openai` client. The same scenario runs synchronously for comparison.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createGrader } from "../../../src/core/grading/index.js";
import { batchJournalFile } from "../../../src/core/layout.js";
import { createOpenAIBatchClient } from "../../../src/core/models/batch-client.js";
import { canonicalJson, createCachedClient } from "../../../src/core/models/cache.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import type { ModelClient } from "../../../src/core/models/types.js";
import { buildReport } from "../../../src/core/report/build.js";
import { evaluate, type EvaluationProgress } from "../../../src/core/runs/evaluate.js";
import { readRunSummaries } from "../../../src/core/runs/store.js";
import { scanSkills } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import type { BatchApiOptions } from "../../support/scripted-batches.js";
import { expectedCalls, mathScenario, writeScenarioSkills } from "../reliability/math-scenario.js";

const KEY = "sk-test-batch-0000";
const scenario = mathScenario({ n: 24, seed: 5 });
const dir = mkdtempSync(path.join(os.tmpdir(), "sf-batch-"));
const grader = createGrader();
let skills: Skill[];
let n = 0;

/** The most enabled turns of any task: the rounds a fresh batch run needs. */
const ROUNDS = Math.max(...scenario.tasks.map((t) => t.plan.enabled.length));

before(async () => {
  skills = (await scanSkills([writeScenarioSkills(path.join(dir, "skills"))])).skills;
});
after(async () => {
  await grader.dispose();
});

function batchClient(server: ScriptedServer, cacheDir: string): ModelClient {
  const inner = createOpenAIBatchClient({ baseURL: server.url, apiKey: KEY, model: "m", responsesDir: cacheDir, pollMs: 0, retryBaseMs: 5, maxBackoffMs: 20 });
  return createCachedClient(inner, { dir: cacheDir });
}

async function run(client: ModelClient, opts: { batch: boolean; runFile?: string; resume?: boolean; onProgress?: (p: EvaluationProgress) => void; signal?: AbortSignal; maxTokens?: number }) {
  const runFile = opts.runFile ?? path.join(dir, `run-${n++}.jsonl`);
  const result = await evaluate(
    { concurrency: 4, batch: opts.batch, ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}) },
    {
      skills,
      taskSet: scenario.taskSet,
      client,
      model: "m",
      grader,
      runFile,
      resume: opts.resume ?? false,
      stamp: { runId: "r", createdAt: "t" },
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  return { result, runFile };
}

async function reportOf(runFile: string): Promise<unknown> {
  const r = await readRunSummaries(runFile);
  const report = buildReport([r]);
  return report.evaluations.map(({ runIds: _r, createdAt: _c, costs: _k, modelId: _m, ...e }) => e);
}

const sortedBodies = (server: ScriptedServer) => server.requests.map((b) => canonicalJson(b)).sort();

describe("batch mode (OpenAI Files + Batch API on the scripted server)", () => {
  let sync: { server: ScriptedServer; report: unknown };
  const servers: ScriptedServer[] = [];
  const serve = async (batches?: BatchApiOptions) => {
    const s = await startScriptedServer({ script: scenario.script, ...(batches ? { batches } : {}) });
    servers.push(s);
    return s;
  };

  before(async () => {
    const server = await serve();
    const client = createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "m" });
    const { runFile } = await run(client, { batch: false });
    sync = { server, report: await reportOf(runFile) };
  });
  after(async () => {
    for (const s of servers) await s.close();
  });

  it("sends the synchronous run's request bodies, one round per turn, and gives its report", async () => {
    const server = await serve();
    const statuses: string[] = [];
    const { result, runFile } = await run(batchClient(server, path.join(dir, "cache-a")), {
      batch: true,
      onProgress: (p) => {
        for (const b of p.batches ?? []) statuses.push(`${b.id}:${b.status}:${b.completed}/${b.total}`);
      },
    });
    assert.equal(result.failedRuns, 0);
    assert.equal(result.header.pricing, "batch");
    assert.equal(server.calls, expectedCalls(scenario));
    assert.deepEqual(sortedBodies(server), sortedBodies(sync.server), "the same request bodies, synchronous or batched");
    assert.deepEqual(await reportOf(runFile), sync.report);
    // Round k holds turn k of every run that has one: all 2n first turns, then the enabled runs still going.
    assert.equal(server.batch.creates, ROUNDS);
    const perTurn = Array.from({ length: ROUNDS }, (_, k) => scenario.tasks.filter((t) => t.plan.enabled.length > k).length + (k === 0 ? scenario.tasks.length : 0));
    assert.deepEqual(server.batch.batches.map((b) => b.customIds.length), perTurn);
    assert.ok(statuses.some((s) => /:in_progress:/.test(s)) && statuses.some((s) => /:completed:(\d+)\/\1$/.test(s)), statuses.join(" "));
    // Every round is journalled to its end.
    const journal = readFileSync(batchJournalFile(runFile), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    assert.equal(journal.filter((l) => l.type === "done").length, ROUNDS);

    // An unchanged re-run in batch mode is free: every answer is in the response cache.
    server.reset();
    await run(batchClient(server, path.join(dir, "cache-a")), { batch: true });
    assert.equal(server.calls, 0);
    assert.equal(server.batch.creates, 0);
  });

  it("a batch that partly fails: its runs fail and are not recorded; resuming sends only them and completes the report", async () => {
    const server = await serve({ behave: ({ index }) => (index === 0 ? { failLine: ({ index: i }) => (i % 5 === 0 ? { status: 500, message: "scripted server error" } : undefined) } : {}) });
    const cache = path.join(dir, "cache-partial");
    const first = await run(batchClient(server, cache), { batch: true });
    const failed = Math.ceil((2 * scenario.tasks.length) / 5);
    assert.equal(first.result.failedRuns, failed);
    assert.match(first.result.lastError ?? "", /Batch request failed \(HTTP 500\): scripted server error/);
    assert.equal((await readRunSummaries(first.runFile)).records.length, 2 * scenario.tasks.length - failed);
    const before = server.calls;
    const again = await run(batchClient(server, cache), { batch: true, runFile: first.runFile, resume: true });
    assert.equal(again.result.failedRuns, 0);
    assert.ok(server.calls - before >= failed && server.calls - before < expectedCalls(scenario) / 2, `resume re-sent ${server.calls - before} requests`);
    assert.deepEqual(await reportOf(first.runFile), sync.report);
  });

  it("a batch that expires: the unanswered runs fail, resumable; answered ones are kept", async () => {
    const server = await serve({ behave: ({ index }) => (index === 1 ? { expireAfter: 3 } : {}) });
    const cache = path.join(dir, "cache-expire");
    const first = await run(batchClient(server, cache), { batch: true });
    const second = server.batch.batches[1]!;
    assert.equal(second.status, "expired");
    assert.equal(first.result.failedRuns, second.customIds.length - 3);
    assert.match(first.result.lastError ?? "", /expired/);
    const again = await run(batchClient(server, cache), { batch: true, runFile: first.runFile, resume: true });
    assert.equal(again.result.failedRuns, 0);
    assert.deepEqual(await reportOf(first.runFile), sync.report);
  });

  it("a lost create or upload answer makes no second batch or file; a batch gone at the provider is dropped and its requests re-sent", async () => {
    const lost = await serve({ behave: ({ index }) => (index === 0 ? { loseCreateAnswer: true } : {}) });
    const a = await run(batchClient(lost, path.join(dir, "cache-lost")), { batch: true });
    assert.equal(a.result.failedRuns, 0);
    assert.equal(lost.batch.creates, ROUNDS, "the create whose answer was lost was found again, not repeated");
    assert.deepEqual(await reportOf(a.runFile), sync.report);

    const lostUpload = await serve({ loseUploadAnswers: 1 });
    const u = await run(batchClient(lostUpload, path.join(dir, "cache-lost-upload")), { batch: true });
    assert.equal(u.result.failedRuns, 0);
    assert.equal(lostUpload.batch.uploads, ROUNDS, "the upload whose answer was lost was found by its name, not repeated");
    assert.equal(lostUpload.batch.creates, ROUNDS);

    const gone = await serve({ behave: ({ index }) => (index === 0 ? { hold: true } : {}) });
    const dropped = gone.batch.waitFor((e) => e.type === "poll" && e.batch.index === 0).then((e) => gone.batch.dropBatch((e as { batch: { id: string } }).batch.id));
    const b = await run(batchClient(gone, path.join(dir, "cache-gone")), { batch: true });
    await dropped;
    assert.equal(b.result.failedRuns, 0);
    assert.equal(gone.batch.creates, ROUNDS + 1, "the dropped round went out once more");
    assert.deepEqual(await reportOf(b.runFile), sync.report);
    const journal = readFileSync(batchJournalFile(b.runFile), "utf8");
    assert.match(journal, /"type":"dropped"/);
  });

  it("re-attaches after an interruption: to a created batch, a create the journal never saw, an upload it never saw", async () => {
    const server = await serve({ behave: ({ index }) => (index === 0 ? { hold: true } : {}) });
    const controller = new AbortController();
    const polled = server.batch.waitFor((e) => e.type === "poll" && e.batch.index === 0).then(() => controller.abort());
    const first = await run(batchClient(server, path.join(dir, "cache-int")), { batch: true, signal: controller.signal });
    await polled;
    assert.equal(first.result.stopReason, "cancelled");
    assert.equal(first.result.records.length, 0);
    const journal = readFileSync(batchJournalFile(first.runFile), "utf8");
    const lines = journal.trim().split("\n");
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { type: string }).type), ["round", "uploaded", "created"]);
    const round1 = server.batch.batches[0]!;
    server.batch.release(round1.id);

    // The same interrupted state, three ways: the journal as written; cut before "created" (the create's answer
    // was lost, or the process died before writing it); cut before "uploaded" (the upload's answer was lost).
    const variants = { created: lines, "before created": lines.slice(0, 2), "before uploaded": lines.slice(0, 1) };
    for (const [name, kept] of Object.entries(variants)) {
      const runFile = path.join(dir, `int-${name.replace(/ /g, "-")}.jsonl`);
      writeFileSync(runFile, readFileSync(first.runFile));
      writeFileSync(batchJournalFile(runFile), `${kept.join("\n")}\n`);
      const uploads = server.batch.uploads;
      const creates = server.batch.creates;
      const again = await run(batchClient(server, path.join(dir, `cache-int-${name.replace(/ /g, "-")}`)), { batch: true, runFile, resume: true });
      assert.equal(again.result.failedRuns, 0, name);
      assert.equal(server.batch.batches.filter((b) => b.input_file_id === round1.input_file_id).length, 1, `${name}: round 1 was created once`);
      assert.equal(server.batch.uploads - uploads, ROUNDS - 1, `${name}: round 1 was not uploaded again`);
      assert.equal(server.batch.creates - creates, ROUNDS - 1, `${name}: only the later rounds were created`);
      assert.deepEqual(await reportOf(runFile), sync.report, name);
    }
  });

  it("a model that refuses max_tokens: the refused requests go out again with max_completion_tokens", async () => {
    const refusing = await startScriptedServer({
      script: (req, ctx) =>
        (req as { max_tokens?: number }).max_tokens !== undefined
          ? { error: { status: 400, message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." } }
          : scenario.script(req, ctx),
    });
    servers.push(refusing);
    const { result, runFile } = await run(batchClient(refusing, path.join(dir, "cache-mct")), { batch: true, maxTokens: 64 });
    assert.equal(result.failedRuns, 0);
    assert.equal(refusing.batch.creates, ROUNDS + 1, "the first round once more, with the other parameter");
    const later = refusing.requests.slice(2 * scenario.tasks.length);
    assert.ok(later.length > 0 && later.every((b) => (b as { max_completion_tokens?: number }).max_completion_tokens === 64 && !("max_tokens" in b)));
    assert.deepEqual(await reportOf(runFile), sync.report);
  });

  it("refuses a model that cannot batch, with the reason", async () => {
    const server = await serve();
    const plain = createOpenAIClient({ baseURL: server.url, apiKey: KEY, model: "m" });
    const vscodeLike: ModelClient = { id: "vscode-lm:copilot/gpt-4o", complete: (r, o) => plain.complete(r, o) };
    const runFile = path.join(dir, "never.jsonl");
    await assert.rejects(
      evaluate({ batch: true }, { skills, taskSet: scenario.taskSet, client: vscodeLike, model: "m", grader, runFile, resume: false }),
      /Batch mode needs a model endpoint with a batch API .*; vscode-lm:copilot\/gpt-4o answers one request at a time/,
    );
    assert.equal(existsSync(runFile), false);
    assert.equal(server.calls, 0);
  });
});
