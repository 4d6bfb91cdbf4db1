import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { DEFAULT_LOCAL_MODEL } from "../../../src/core/models/local/catalog.js";
import { RunHeaderSchema, RunRecordSchema } from "../../../src/core/runs/types.js";
import { startFileServer, type FileServer } from "../../support/file-server.js";
import { writeTinyChatModel } from "../../support/gguf-writer.js";
import { cli, repoRoot, spawnCollect } from "./harness.js";
import { closedPort } from "../../support/ports.js";

/**
 * The built CLI with the local provider: a generated "chain" GGUF (it calls load_skill through node-llama-cpp's
 * function calling, then answers with code that fails every test), 4 tasks, both conditions, graded in the sandbox.
 * Then the local default with nothing configured: announced, --no-local, a wrong-size mirror and offline.
 */

/** Four small tasks whose entry point is the one the chain model defines, so its answers run against real tests. */
const TASKS = [
  ["double", "Return twice `x`.", "def solution(x):\n    return 2 * x\n", [[1], [5]]],
  ["negate", "Return `-x`.", "def solution(x):\n    return -x\n", [[1], [0]]],
  ["length", "Return the length of the list `xs`.", "def solution(xs):\n    return len(xs)\n", [[[1, 2]], [[]]]],
  ["first", "Return the first element of `xs`.", "def solution(xs):\n    return xs[0]\n", [[[3, 4]], [[9]]]],
].map(([id, text, solution, base]) => ({
  id: `local-${String(id)}`,
  kind: "python-function",
  prompt: `Write a Python function \`solution\`. ${String(text)}`,
  entryPoint: "solution",
  canonicalSolution: solution,
  tests: { base, plus: [], atol: 0, oracle: "default" },
}));

