/**
 * The engine process (dist/engine-host.js, src/core/runs/engine-protocol.ts) against the scripted server over real
 * HTTP: an evaluation run there gives the records an in-process evaluate() gives; a `host` client's requests come
 * back to this process and are answered here; errors come back as their classes; cancelling keeps the finished runs;
 * the API key crosses only the IPC channel (never a log line the engine sends).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancelledError, EndpointUnreachableError, InputError, ModelConfigError, ModelRequestError, ResumeMismatchError } from "../../../src/core/errors.js";
import { dataDirOf, workspaceLayout, type WorkspaceLayout } from "../../../src/core/layout.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import type { ModelClient } from "../../../src/core/models/types.js";
import { errorFromWire, errorToWire, parseEngineToHost, parseHostToEngine, type ClientSpec } from "../../../src/core/runs/engine-protocol.js";
import { evaluate } from "../../../src/core/runs/evaluate.js";
import { engineClient, engineGrader } from "../../../src/core/runs/factory.js";
import { parseRunSettings } from "../../../src/core/settings.js";
import { readSkillFile } from "../../../src/core/skills/index.js";
import type { Skill } from "../../../src/core/skills/types.js";
import { loadTaskSet } from "../../../src/core/tasks/index.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { runInEngineProcess, type EngineRun } from "../../../src/extension/engine-process.js";
import { API_KEY, createFixture, EXPECTED, type Fixture } from "../../integration/support/fixture.js";

const distDir = path.join(process.cwd(), "dist");
const MODEL = "scripted-model";

let root: string;
let fixture: Fixture;
let skills: Skill[];
let taskSet: TaskSet;
let pythonTasks: TaskSet;

/** What a run record says about the evaluation (not its ids, times or latencies). */
function outcomes(runFile: string) {
  return readFileSync(runFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"type":"run"'))
    .map((l) => JSON.parse(l) as { taskId: string; condition: string; sample: number; verdict: unknown; retrieved: unknown; answer: unknown; modelCalls: number; cachedCalls: number })
    .map((r) => ({ taskId: r.taskId, condition: r.condition, sample: r.sample, verdict: r.verdict, retrieved: r.retrieved, answer: r.answer, calls: r.modelCalls + r.cachedCalls }))
    .sort((a, b) => `${a.taskId}${a.condition}`.localeCompare(`${b.taskId}${b.condition}`));
}

function layoutIn(name: string): WorkspaceLayout {
  return workspaceLayout(dataDirOf(path.join(root, name)));
}

function engineRun(layout: WorkspaceLayout, client: ClientSpec, overrides: Partial<EngineRun> & { runFile?: string; tasks?: TaskSet; concurrency?: number } = {}): EngineRun & { logs: string[] } {
  const logs: string[] = [];
  const log = (m: string | Error) => logs.push(String(m));
  const { runFile, tasks, concurrency, ...rest } = overrides;
  return {
    start: {
      settings: parseRunSettings({ concurrency: concurrency ?? 2 }),
      skills,
      taskSet: tasks ?? taskSet,
      client,
      model: MODEL,
      baseUrl: fixture.server.url,
      runFile: runFile ?? path.join(layout.runsDir, "run.jsonl"),
      resume: false,
      dirs: layout,
      distDir,
      harnessSearchFolders: [],
    },
    hosts: {},
    logger: { trace: log, debug: log, info: log, warn: log, error: log },
    signal: new AbortController().signal,
    onProgress: () => undefined,
    logs,
    ...rest,
  };
}

const openai = (apiKey = API_KEY): ClientSpec => ({ kind: "openai", baseURL: fixture.server.url, apiKey, model: MODEL, timeoutMs: 30_000, batch: false });

before(async () => {
  root = mkdtempSync(path.join(tmpdir(), "sf-engine-process-"));
  fixture = await createFixture(path.join(root, "ws"));
  const { skill } = await readSkillFile(fixture.skillFile);
  skills = [skill!];
  taskSet = await loadTaskSet(fixture.taskSetFile);
  pythonTasks = await loadTaskSet(fixture.pythonTaskSetFile);
  assert.ok(existsSync(path.join(distDir, "engine-host.js")), "dist/engine-host.js is built (node esbuild.mjs)");
});

after(async () => {
  await fixture?.close();
  if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
});

describe("the engine process", () => {
  it("evaluates the fixture with the records an in-process evaluate() writes, and never logs the key", async () => {
    const inProcess = layoutIn("in-process");
    const grader = engineGrader({ dirs: inProcess, responseCache: true, distDir });
    const client = engineClient(createOpenAIClient({ baseURL: fixture.server.url, apiKey: API_KEY, model: MODEL, env: {} }), { responseCache: true, dirs: inProcess });
    const here = path.join(inProcess.runsDir, "run.jsonl");
    try {
      await evaluate({ concurrency: 2 }, { skills, taskSet, client, model: MODEL, baseUrl: fixture.server.url, grader, runFile: here, resume: false });
    } finally {
      await grader.dispose();
    }
    const callsBefore = fixture.server.calls;
    const progress: number[] = [];
    const run = engineRun(layoutIn("engine"), openai(), { onProgress: (p) => progress.push(p.done) });
    const out = await runInEngineProcess(run);
    assert.equal(out.cancelled, false);
    assert.equal(fixture.server.calls - callsBefore, EXPECTED.firstRunCalls, "the engine made every call itself (its own response cache, empty)");
    assert.equal(out.result.records.length, 2 * EXPECTED.n);
    assert.equal(out.result.failedRuns, 0);
    assert.deepEqual(outcomes(out.result.runFile), outcomes(here));
    assert.equal(Math.max(...progress), 2 * EXPECTED.n, "progress came over the channel up to the last run");
    // Resuming the finished run in a new engine: nothing to do, and its log line reaches the host's logger.
    const again = engineRun(layoutIn("engine"), openai(), { runFile: out.result.runFile });
    again.start.resume = true;
    const callsBeforeResume = fixture.server.calls;
    const resumed = await runInEngineProcess(again);
    assert.equal(fixture.server.calls, callsBeforeResume);
    assert.equal(resumed.result.records.length, 2 * EXPECTED.n);
    assert.ok(again.logs.some((l) => l.includes(`resuming ${out.result.runFile}: ${2 * EXPECTED.n} runs already done`)), `log: ${again.logs.join(" | ")}`);
    assert.ok(![...run.logs, ...again.logs].some((l) => l.includes(API_KEY)), "no log line holds the key");
  });

  it("sends a host client's requests back to the host and grades python answers in its own sandbox", async () => {
    let answered = 0;
    const inner = createOpenAIClient({ baseURL: fixture.server.url, apiKey: API_KEY, model: MODEL, env: {} });
    const host: ModelClient = { id: "host-test:scripted", complete: (req, opts) => ((answered++), inner.complete(req, opts)) };
    const layout = layoutIn("host-client");
    const out = await runInEngineProcess({ ...engineRun(layout, { kind: "host", id: host.id }, { tasks: pythonTasks }), hosts: { model: host } });
    assert.equal(out.cancelled, false);
    assert.equal(answered, 3 * pythonTasks.tasks.length, "every request of the run went through the host's client");
    const byTask = outcomes(out.result.runFile).map((r) => `${r.taskId}/${r.condition}:${(r.verdict as { pass?: boolean } | undefined)?.pass ?? JSON.stringify(r.verdict)}`);
    // P1 is rescued (only the enabled answer is right), P2 harmed (only the disabled one is).
    assert.deepEqual(byTask, ["P1-add-one/disabled:false", "P1-add-one/enabled:true", "P2-double/disabled:true", "P2-double/enabled:false"]);
    const header = JSON.parse(readFileSync(out.result.runFile, "utf8").split("\n")[0]!) as { model: { id: string } };
    assert.equal(header.model.id, host.id, "the run header names the host's client");
  });

  it("fails with the engine's error as its class: a refused key is a ModelRequestError with status 401", async () => {
    const run = engineRun(layoutIn("bad-key"), openai("sk-wrong-key-0000"));
    await assert.rejects(runInEngineProcess(run), (err: unknown) => {
      assert.ok(err instanceof ModelRequestError, `got ${String(err)}`);
      assert.equal(err.status, 401);
      return true;
    });
    assert.ok(!run.logs.some((l) => l.includes("sk-wrong-key-0000")), "no log line holds the key");
  });

  it("a host client's error reaches the engine as its class (a fatal 403 stops the evaluation) and comes back", async () => {
    const host: ModelClient = {
      id: "host-test:forbidden",
      complete: () => Promise.reject(new ModelRequestError("language model access was not granted", 403, { hintIds: ["modelProvider"] })),
    };
    const run = { ...engineRun(layoutIn("host-error"), { kind: "host", id: host.id }), hosts: { model: host } };
    await assert.rejects(runInEngineProcess(run), (err: unknown) => {
      assert.ok(err instanceof ModelRequestError, `got ${String(err)}`);
      assert.equal(err.status, 403);
      assert.deepEqual(err.options.hintIds, ["modelProvider"]);
      return true;
    });
  });

  it("cancelling stops the engine and keeps the finished runs", async () => {
    const controller = new AbortController();
    const layout = layoutIn("cancel");
    // A host client that holds its third request until the cancel: the run is certainly still going when it comes.
    let seen = 0;
    const inner = createOpenAIClient({ baseURL: fixture.server.url, apiKey: API_KEY, model: MODEL, env: {} });
    const host: ModelClient = {
      id: "host-test:slow",
      complete: (req, opts) => {
        if (++seen < 3) return inner.complete(req, opts);
        controller.abort();
        return new Promise((_, reject) => opts.signal?.addEventListener("abort", () => reject(new CancelledError()), { once: true }));
      },
    };
    const out = await runInEngineProcess({ ...engineRun(layout, { kind: "host", id: host.id }, { concurrency: 1 }), hosts: { model: host }, signal: controller.signal });
    assert.equal(out.cancelled, true);
    assert.ok(out.result.records.length >= 1 && out.result.records.length < 2 * EXPECTED.n, `${out.result.records.length} runs kept`);
    assert.equal(outcomes(out.result.runFile).length, out.result.records.length);
  });
});

describe("the engine protocol", () => {
  it("carries every error class the hosts decide on, with its fields", () => {
    const cases: Error[] = [
      new InputError("bad line", { file: "/x/tasks.jsonl", line: 3, hint: "fix it", hintIds: ["taskSet"] }),
      new ResumeMismatchError("other inputs"),
      new ModelConfigError("no key", { hintIds: ["apiKey"] }),
      new ModelRequestError("forbidden", 403),
      new EndpointUnreachableError("nothing there", "http://127.0.0.1:9/v1"),
      new CancelledError(),
    ];
    for (const e of cases) {
      const back = errorFromWire(structuredClone(errorToWire(e)));
      assert.equal(back.constructor, e.constructor, e.name);
      assert.equal(back.message, e.message);
      assert.deepEqual((back as InputError).options, (e as InputError).options);
    }
    assert.equal((errorFromWire(errorToWire(new ModelRequestError("x", 429))) as ModelRequestError).status, 429);
    assert.equal((errorFromWire(errorToWire(new EndpointUnreachableError("x", "http://h/v1"))) as EndpointUnreachableError).endpoint, "http://h/v1");
    // Another class crosses as a plain Error that still names it.
    const other = errorFromWire(errorToWire(new TypeError("boom")));
    assert.equal(other.constructor, Error);
    assert.equal(other.message, "TypeError: boom");
  });

  it("refuses a malformed message, naming its type and field", () => {
    assert.throws(() => parseHostToEngine({ type: "chat-result", id: "one" }), /of type "chat-result" is malformed: id/);
    assert.throws(() => parseEngineToHost({ type: "teleport" }), /of type "teleport" is malformed/);
    assert.throws(() => parseEngineToHost({ type: "failed", error: { kind: "NotAnError", message: "x" } }), /error\.kind/);
    assert.equal(parseEngineToHost({ type: "log", level: "info", message: "hi" }).type, "log");
  });
});
