/**
 * Codex CLI (`@openai/codex`, a native binary in a platform package) as a harness. What it does and why each
 * setting is here: docs/agents/codex.md.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ChatMessage, ChatRequest, ToolCall } from "../models/types.js";
import { findHarnessPackage, findPackageDir, sha256File } from "./locate.js";
import { HarnessError, type HarnessAdapter, type HarnessBinary, type HarnessEvent, type LaunchContext, type LocateOptions } from "./types.js";

/** The command the package puts on PATH (a global install is found through it). */
const COMMAND = "codex";
const PACKAGE = "@openai/codex";

/** Rust target triple → the platform package that ships the binary (as `@openai/codex/bin/codex.js` resolves it). */
const PLATFORM_PACKAGES: Record<string, { triple: string; pkg: string }> = {
  "linux-x64": { triple: "x86_64-unknown-linux-musl", pkg: "@openai/codex-linux-x64" },
  "linux-arm64": { triple: "aarch64-unknown-linux-musl", pkg: "@openai/codex-linux-arm64" },
  "darwin-x64": { triple: "x86_64-apple-darwin", pkg: "@openai/codex-darwin-x64" },
  "darwin-arm64": { triple: "aarch64-apple-darwin", pkg: "@openai/codex-darwin-arm64" },
};

/**
 * The config overrides every run gets (`-c key=value`, checked with `--strict-config`), and why:
 * no bundled system skills (they would sit in both conditions' skill lists), no web search and no sub-agents
 * (the run's only network is the model; sub-agents would multiply calls the turn limit counts), and nothing that
 * phones home (analytics, feedback, update checks: inside the sandbox they could only wait for a network that is
 * not there).
 */
const CONFIG_OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ["skills.bundled.enabled", "false"],
  ["web_search", '"disabled"'],
  ["features.multi_agent", "false"],
  ["analytics.enabled", "false"],
  ["feedback.enabled", "false"],
  ["check_for_update_on_startup", "false"],
];

const EXEC_FLAGS = ["exec", "--json", "--skip-git-repo-check", "--ephemeral", "--strict-config", "--dangerously-bypass-approvals-and-sandbox", "--color", "never"] as const;

/** The model provider entry that points Codex at the proxy. */
const PROVIDER = "skill-following";
const KEY_VARIABLE = "SKILL_FOLLOWING_PROXY_KEY";

function tomlString(s: string): string {
  return JSON.stringify(s);
}

