/**
 * One construction site each (issue 26, "one engine"): the response-cache wrapper, the grader and the judge are built
 * only by src/core/runs/factory.ts, which both hosts call; the factory's parts behave as the hosts relied on. And the
 * hosts decide by error class, never by matching an error's message.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { InputError, ResumeMismatchError } from "../../../src/core/errors.js";
import { createOpenAIClient } from "../../../src/core/models/openai-client.js";
import { parseAblationSettings } from "../../../src/core/runs/ablation-settings.js";
import { engineClient, engineGrader, judgeConfig, judgeEndpoint } from "../../../src/core/runs/factory.js";
import { parseRunSettings } from "../../../src/core/settings.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";

const src = path.resolve(__dirname, "../../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.ts$/.test(name) ? [p] : [];
  });
}

/** `file:line` of every line of src/ matching `pattern`, outside comments. */
function sites(pattern: RegExp): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(src)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (/^\s*(\*|\/\/)/.test(line)) return;
        if (pattern.test(line)) out.push(`${path.relative(src, file)}:${i + 1}`);
      });
  }
  return out;
}
const only = (found: string[], file: string) => found.filter((s) => !s.startsWith(`${file}:`));

describe("one construction site for the cached client, the grader and the judge", () => {
  it("createCachedClient( is called only by the factory", () => {
    assert.deepEqual(only(only(sites(/\bcreateCachedClient\(/), "core/runs/factory.ts"), "core/models/cache.ts"), []);
    assert.equal(sites(/\bcreateCachedClient\(/).filter((s) => s.startsWith("core/runs/factory.ts:")).length, 1);
  });
  it("createGrader( only by the factory, and the Python grader only by createGrader", () => {
    assert.deepEqual(only(only(sites(/\bcreateGrader\(/), "core/runs/factory.ts"), "core/grading/index.ts"), []);
    assert.deepEqual(only(only(sites(/\bcreatePythonGrader\(|\bnew PythonGrader\(/), "core/grading/index.ts"), "core/grading/python-grader.ts"), []);
  });
  it("a judge (client, model, repeats) is made only by judgeConfig", () => {
    assert.deepEqual(only(sites(/\{[^{}]*\bclient:[^{}]*\brepeats:/), "core/runs/factory.ts"), []);
    assert.ok(sites(/\bjudgeConfig\(/).some((s) => s.startsWith("core/runs/open.ts:")), "the evaluation's judge");
    assert.ok(sites(/\bjudgeConfig\(/).some((s) => s.startsWith("core/runs/ablate.ts:")), "the ablation's judge");
  });
  it("the hosts match no error message with a regular expression", () => {
    // Messages are for people; a host decides on the error's class (src/core/errors.ts). args.ts reads the flag out
    // of node's own parseArgs message (node gives it no other way), after checking the error's code.
    const matches = sites(/\.test\(\s*(err|e|error)\.message|\.message\)?\.(match|includes|startsWith)\(|\/\.(test|exec)\((\(err as Error\)|err|e|error)\.message/);
    assert.deepEqual(
      matches.filter((s) => (s.startsWith("extension/") || s.startsWith("cli/")) && !s.startsWith("cli/args.ts:")),
      [],
    );
  });
});

describe("the factory's parts", () => {
  let server: ScriptedServer;
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-factory-"));
  before(async () => {
    server = await startScriptedServer({ script: () => ({ content: "hi" }) });
  });
  after(async () => {
    await server.close();
  });
  const inner = () => createOpenAIClient({ baseURL: server.url, apiKey: "sk-test", model: "m", retryBaseMs: 5 });
  const ask = (c: ReturnType<typeof inner>) => c.complete({ model: "m", messages: [{ role: "user", content: "hello" }] }, { sampleIndex: 0 });

  it("engineClient: behind the response cache when it is on (the second ask is free), the inner client itself when off", async () => {
    server.reset();
    const cached = engineClient(inner(), { responseCache: true, dirs: { responsesDir: path.join(dir, "responses") } });
    assert.equal((await ask(cached)).cached, false);
    assert.equal((await ask(cached)).cached, true);
    assert.equal(server.calls, 1);
    const raw = inner();
    assert.equal(engineClient(raw, { responseCache: false, dirs: { responsesDir: path.join(dir, "responses") } }), raw);
  });

  it("engineGrader grades through the engine's dispatch (math here, no sandbox started)", async () => {
    const grader = engineGrader({ dirs: { expectedDir: path.join(dir, "expected"), verdictsDir: path.join(dir, "verdicts") }, responseCache: true });
    try {
      assert.deepEqual(grader.prepare([{ id: "t", kind: "math-answer", prompt: "1+1", answer: "2" }]), { isolation: "none" });
      assert.equal((await grader.grade({ id: "t", kind: "math-answer", prompt: "1+1", answer: "2" }, "2")).pass, true);
    } finally {
      await grader.dispose();
    }
  });

  it("judgeEndpoint: none unless a judge model or URL is set (or batch mode needs a synchronous one); the key policy is the host's", () => {
    const settings = parseRunSettings({});
    const dirs = { responsesDir: path.join(dir, "responses") };
    const asked: boolean[] = [];
    const apiKey = (same: boolean) => (asked.push(same), same ? "sk-same" : undefined);
    assert.equal(judgeEndpoint(settings, { baseURL: server.url, model: "m" }, { apiKey, dirs }), undefined);
    assert.equal(judgeEndpoint({ ...settings, judgeModel: "j" }, { baseURL: server.url, model: "m" }, { apiKey, dirs })!.model, "j");
    assert.equal(judgeEndpoint({ ...settings, batch: true }, { baseURL: server.url, model: "m" }, { apiKey, dirs })!.model, "m");
    judgeEndpoint({ ...settings, judgeBaseUrl: `${server.url}/judge` }, { baseURL: server.url, model: "m" }, { apiKey, dirs });
    assert.deepEqual(asked, [true, true, false], "another endpoint is never offered the evaluated endpoint's key");
  });

  it("judgeConfig carries the completion cap only when there is one", () => {
    const client = inner();
    assert.deepEqual(judgeConfig({ client, model: "j" }, { repeats: 3 }), { client, model: "j", repeats: 3 });
    assert.deepEqual(judgeConfig({ client, model: "j" }, { repeats: 1, maxTokens: 50 }), { client, model: "j", repeats: 1, maxTokens: 50 });
  });
});

describe("ablation settings and the resume error", () => {
  it("parseAblationSettings fills the defaults and names a bad value", () => {
    assert.deepEqual(parseAblationSettings({ concurrency: 2 }), { concurrency: 2, control: 0.25, pairs: false, description: false, agentUnconfined: false });
    assert.throws(() => parseAblationSettings({ concurrency: 0 }), (e: unknown) => e instanceof InputError && /concurrency must be a whole number from 1 to 64 \(got 0\)/.test(e.message));
    assert.throws(() => parseAblationSettings({ concurrency: 1, control: 2 }), /the fraction of both-pass tasks to ablate must be a number from 0 to 1 \(got 2\)/);
  });

  it("ResumeMismatchError is an InputError (exit code and hints unchanged) a host can tell apart by class", () => {
    const e = new ResumeMismatchError("x.jsonl: cannot resume: the model changed", { file: "x.jsonl" });
    assert.ok(e instanceof InputError);
    assert.equal(e.name, "ResumeMismatchError");
    assert.ok(!(new InputError("x") instanceof ResumeMismatchError));
  });
});
