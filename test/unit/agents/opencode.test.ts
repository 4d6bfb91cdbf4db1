/**
 * The OpenCode adapter (src/core/agents/opencode.ts): finding the pinned binary, the headless command and its
 * environment (a dummy key only, the prompt on stdin), the config in the private HOME, reading its `--format json`
 * events (lines as OpenCode 1.18.33 printed them, trimmed of fields nothing reads), the evidence in proxied tool
 * calls, and the request normalisation.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { normalizeOpenCodeRequest, openCodeAdapter, openCodeDate, parseOpenCodeEvent } from "../../../src/core/agents/opencode.js";
import type { LaunchContext } from "../../../src/core/agents/types.js";
import type { ChatRequest } from "../../../src/core/models/types.js";

const adapter = openCodeAdapter();
const ROOT = path.resolve(__dirname, "..", "..", "..");
const line = (o: object) => JSON.stringify(o);
const head = { timestamp: 1796527396902, sessionID: "ses_db69f95b1ffeQDxUCsr0eexIL4" };

const STEP_START = line({ type: "step_start", ...head, part: { id: "prt_1", type: "step-start" } });
const SKILL_USE = line({ type: "tool_use", ...head, part: { type: "tool", tool: "skill", callID: "call_1", state: { status: "completed", input: { name: "demo-skill" }, output: '<skill_content name="demo-skill">…</skill_content>', title: "Loaded skill: demo-skill" } } });
const READ_USE = line({ type: "tool_use", ...head, part: { type: "tool", tool: "read", callID: "call_2", state: { status: "completed", input: { filePath: "/workspace/.opencode/skills/demo-skill/references/r.md" }, output: "<path>…</path>" } } });
const BASH_USE = line({ type: "tool_use", ...head, part: { type: "tool", tool: "bash", callID: "call_3", state: { status: "completed", input: { command: "cat .opencode/skills/demo-skill/SKILL.md", description: "show" }, output: "---\n" } } });
const TEXT = line({ type: "text", ...head, part: { type: "text", text: "The answer is 42.", time: { start: 1, end: 2 } } });
const STEP_FINISH = line({ type: "step_finish", ...head, part: { type: "step-finish", reason: "stop", tokens: { total: 118, input: 100, output: 7, reasoning: 4, cache: { write: 2, read: 5 } }, cost: 0 } });
const ERROR = line({ type: "error", ...head, error: { name: "APIError", data: { message: "upstream broke", statusCode: 400, isRetryable: false } } });

function ctx(): LaunchContext {
  return {
    binary: { path: "/opt/opencode", version: "1.18.33", sha256: "0".repeat(64), package: "opencode-ai" },
    workspace: "/workspace",
    home: "/home/agent",
    proxyUrl: "http://127.0.0.1:18080/v1",
    dummyKey: "sk-proxy-0123",
    model: "gpt-4o-mini",
    prompt: 'What is "6*7"?\n--help is not a flag here.',
    params: { temperature: 0 },
    maxTurns: 12,
  };
}

describe("OpenCode adapter", () => {
  it("locates the pinned native binary in its platform package: version 1.18.33, its sha256, and the binary says the same version", async (t) => {
    let binary;
    try {
      binary = await adapter.locate({ from: [ROOT] });
    } catch (err) {
      if (process.env.CI === "true") throw err;
      return t.skip(`OpenCode (opencode-ai) is not installed: ${err instanceof Error ? err.message : String(err)}`);
    }
    assert.equal(binary.version, "1.18.33");
    assert.equal(binary.package, "opencode-ai");
    assert.match(binary.sha256, /^[0-9a-f]{64}$/);
    assert.ok(existsSync(binary.path));
    assert.match(binary.path, /opencode-[a-z]+-[a-z0-9]+(-baseline)?(-musl)?[/\\]bin[/\\]opencode(\.exe)?$/);
    assert.equal(execFileSync(binary.path, ["--version"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" } }).trim(), "1.18.33");
  });

  it("runs `opencode run` with the JSON events, a fixed title, the proxy's provider and model; the prompt on stdin, never in argv", () => {
    const { argv, env, stdin } = adapter.command(ctx());
    assert.deepEqual(argv, ["/opt/opencode", "run", "--format", "json", "--title", "skill-following", "--auto", "--pure", "--model", "skill-following/gpt-4o-mini"]);
    assert.equal(stdin, ctx().prompt);
    assert.ok(!argv.some((a) => a.includes("6*7")));
    assert.equal(env.SKILL_FOLLOWING_PROXY_KEY, "sk-proxy-0123");
    assert.equal(env.XDG_CONFIG_HOME, "/home/agent/.config");
    assert.equal(env.XDG_DATA_HOME, "/home/agent/.local/share");
    for (const v of ["OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_EXTERNAL_SKILLS"]) assert.equal(env[v], "1", v);
    assert.ok(!JSON.stringify(env).includes("OPENAI"), "no variable of the user's endpoint");
    assert.equal(adapter.settings().command, "opencode run --format json --title skill-following --auto --pure");
    assert.equal(adapter.skillsDir, ".opencode/skills");
    assert.equal(adapter.wireFormat, "openai-chat");
  });

  it("the private HOME's config points the bundled openai-compatible provider at the proxy with the key from the environment", () => {
    const files = adapter.homeFiles(ctx());
    type Provider = { npm: string; options: Record<string, string>; models: Record<string, unknown> };
    const config = JSON.parse(files[".config/opencode/opencode.json"]!) as { model: string; autoupdate: boolean; share: string; permission: unknown; provider: Record<string, Provider> };
    assert.equal(config.model, "skill-following/gpt-4o-mini");
    assert.equal(config.autoupdate, false);
    assert.equal(config.share, "disabled");
    assert.deepEqual(config.permission, { skill: { "customize-opencode": "deny" }, webfetch: "deny" });
    const provider = config.provider["skill-following"]!;
    assert.equal(provider.npm, "@ai-sdk/openai-compatible");
    assert.deepEqual(provider.options, { baseURL: "http://127.0.0.1:18080/v1", apiKey: "{env:SKILL_FOLLOWING_PROXY_KEY}" });
    assert.deepEqual(Object.keys(provider.models), ["gpt-4o-mini"]);
    assert.ok(!JSON.stringify(files).includes("sk-proxy-0123"), "the dummy key is not written to a file either");
    // The plugin dependency counts as installed in both config folders, so OpenCode fetches nothing.
    const lock = JSON.parse(files[".config/opencode/package-lock.json"]!) as { packages: Record<string, { dependencies: Record<string, string> }> };
    assert.ok("@opencode-ai/plugin" in lock.packages[""]!.dependencies);
    assert.ok(".config/opencode/node_modules/.skill-following" in files);
    assert.deepEqual(Object.keys(adapter.workspaceFiles!("enabled")).sort(), [".opencode/node_modules/.skill-following", ".opencode/package-lock.json"]);
    assert.deepEqual(adapter.workspaceFiles!("disabled"), {}, "the disabled workspace has no .opencode folder");
  });

  it("reads the --format json lines: messages, skill/read/bash tool uses, usage, errors; other lines are nothing", () => {
    assert.deepEqual(parseOpenCodeEvent(STEP_START), []);
    assert.deepEqual(parseOpenCodeEvent(SKILL_USE), [{ kind: "skill", name: "demo-skill" }]);
    assert.deepEqual(parseOpenCodeEvent(READ_USE), [{ kind: "read", path: "/workspace/.opencode/skills/demo-skill/references/r.md" }]);
    assert.deepEqual(parseOpenCodeEvent(BASH_USE), [{ kind: "command", command: "cat .opencode/skills/demo-skill/SKILL.md" }]);
    assert.deepEqual(parseOpenCodeEvent(TEXT), [{ kind: "message", text: "The answer is 42." }]);
    assert.deepEqual(parseOpenCodeEvent(STEP_FINISH), [{ kind: "usage", prompt: 107, completion: 11 }]);
    assert.deepEqual(parseOpenCodeEvent(ERROR), [{ kind: "error", message: "upstream broke" }]);
    assert.deepEqual(parseOpenCodeEvent(line({ type: "error", error: {} })), [{ kind: "error", message: "the harness reported an error" }]);
    assert.deepEqual(parseOpenCodeEvent("not json"), []);
    assert.deepEqual(parseOpenCodeEvent("[1,2]"), []);
    assert.deepEqual(parseOpenCodeEvent(line({ type: "tool_use", part: { tool: "glob", state: { input: { pattern: "**" } } } })), []);
  });

  it("the evidence in proxied tool calls: skill, read and bash; other tools and bad arguments are nothing", () => {
    const ev = (name: string, args: string) => adapter.toolCallEvidence({ id: "c", name, arguments: args });
    assert.deepEqual(ev("skill", '{"name":"pdf-tools"}'), [{ kind: "skill", name: "pdf-tools" }]);
    assert.deepEqual(ev("read", '{"filePath":"/workspace/a.md"}'), [{ kind: "read", path: "/workspace/a.md" }]);
    assert.deepEqual(ev("bash", '{"command":"ls","description":"x"}'), [{ kind: "command", command: "ls" }]);
    assert.deepEqual(ev("Skill", '{"skill":"pdf-tools"}'), [], "Claude Code's tool name is not OpenCode's");
    assert.deepEqual(ev("skill", "{not json"), []);
    assert.deepEqual(ev("write", '{"filePath":"/workspace/x","content":"y"}'), []);
  });

  it("replaces today's date in the <env> block with the run's, in OpenCode's own form", () => {
    assert.equal(openCodeDate("2026-12-06"), "Sun Dec 06 2026");
    assert.equal(openCodeDate("2025-01-01"), "Wed Jan 01 2025");
    assert.equal(openCodeDate("0000-00-00"), "0000-00-00", "not a date: kept as it is (the cache key's placeholder)");
    const req: ChatRequest = {
      model: "m",
      messages: [
        { role: "system", content: "<env>\n  Working directory: /workspace\n  Today's date: Thu Mar 05 2031\n</env>" },
        { role: "user", content: "Today's date: Thu Mar 05 2031 is in the prompt too" },
        { role: "assistant", content: "Today's date: Thu Mar 05 2031" },
      ],
    };
    const out = normalizeOpenCodeRequest(req, { date: "2025-01-01" });
    assert.equal(out.messages[0]!.content, "<env>\n  Working directory: /workspace\n  Today's date: Wed Jan 01 2025\n</env>");
    assert.equal(out.messages[1]!.content, "Today's date: Wed Jan 01 2025 is in the prompt too");
    assert.equal(out.messages[2]!.content, "Today's date: Thu Mar 05 2031", "the model's own words are kept");
    assert.deepEqual(normalizeOpenCodeRequest(out, { date: "2025-01-01" }), out, "idempotent");
  });
});
