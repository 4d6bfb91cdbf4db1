/**
 * Integration tier, local models: the extension evaluates with a GGUF model in-process inside a real VS Code
 * (code-server), so node-llama-cpp's binary loads in the extension host, tool calls go through its function calling,
 * answers are graded, the run header records the weights, a re-run makes no model call, the weights are freed after
 * each evaluation, and the local default's download is refused when the mirror serves another file.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { DEFAULT_LOCAL_MODEL } from "../../src/core/models/local/catalog.js";
import { startFileServer, type FileServer } from "../support/file-server.js";
import { writeTinyChatModel } from "../support/gguf-writer.js";
import { bundleHostModule, missingPrerequisite, REPO_ROOT, runInExtensionHost, startCodeServer, type CodeServer } from "./support/code-server.js";

const skip =
  process.env.SF_VSCODE === "electron"
    ? "the local model test runs in code-server only"
    : (missingPrerequisite() ?? (existsSync(path.join(REPO_ROOT, "dist", "extension.js")) ? undefined : "extension not built (npm run build)"));

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function logsUnder(dir: string): string {
  if (!existsSync(dir)) return "";
  return readdirSync(dir).map((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? logsUnder(p) : name.endsWith(".log") ? readFileSync(p, "utf8") : "";
  }).join("\n");
}

describe("extension with a local GGUF model (node-llama-cpp in the extension host)", { skip: skip ?? false, timeout: 420_000 }, () => {
  let root: string;
  let modelFile: string;
  let modelsDir: string;
  let mirror: FileServer;
  let server: CodeServer | undefined;
  let facts: Facts;

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "sf-local-int-"));
    const workspace = path.join(root, "ws");
    const skillDir = path.join(workspace, "skills", "tidy-list-outputs");
    mkdirSync(skillDir, { recursive: true });
    cpSync(path.join(REPO_ROOT, "skills", "tidy-list-outputs", "SKILL.md"), path.join(skillDir, "SKILL.md"));
    const taskSetFile = path.join(workspace, "tasks.jsonl");
    const task = (id: string, solution: string, base: unknown[]) =>
      JSON.stringify({ id, kind: "python-function", prompt: `Write a Python function \`solution\` (${id}).`, entryPoint: "solution", canonicalSolution: solution, tests: { base, plus: [], atol: 0, oracle: "default" } });
    writeFileSync(taskSetFile, `${task("double", "def solution(x):\n    return 2 * x\n", [[1], [4]])}\n${task("negate", "def solution(x):\n    return -x\n", [[2]])}\n`);
    modelFile = path.join(root, "chain.gguf");
    await writeTinyChatModel(modelFile, { kind: "chain" });
    modelsDir = path.join(root, "models");
    mirror = await startFileServer({ files: { [`/${DEFAULT_LOCAL_MODEL.name}/${DEFAULT_LOCAL_MODEL.fileName}`]: readFileSync(modelFile) } });
    const resultsFile = path.join(root, "results.json");
    const testsModule = path.join(root, "host", "local.js");
    await bundleHostModule(path.join(__dirname, "host", "local.ts"), testsModule, { resultsFile, skillFile: path.join(skillDir, "SKILL.md"), taskSetFile, modelFile });
    server = await startCodeServer({
      sessionDir: path.join(root, "session"),
      logFile: path.join(REPO_ROOT, "test-results", "local-code-server.log"),
      env: { SKILL_FOLLOWING_MODELS_DIR: modelsDir, SKILL_FOLLOWING_MODELS_MIRROR: mirror.url, SKILL_FOLLOWING_LOCAL_THREADS: "1" },
      // Local models run where node-llama-cpp is installed: the development folder. The .vsix ships without it
      // (test/unit/extension/vsix.test.ts checks that its CLI refuses instead of downloading).
      installVsix: false,
    });
    facts = (await runInExtensionHost({ server, workspace, testsModule, resultsFile, timeoutMs: 360_000 })) as Facts;
  });

  after(async () => {
    await server?.close();
    await mirror?.close();
    if (root && !process.env.SF_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
  });

  it("ran the in-host suite to the end", () => {
    assert.equal(facts.error, null, `in-host failure after steps ${JSON.stringify(facts.steps)}: ${facts.error}`);
  });

  it("evaluates both conditions in-process: real tool calls, graded answers, the weights' sha256 in the header", () => {
    const e = facts.evaluation;
    assert.equal(e.cancelled, false);
    const sha = createHash("sha256").update(readFileSync(modelFile)).digest("hex");
    assert.equal(e.model.name, "local:chain.gguf");
    assert.equal(e.model.weights.sha256, sha);
    assert.match(e.model.id, new RegExp(`^local:chain\\.gguf@sha256:${sha};`));
    assert.equal(e.records.length, 4);
    for (const r of e.records) {
      assert.equal(r.pass, false);
      assert.match(r.reason, /expected .*got None/);
      assert.deepEqual(r.retrieved, r.condition === "enabled" ? ["tidy-list-outputs"] : []);
      assert.equal(r.modelCalls, r.condition === "enabled" ? 2 : 1);
    }
  });

  it("an unchanged re-run makes no model call", () => {
    assert.equal(facts.rerun.length, 4);
    for (const r of facts.rerun) assert.equal(r.modelCalls, 0);
  });

  it("frees the weights after each evaluation that loaded them", () => {
    const log = logsUnder(path.join(root, "session"));
    assert.match(log, /local model chain\.gguf loaded in/);
    assert.match(log, /local model chain\.gguf freed/);
  });

  it("refuses the local default when the mirror serves another file, before writing a byte", () => {
    assert.equal(facts.defaultOutcome, null);
    assert.ok(mirror.requests.length >= 1, "the download was tried");
    const log = logsUnder(path.join(root, "session"));
    assert.match(log, /refused without downloading/);
    assert.deepEqual(existsSync(modelsDir) ? readdirSync(modelsDir).filter((f) => /\.(gguf|part)$/.test(f)) : [], []);
  });
});
