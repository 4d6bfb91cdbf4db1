/**
 * The Claude Code adapter (src/core/agents/claude-code.ts): finding the pinned binary, the headless command and its
 * environment (a dummy key only), reading its stream-json events (lines as Claude Code 2.1.332 printed them, trimmed
 * of fields nothing reads), the evidence in proxied tool calls, and the request normalisation.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { claudeCodeAdapter, normalizeClaudeCodeRequest, parseClaudeCodeEvent } from "../../../src/core/agents/claude-code.js";
import type { LaunchContext } from "../../../src/core/agents/types.js";
import type { ChatRequest } from "../../../src/core/models/types.js";

const adapter = claudeCodeAdapter();
const line = (o: object) => JSON.stringify(o);

const INIT = line({ type: "system", subtype: "init", cwd: "/workspace", tools: ["Bash", "Read", "Skill"], skills: ["pdf-tools", "dataviz"], claude_code_version: "2.1.332", permissionMode: "bypassPermissions" });
const SKILL_CALL = line({ type: "assistant", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "tool_use", id: "toolu_1", name: "Skill", input: { skill: "pdf-tools" } }], usage: { input_tokens: 100, output_tokens: 1 } }, parent_tool_use_id: null, session_id: "s" });
const SKILL_RESULT = line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Launching skill: pdf-tools" }] }, tool_use_result: { success: true, commandName: "pdf-tools" } });
const SKILL_TEXT = line({ type: "user", message: { role: "user", content: [{ type: "text", text: "Base directory for this skill: /workspace/.claude/skills/pdf-tools\n\n# PDF tools" }] }, isSynthetic: true });
const READ_CALL = line({ type: "assistant", message: { id: "msg_2", content: [{ type: "text", text: "Reading the table notes." }, { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/workspace/.claude/skills/pdf-tools/references/tables.md" } }] } });
const BASH_CALL = line({ type: "assistant", message: { id: "msg_3", content: [{ type: "tool_use", id: "toolu_3", name: "Bash", input: { command: "cat .claude/skills/pdf-tools/SKILL.md", description: "show" } }] } });
const FINAL = line({ type: "assistant", message: { id: "msg_4", content: [{ type: "text", text: "The answer is \\boxed{42}." }] } });
const RESULT = line({ type: "result", subtype: "success", is_error: false, num_turns: 3, result: "The answer is \\boxed{42}.", usage: { input_tokens: 200, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 20 }, terminal_reason: "completed" });
const API_ERROR = line({ type: "assistant", message: { id: "359bf408", model: "<synthetic>", content: [{ type: "text", text: "API Error: 500 upstream broke: test." }] }, error: "server_error", is_api_error_message: true, api_error_status: 500 });
const ERROR_RESULT = line({ type: "result", subtype: "success", is_error: true, result: "API Error: 500 upstream broke: test.", usage: { input_tokens: 0, output_tokens: 0 }, terminal_reason: "api_error" });
const MAX_TURNS = line({ type: "result", subtype: "error_max_turns", is_error: true, num_turns: 2, usage: { input_tokens: 100, output_tokens: 10 }, terminal_reason: "max_turns" });

function ctx(): LaunchContext {
  return {
    binary: { path: "/opt/claude", version: "2.1.332", sha256: "0".repeat(64), package: "@anthropic-ai/claude-code" },
    workspace: "/workspace",
    home: "/home/agent",
    proxyUrl: "http://127.0.0.1:18080/v1",
    dummyKey: "sk-proxy-0123",
    model: "gpt-4o-mini",
    prompt: "--help is not a flag here. What is 6*7?",
    params: { temperature: 0 },
    maxTurns: 12,
  };
}

describe("Claude Code adapter", () => {
  it("locates the pinned native binary: version 2.1.332, its sha256, and the binary says the same version", async () => {
    const binary = await adapter.locate();
    assert.equal(binary.version, "2.1.332");
    assert.equal(binary.package, "@anthropic-ai/claude-code");
    assert.match(binary.sha256, /^[0-9a-f]{64}$/);
    assert.ok(existsSync(binary.path));
    assert.match(execFileSync(binary.path, ["--version"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" } }), /^2\.1\.332 \(Claude Code\)/);
  });

  it("runs headless in print mode with the stream-json events, the run's model and turn limit, and the prompt after --", () => {
    const { argv, env } = adapter.command(ctx());
    assert.equal(argv[0], "/opt/claude");
    for (const flag of ["-p", "--verbose", "--no-session-persistence"]) assert.ok(argv.includes(flag), flag);
    assert.equal(argv[argv.indexOf("--output-format") + 1], "stream-json");
    assert.equal(argv[argv.indexOf("--permission-mode") + 1], "bypassPermissions");
    assert.equal(argv[argv.indexOf("--model") + 1], "gpt-4o-mini");
    assert.equal(argv[argv.indexOf("--max-turns") + 1], "12");
    // A prompt that starts like a flag stays the prompt.
    assert.deepEqual(argv.slice(-2), ["--", "--help is not a flag here. What is 6*7?"]);
    assert.equal(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:18080", "Claude Code adds /v1/messages itself");
    assert.equal(env.ANTHROPIC_API_KEY, "sk-proxy-0123");
    assert.equal(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1");
    assert.equal(env.CLAUDE_CODE_MAX_RETRIES, "0");
    assert.equal(env.HOME, undefined, "the runner sets the private HOME");
    // The adapter's settings are what the run header records; they name every variable that changes behaviour.
    const settings = adapter.settings();
    assert.match(settings.command!, /^claude -p --output-format stream-json/);
    for (const [k, v] of Object.entries(env)) if (k !== "ANTHROPIC_BASE_URL" && k !== "ANTHROPIC_API_KEY") assert.equal(settings[k], v, k);
    assert.deepEqual(adapter.homeFiles(ctx()), {});
    assert.equal(adapter.skillsDir, ".claude/skills");
    assert.equal(adapter.wireFormat, "anthropic-messages");
  });

  it("reads the event stream: Skill, Read and Bash calls, assistant text, token use; the init and tool-result lines tell nothing", () => {
    const events = [INIT, SKILL_CALL, SKILL_RESULT, SKILL_TEXT, READ_CALL, BASH_CALL, FINAL, RESULT, "not json", ""].flatMap(parseClaudeCodeEvent);
    assert.deepEqual(events, [
      { kind: "skill", name: "pdf-tools" },
      { kind: "message", text: "Reading the table notes." },
      { kind: "read", path: "/workspace/.claude/skills/pdf-tools/references/tables.md" },
      { kind: "command", command: "cat .claude/skills/pdf-tools/SKILL.md" },
      { kind: "message", text: "The answer is \\boxed{42}." },
      { kind: "usage", prompt: 212, completion: 20 },
    ]);
  });

  it("a failed model call is an error, never the final message; so is a run stopped at its turn limit", () => {
    assert.deepEqual(parseClaudeCodeEvent(API_ERROR), [{ kind: "error", message: "API Error: 500 upstream broke: test." }]);
    assert.deepEqual(parseClaudeCodeEvent(ERROR_RESULT), [{ kind: "usage", prompt: 0, completion: 0 }, { kind: "error", message: "API Error: 500 upstream broke: test." }]);
    assert.deepEqual(parseClaudeCodeEvent(MAX_TURNS)[1], { kind: "error", message: "the harness stopped: max_turns" });
  });

  it("the proxied tool calls give the same evidence as the event stream; other tools and bad arguments give none", () => {
    const call = (name: string, args: string) => adapter.toolCallEvidence({ id: "c", name, arguments: args });
    assert.deepEqual(call("Skill", '{"skill":"pdf-tools"}'), [{ kind: "skill", name: "pdf-tools" }]);
    assert.deepEqual(call("Read", '{"file_path":"/workspace/.claude/skills/pdf-tools/SKILL.md"}'), [{ kind: "read", path: "/workspace/.claude/skills/pdf-tools/SKILL.md" }]);
    assert.deepEqual(call("Bash", '{"command":"ls .claude/skills"}'), [{ kind: "command", command: "ls .claude/skills" }]);
    assert.deepEqual(call("Write", '{"file_path":"/workspace/.claude/skills/pdf-tools/SKILL.md","content":""}'), []);
    assert.deepEqual(call("Skill", '{"skill": '), []);
    assert.deepEqual(call("Skill", '{"name":"pdf-tools"}'), []);
  });

  it("normalisation puts the run's date in place of today's in every non-assistant message, and touches nothing else", () => {
    const request: ChatRequest = {
      model: "m",
      messages: [
        { role: "system", content: "You are a Claude agent." },
        { role: "user", content: "<system-reminder>\nToday's date is 2026-12-05.\n</system-reminder>\nWhat is 6*7?" },
        { role: "assistant", content: "Today's date is 2026-12-05. I checked.", toolCalls: [{ id: "c", name: "Bash", arguments: '{"command":"date"}' }] },
        { role: "tool", toolCallId: "c", content: "Sat Dec  5 2026" },
      ],
    };
    const out = normalizeClaudeCodeRequest(request, { date: "2026-01-31" });
    assert.equal(out.messages[1]!.content, "<system-reminder>\nToday's date is 2026-01-31.\n</system-reminder>\nWhat is 6*7?");
    assert.deepEqual(out.messages[2], request.messages[2], "what the model said is not rewritten");
    assert.deepEqual(out.messages[0], request.messages[0]);
    assert.deepEqual(out.messages[3], request.messages[3]);
    assert.equal(adapter.normalizeRequest!(request, { date: "2026-01-31" }).messages[1]!.content, out.messages[1]!.content);
  });
});