export function codexAdapter(): HarnessAdapter {
  return {
    id: "codex",
    wireFormat: "openai-responses",
    skillsDir: ".agents/skills",

    async locate(options: LocateOptions = {}): Promise<HarnessBinary> {
      const dir = findHarnessPackage(PACKAGE, COMMAND, options.from);
      if (!dir) throw new HarnessError(`Codex CLI is not installed: no ${PACKAGE} package found above ${(options.from?.length ? options.from : [process.cwd()]).join(", ")}, beside this program or on PATH; install it with npm (npm install ${PACKAGE})`);
      const version = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
      const platform = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
      if (!platform) throw new HarnessError(`Codex CLI has no native binary for ${process.platform}-${process.arch}`);
      const candidates = [path.join(dir, "vendor", platform.triple, "bin", "codex")];
      const platformDir = findPackageDir(platform.pkg, path.dirname(dir));
      if (platformDir) candidates.unshift(path.join(platformDir, "vendor", platform.triple, "bin", "codex"));
      const binary = candidates.find((c) => existsSync(c));
      if (!binary) throw new HarnessError(`Codex CLI ${version} is installed but its native binary (${platform.pkg}) is missing; reinstall ${PACKAGE} with npm`);
      return { path: binary, version, sha256: options.hash === false ? "" : await sha256File(binary), package: PACKAGE };
    },

    homeFiles(ctx: LaunchContext): Record<string, string> {
      const config = [
        `model = ${tomlString(ctx.model)}`,
        `model_provider = ${tomlString(PROVIDER)}`,
        "",
        `[model_providers.${PROVIDER}]`,
        `name = ${tomlString(PROVIDER)}`,
        `base_url = ${tomlString(ctx.proxyUrl)}`,
        `env_key = ${tomlString(KEY_VARIABLE)}`,
        `wire_api = "responses"`,
        // The proxy retries the endpoint itself (the product's client); Codex must not multiply the calls.
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
      ].join("\n");
      return { ".codex/config.toml": config };
    },

    command(ctx: LaunchContext) {
      const overrides = CONFIG_OVERRIDES.flatMap(([k, v]) => ["-c", `${k}=${v}`]);
      return {
        argv: [ctx.binary.path, ...EXEC_FLAGS, ...overrides, "-C", ctx.workspace, "--", ctx.prompt],
        env: { CODEX_HOME: path.join(ctx.home, ".codex"), [KEY_VARIABLE]: ctx.dummyKey, NO_COLOR: "1" },
      };
    },

    settings(): Record<string, string> {
      return {
        command: ["codex", ...EXEC_FLAGS].join(" "),
        ...Object.fromEntries(CONFIG_OVERRIDES.map(([k, v]) => [k, v])),
        wire_api: "responses",
        request_max_retries: "0",
        stream_max_retries: "0",
      };
    },

    parseEvent: parseCodexEvent,

    toolCallEvidence(call: ToolCall): HarnessEvent[] {
      if (call.name !== "exec_command" && call.name !== "shell") return [];
      try {
        const args = JSON.parse(call.arguments) as { cmd?: unknown; command?: unknown };
        const cmd = typeof args.cmd === "string" ? args.cmd : Array.isArray(args.command) ? args.command.map(String).join(" ") : undefined;
        return cmd === undefined ? [] : [{ kind: "command", command: cmd }];
      } catch {
        return [];
      }
    },

    normalizeRequest: normalizeCodexRequest,
  };
}

/** One line of `codex exec --json` → events. */
export function parseCodexEvent(line: string): HarnessEvent[] {
  let event: { type?: unknown; item?: Record<string, unknown>; usage?: Record<string, unknown>; message?: unknown; error?: { message?: unknown } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return [];
  }
  if (event.type === "item.completed" && event.item) {
    const item = event.item;
    if (item.type === "agent_message" && typeof item.text === "string") return [{ kind: "message", text: item.text }];
    if (item.type === "command_execution" && typeof item.command === "string") return [{ kind: "command", command: item.command }];
    if (item.type === "error" && typeof item.message === "string") return [{ kind: "error", message: item.message }];
  }
  if (event.type === "turn.completed" && event.usage) {
    const n = (v: unknown) => (typeof v === "number" ? v : 0);
    return [{ kind: "usage", prompt: n(event.usage.input_tokens), completion: n(event.usage.output_tokens) }];
  }
  if (event.type === "turn.failed" || event.type === "error") {
    const message = typeof event.message === "string" ? event.message : typeof event.error?.message === "string" ? event.error.message : "the harness reported an error";
    return [{ kind: "error", message }];
  }
  return [];
}

/**
 * Values Codex puts into requests that differ between two identical runs, replaced so an unchanged re-run asks
 * the same requests (docs/agents/codex.md): today's date (→ the run's date), and in shell output the random chunk
 * id and the measured wall time (→ dropped).
 */
export function normalizeCodexRequest(request: ChatRequest, fixed: { date: string }): ChatRequest {
  const fix = (text: string): string =>
    text
      .replace(/<current_date>[^<]*<\/current_date>/g, `<current_date>${fixed.date}</current_date>`)
      .replace(/^Chunk ID: [0-9a-f]+\n/gm, "")
      .replace(/^Wall time: [0-9.]+ seconds\n/gm, "");
  const messages = request.messages.map((m): ChatMessage => (m.role === "assistant" ? m : { ...m, content: fix(m.content) }));
  return { ...request, messages };
}
