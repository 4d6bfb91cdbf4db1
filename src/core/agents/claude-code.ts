/**
 * Claude Code (`@anthropic-ai/claude-code`, a native binary in a platform package) as a harness. What it does and why
 * each flag and variable is here: docs/agents/claude-code.md.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ChatMessage, ChatRequest } from "../models/types.js";
import { isObject, parseJson, toolEvidenceOf } from "./tool-evidence.js";
import { findHarnessPackage, findPackageDir, sha256File } from "./locate.js";
import { HarnessError, type HarnessAdapter, type HarnessBinary, type HarnessEvent, type LaunchContext, type LocateOptions } from "./types.js";

/** The command the package puts on PATH (a global install is found through it). */
const COMMAND = "claude";
const PACKAGE = "@anthropic-ai/claude-code";

/**
 * The headless flags every run gets: print mode with the JSON event stream, no session files, and every tool call
 * allowed without asking (in print mode a call that would ask is refused, so Bash, Edit and Write would never run).
 * Allowing them is sound only because the run is inside the product's confinement.
 */
const PRINT_FLAGS = ["-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence", "--permission-mode", "bypassPermissions"] as const;

/**
 * The environment besides HOME, the endpoint and the key: no traffic but the model's (no telemetry, update check or
 * `HEAD /api/hello` preflight), no retries of its own (the proxy's client retries, one layer), and `IS_SANDBOX=1`,
 * without which Claude Code refuses bypassPermissions to a root user; the requests are the same with it.
 */
const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"],
  ["DISABLE_TELEMETRY", "1"],
  ["DISABLE_AUTOUPDATER", "1"],
  ["CLAUDE_CODE_MAX_RETRIES", "0"],
  ["IS_SANDBOX", "1"],
];

/** The platform package that ships the binary, as the package's own wrapper picks it (musl first on Alpine). */
function platformPackages(): string[] {
  const key = `${process.platform}-${process.arch}`;
  const musl = process.platform === "linux" ? [`${PACKAGE}-${key}-musl`] : [];
  return [`${PACKAGE}-${key}`, ...musl];
}

/** The package's own `bin/claude.exe` is the binary once its install script ran (a small stub before). */
const MIN_BINARY_BYTES = 1_000_000;

/** Where Claude Code finds project skills: `<workspace>/.claude/skills/<name>/SKILL.md`. */
const SKILLS_DIR = ".claude/skills";

export function claudeCodeAdapter(): HarnessAdapter {
  return {
    id: "claude-code",
    wireFormat: "anthropic-messages",
    skillsDir: SKILLS_DIR,

    async locate(options: LocateOptions = {}): Promise<HarnessBinary> {
      const dir = findHarnessPackage(PACKAGE, COMMAND, options.from);
      if (!dir) throw new HarnessError(`Claude Code is not installed: no ${PACKAGE} package found above ${(options.from?.length ? options.from : [process.cwd()]).join(", ")}, beside this program or on PATH; install it with npm (npm install ${PACKAGE})`);
      const version = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
      const exe = process.platform === "win32" ? "claude.exe" : "claude";
      const candidates: string[] = [];
      for (const pkg of platformPackages()) {
        const platformDir = findPackageDir(pkg, path.dirname(dir));
        if (platformDir) candidates.push(path.join(platformDir, exe));
      }
      candidates.push(path.join(dir, "bin", "claude.exe"));
      const binary = candidates.find((c) => existsSync(c) && statSync(c).size >= MIN_BINARY_BYTES);
      if (!binary) throw new HarnessError(`Claude Code ${version} is installed but its native binary (${platformPackages().join(" or ")}) is missing; reinstall ${PACKAGE} with npm, with optional dependencies`);
      return { path: binary, version, sha256: options.hash === false ? "" : await sha256File(binary), package: PACKAGE };
    },

    // Everything is passed on the command line and in the environment; the HOME starts empty (Claude Code writes
    // its own `.claude.json` there).
    homeFiles: () => ({}),

    command(ctx: LaunchContext) {
      return {
        argv: [ctx.binary.path, ...PRINT_FLAGS, "--model", ctx.model, "--max-turns", String(ctx.maxTurns), "--", ctx.prompt],
        env: {
          // Claude Code appends `/v1/messages` to the base URL itself.
          ANTHROPIC_BASE_URL: ctx.proxyUrl.replace(/\/v1\/?$/, ""),
          ANTHROPIC_API_KEY: ctx.dummyKey,
          ...Object.fromEntries(ENVIRONMENT),
        },
      };
    },

    settings(): Record<string, string> {
      return { command: ["claude", ...PRINT_FLAGS].join(" "), ...Object.fromEntries(ENVIRONMENT) };
    },

    parseEvent: parseClaudeCodeEvent,
    toolCallEvidence: toolEvidence.fromCall,
    normalizeRequest: normalizeClaudeCodeRequest,
  };
}

/** Claude Code's tools: a skill load, a read of a file, a shell command. */
const toolEvidence = toolEvidenceOf({ skill: ["Skill", "skill"], read: ["Read", "file_path"], command: ["Bash", "command"] });

/** One line of `claude -p --output-format stream-json --verbose` → events. */
export function parseClaudeCodeEvent(line: string): HarnessEvent[] {
  const event = parseJson(line);
  if (!isObject(event)) return [];
  if (event.type === "assistant" && isObject(event.message)) {
    const content = Array.isArray(event.message.content) ? event.message.content : [];
    // A failed model call is reported as a synthetic assistant message ("API Error: 500 …"): an error, not an answer.
    if (event.error !== undefined || event.is_api_error_message === true) {
      const text = content.find((b): b is { text: string } => isObject(b) && typeof b.text === "string");
      return [{ kind: "error", message: text?.text ?? `the model call failed (${String(event.error)})` }];
    }
    return content.flatMap((b): HarnessEvent[] => {
      if (!isObject(b)) return [];
      if (b.type === "text" && typeof b.text === "string") return [{ kind: "message", text: b.text }];
      if (b.type === "tool_use" && typeof b.name === "string") return toolEvidence.fromInput(b.name, b.input);
      return [];
    });
  }
  if (event.type === "result") {
    const out: HarnessEvent[] = [];
    if (isObject(event.usage)) {
      const n = (v: unknown) => (typeof v === "number" ? v : 0);
      const u = event.usage;
      out.push({ kind: "usage", prompt: n(u.input_tokens) + n(u.cache_creation_input_tokens) + n(u.cache_read_input_tokens), completion: n(u.output_tokens) });
    }
    if (event.is_error === true) {
      const reason = [event.terminal_reason, event.subtype].find((v): v is string => typeof v === "string") ?? "error";
      const why = typeof event.result === "string" && event.result ? event.result : `the harness stopped: ${reason}`;
      out.push({ kind: "error", message: why });
    }
    return out;
  }
  return [];
}

const TODAY = /Today's date is \d{4}-\d{2}-\d{2}\./g;

/**
 * Values Claude Code puts into requests that differ between two identical runs, replaced so an unchanged re-run asks
 * the same requests (docs/agents/claude-code.md): today's date (→ the run's date). The random `metadata` never
 * reaches the engine's request (the wire format drops it), and the workspace and HOME paths are the run's fixed ones.
 */
export function normalizeClaudeCodeRequest(request: ChatRequest, fixed: { date: string }): ChatRequest {
  const fix = (text: string): string => text.replace(TODAY, `Today's date is ${fixed.date}.`);
  const messages = request.messages.map((m): ChatMessage => (m.role === "assistant" ? m : { ...m, content: fix(m.content) }));
  return { ...request, messages };
}
