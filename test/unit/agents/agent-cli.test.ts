/**
 * Choosing the agent on the command line: `run --help` lists the agents and the unconfined switch; an agent without
 * an adapter, or a harness that is not installed, is refused with exit 2 and a fix before any model request.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { cliPath, runCli, tempDir } from "../reliability/cli-process.js";

function project(ws: string): void {
  mkdirSync(path.join(ws, "skills", "count-up"), { recursive: true });
  writeFileSync(path.join(ws, "skills", "count-up", "SKILL.md"), "---\nname: count-up\ndescription: Use when adding one.\n---\nCount up.\n");
  writeFileSync(path.join(ws, "tasks.jsonl"), `${JSON.stringify({ id: "one", kind: "math-answer", prompt: "Add 1 and 1.", answer: "2" })}\n`);
}

/** Runs a copy of the built CLI placed in `root` (no node_modules above it or above the working folder). */
function runCopiedCli(root: string, args: string[], baseUrl: string): Promise<{ code: number | null; stderr: string }> {
  mkdirSync(path.join(root, "dist"), { recursive: true });
  const cli = path.join(root, "dist", "cli.js");
  copyFileSync(cliPath, cli);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: root,
      // No node_modules/.bin (npm test puts it on PATH): the harness must not be found through its command either.
      env: { PATH: [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter), HOME: path.join(root, "home"), TMPDIR: root, OPENAI_API_KEY: "k", OPENAI_BASE_URL: baseUrl },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("the agent on the command line", { timeout: 300_000 }, () => {
  let server: ScriptedServer;
  const ws = tempDir("sf-agent-cli-");
  before(async () => {
    project(ws);
    server = await startScriptedServer({ script: () => ({ content: "The answer is \\boxed{2}." }) });
  });
  after(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it("run --help lists every agent id and the unconfined switch", async () => {
    const { code, stdout, stderr } = await runCli(["run", "--help"], { cwd: ws });
    assert.equal(code, 0, stderr);
    const help = stdout + stderr;
    assert.match(help, /--agent builtin\|codex\|claude-code\|opencode\|gemini\n/);
    assert.match(help.replace(/\s+/g, " "), /codex \(Codex CLI\), claude-code \(Claude Code\) or gemini \(Gemini CLI\), installed with npm/);
    assert.match(help, /--agent-unconfined +Run a harness agent without bubblewrap confinement/);
  });

  it("an agent without an adapter: exit 2, the agents there are, no model request", async () => {
    server.reset();
    const r = await runCli(["run", "--agent", "opencode", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "m"], { cwd: ws, apiKey: "k", baseUrl: server.url });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: the agent 'opencode' has no adapter in this version \(harness agents available: codex, claude-code, gemini\)/);
    assert.match(r.stderr, /hint: Choose builtin or a harness this version runs \(codex, claude-code, gemini\)\. \(--agent builtin\|codex\|claude-code\|opencode\|gemini\)/);
    assert.equal(server.requests.length, 0);
  });

  it("an unknown agent id: exit 2, the accepted ids", async () => {
    const r = await runCli(["run", "--agent", "cursor", "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "m"], { cwd: ws, apiKey: "k", baseUrl: server.url });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--agent must be one of builtin, codex, claude-code, opencode, gemini \(got 'cursor'\)/);
  });

  for (const [agent, name, pkg] of [
    ["codex", "Codex CLI", "@openai/codex"],
    ["claude-code", "Claude Code", "@anthropic-ai/claude-code"],
    ["gemini", "Gemini CLI", "@google/gemini-cli"],
  ] as const) {
    it(`${agent} not installed: exit 2, the npm package to install, no model request`, async () => {
      const root = tempDir(`sf-agent-missing-${agent}-`);
      try {
        project(root);
        server.reset();
        const r = await runCopiedCli(root, ["run", "--agent", agent, "--skills", "skills", "--tasks", "tasks.jsonl", "--model", "m"], server.url);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`error: ${name} is not installed: no ${pkg.replace("/", "\\/")} package found above ${root.replace(/[/.]/g, "\\$&")}, beside this program or on PATH; install it with npm \\(npm install ${pkg.replace("/", "\\/")}\\)`));
        assert.match(r.stderr, /hint: Install the harness with npm in this project \(or beside this program\), or choose another agent\. \(--agent /);
        assert.equal(server.requests.length, 0, "refused before the model was asked");
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