describe("skill-following run with a local model (generated GGUF, in-process)", () => {
  let ws: string;
  let modelFile: string;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => spawnCollect(process.execPath, [cli, "run", ...args], { cwd: ws, env: { ...env, ...extra } });
  const base = ["--skills", "skills", "--tasks", "tasks.jsonl", "--concurrency", "2"];

  before(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), "sf-cli-local-"));
    cpSync(path.join(repoRoot, "skills"), path.join(ws, "skills"), { recursive: true });
    writeFileSync(path.join(ws, "tasks.jsonl"), `${TASKS.map((t) => JSON.stringify(t)).join("\n")}\n`);
    modelFile = path.join(ws, "chain.gguf");
    await writeTinyChatModel(modelFile, { kind: "chain" });
    // No key, no endpoint, no Ollama: only what the test names can answer.
    env = {
      PATH: process.env.PATH ?? "",
      HOME: ws,
      OLLAMA_HOST: `http://127.0.0.1:${await closedPort()}`,
      SKILL_FOLLOWING_MODELS_DIR: path.join(ws, "models"),
      SKILL_FOLLOWING_LOCAL_THREADS: "1",
      SKILL_FOLLOWING_TASKS_CACHE: path.join(ws, "task-sets"),
    };
  });

  it("a paired run of 4 tasks: real tool calls, graded answers, the model's sha256 in the header", async () => {
    const r = await run([...base, "--model", "local:chain.gguf", "--out", "runs/local.jsonl"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /local model chain\.gguf loaded in/);
    assert.match(r.stdout, /runs: 8 \(12 model calls, 0 cached\)/);
    const lines = readFileSync(path.join(ws, "runs/local.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as unknown);
    const header = RunHeaderSchema.parse(lines[0]);
    const sha = createHash("sha256").update(readFileSync(modelFile)).digest("hex");
    assert.equal(header.model.name, "local:chain.gguf");
    assert.deepEqual(header.model.weights, { file: modelFile, sha256: sha, bytes: readFileSync(modelFile).length });
    assert.match(header.model.id, new RegExp(`^local:chain\\.gguf@sha256:${sha};`));
    const records = lines.slice(1).map((l) => RunRecordSchema.parse(l));
    assert.equal(records.length, 8);
    for (const rec of records) {
      // The chain model's answer block (DEFAULT_TINY_ANSWER), as the agent extracts it.
      assert.equal(rec.answer, "def solution(*args):\n    return None\n");
      assert.equal(rec.verdict.pass, false);
      // Graded by running the tests: the function exists and returns the wrong value.
      assert.match(rec.verdict.reason, /expected .*got None/, rec.verdict.reason);
      if (rec.condition === "enabled") {
        assert.deepEqual(rec.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [["load_skill", { name: "tidy-list-outputs" }]]);
        assert.deepEqual(rec.retrieved.map((s) => s.name), ["tidy-list-outputs"]);
        assert.equal(rec.modelCalls, 2);
      } else {
        assert.deepEqual(rec.toolCalls, []);
        assert.equal(rec.modelCalls, 1);
      }
    }
  });

  it("an unchanged re-run makes 0 model calls and loads no model", async () => {
    const r = await run([...base, "--model", "local:chain.gguf", "--out", "runs/again.jsonl"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /runs: 8 \(0 model calls, 12 cached\)/);
    assert.doesNotMatch(r.stderr, /loaded in/);
  });

  describe("nothing configured: the local default", () => {
    let mirror: FileServer;
    before(async () => {
      // A mirror serving the tiny model under the default's name: the pinned size and sha256 do not match.
      mirror = await startFileServer({ files: { [`/${DEFAULT_LOCAL_MODEL.name}/${DEFAULT_LOCAL_MODEL.fileName}`]: readFileSync(modelFile) } });
    });
    after(() => mirror.close());

    it("is announced in one line, plans the first-run subset, and refuses a file of the wrong size before downloading", async () => {
      const r = await run(["--skills", "skills", "--tasks", path.join(repoRoot, "samples/python-basics.jsonl")], { SKILL_FOLLOWING_MODELS_MIRROR: mirror.url });
      // No model could be had: exit code 4, as for an unreachable endpoint (was 1, "runs failed", before issue 23).
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /using the local default Qwen2\.5-Coder-0\.5B-Instruct \(Q4_K_M\) \(491 MB, Apache-2\.0\), downloaded once to .*models and run in-process; --no-local turns this off/);
      assert.match(r.stderr, /local default: evaluating the first 6 of 43 tasks .*--limit 43 runs them all/);
      assert.match(r.stderr, /offers \d+ bytes but Qwen2\.5-Coder-0\.5B-Instruct \(Q4_K_M\) is pinned at 491400064; refused without downloading/);
      assert.equal(mirror.requests.length, 1);
      const models = path.join(ws, "models");
      assert.deepEqual(existsSync(models) ? readdirSync(models).filter((f) => f.endsWith(".gguf") || f.endsWith(".part")) : [], []);
    });

    it("offline: a clear error, with where else the file can come from", async () => {
      const r = await run([...base], { SKILL_FOLLOWING_MODELS_MIRROR: `http://127.0.0.1:${await closedPort()}` });
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /cannot download Qwen2\.5-Coder-0\.5B-Instruct \(Q4_K_M\) \(491 MB\): 127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); this machine looks offline/);
      // Every way to get a model: a key, Ollama, a base URL, a mirror, a local file.
      for (const way of [/OPENAI_API_KEY/, /Ollama/, /--base-url/, /SKILL_FOLLOWING_MODELS_MIRROR=<url>/, /--model local:<file\.gguf>/]) assert.match(r.stderr, way);
    });

    it("--no-local, or SKILL_FOLLOWING_NO_LOCAL=1, keeps it an error that lists every backend", async () => {
      for (const [args, extra] of [[["--no-local"], {}], [[], { SKILL_FOLLOWING_NO_LOCAL: "1" }]] as const) {
        const r = await run([...base, ...args], extra);
        assert.equal(r.code, 4, r.stderr);
        assert.match(r.stderr, /No model is configured.*\n[\s\S]*The local default model is off/);
      }
      assert.equal(mirror.requests.length, 1, "nothing was fetched");
    });
  });

  it("ablate re-runs the run's own GGUF, and refuses when that file now holds other weights", async () => {
    const ablate = (extra: string[]) => spawnCollect(process.execPath, [cli, "ablate", "runs/local.jsonl", "--skill", "tidy-list-outputs", "--dry-run", ...extra], { cwd: ws, env });
    const same = await ablate([]);
    assert.match(same.stderr, /chain\.gguf \(sha256 [0-9a-f]{12}…, 0 MB\) runs in-process/);
    await writeTinyChatModel(modelFile, { kind: "random", seed: 11 });
    const other = await ablate([]);
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /the run was made with local:chain\.gguf sha256 [0-9a-f]{64}, but .*chain\.gguf now has sha256 [0-9a-f]{64}/);
  });
});
