/**
 * Gemini CLI (`@google/gemini-cli`, a JavaScript bundle run by node) as a harness. What it does and why each setting
 * is here: docs/agents/gemini.md.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ChatMessage, ChatRequest, ToolDefinition } from "../models/types.js";
import { isObject, parseJson, toolEvidenceOf } from "./tool-evidence.js";
import { findHarnessPackage, sha256File } from "./locate.js";
import { HarnessError, type HarnessAdapter, type HarnessBinary, type HarnessEvent, type LaunchContext, type LocateOptions } from "./types.js";

/** The command the package puts on PATH (a global install is found through it). */
const COMMAND = "gemini";
const PACKAGE = "@google/gemini-cli";
/** The package's entry (its `bin`): what node runs and what is hashed (it imports its chunks by content-hashed names). */
const ENTRY = path.join("bundle", "gemini.js");

/**
 * The headless flags every run gets: the prompt in non-interactive mode with the JSON event stream, and every tool
 * call approved without asking (headless, a call that would ask is refused, so run_shell_command and write_file would
 * never run). Approving them is sound only because the run is inside the product's confinement.
 */
const HEADLESS_FLAGS = ["--output-format", "stream-json", "--approval-mode", "yolo"] as const;

/**
 * The user settings (`~/.gemini/settings.json` of the private HOME), and why:
 * - the API-key auth type: with only `GOOGLE_GEMINI_BASE_URL` set the CLI picks its "gateway" type, which its own
 *   non-interactive check refuses ("Invalid auth method selected."); the key type still honours the base URL;
 * - the workspace trusted (folder trust off): untrusted, the CLI ignores `.gemini/skills` of the workspace;
 * - nothing that phones home: no usage statistics, telemetry or update checks;
 * - no retries of its own (the proxy's client retries, one layer): one attempt per request, no fetch-error retry;
 * - no web tools and no sub-agents (none loaded, and `invoke_agent` not offered: the CLI registers it either way):
 *   the run's only network is the model, and sub-agents would multiply calls the turn limit counts;
 * - no checkpointing (it would snapshot the workspace with git).
 * Skills stay on (the default); the CLI's built-in skills are listed in both conditions, as a user sees them.
 */
const SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1, retryFetchErrors: false, checkpointing: { enabled: false } },
  tools: { exclude: ["google_web_search", "web_fetch", "invoke_agent"] },
  experimental: { enableAgents: false },
  skills: { enabled: true },
} as const;

/**
 * The environment besides HOME, the endpoint and the key: no relaunch of itself in a second node process (the CLI
 * does that to raise its heap limit), no sandbox of its own (the product's confinement is the sandbox), no colour.
 */
const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ["GEMINI_CLI_NO_RELAUNCH", "true"],
  ["GEMINI_SANDBOX", "false"],
  ["NO_COLOR", "1"],
];

/** Where Gemini CLI finds project skills: `<workspace>/.gemini/skills/<name>/SKILL.md`. */
const SKILLS_DIR = ".gemini/skills";

/** Flattens nested settings to `a.b.c` → JSON value, for the run header. */
function flatten(obj: Record<string, unknown>, prefix = ""): Array<[string, string]> {
  return Object.entries(obj).flatMap(([k, v]): Array<[string, string]> => {
    const key = prefix ? `${prefix}.${k}` : k;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? flatten(v as Record<string, unknown>, key) : [[key, JSON.stringify(v)]];
  });
}

/**
 * The node that runs the bundle: this process's own. Inside VS Code that is Electron, which runs as node only with
 * ELECTRON_RUN_AS_NODE, so the command sets it (through `env`, which bubblewrap's forwarder would otherwise drop).
 */
function nodeCommand(): string[] {
  if (!process.versions.electron) return [process.execPath];
  return process.platform === "win32" ? [process.execPath] : ["/usr/bin/env", "ELECTRON_RUN_AS_NODE=1", process.execPath];
}

export function geminiAdapter(): HarnessAdapter {
  return {
    id: "gemini",
    wireFormat: "gemini-generate-content",
    skillsDir: SKILLS_DIR,

    async locate(options: LocateOptions = {}): Promise<HarnessBinary> {
      const dir = findHarnessPackage(PACKAGE, COMMAND, options.from);
      if (!dir) throw new HarnessError(`Gemini CLI is not installed: no ${PACKAGE} package found above ${(options.from?.length ? options.from : [process.cwd()]).join(", ")}, beside this program or on PATH; install it with npm (npm install ${PACKAGE})`);
      const version = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
      const entry = path.join(dir, ENTRY);
      if (!existsSync(entry)) throw new HarnessError(`Gemini CLI ${version} is installed but its bundle (${entry}) is missing; reinstall ${PACKAGE} with npm`);
      return { path: entry, version, sha256: options.hash === false ? "" : await sha256File(entry), package: PACKAGE };
    },

    // The settings, and a temporary folder inside HOME (TMPDIR): the CLI writes error reports to the temporary
    // folder, which must not be the host's /tmp when the run is unconfined.
    homeFiles: () => ({ ".gemini/settings.json": `${JSON.stringify(SETTINGS, null, 2)}\n`, "tmp/.keep": "" }),

    command(ctx: LaunchContext) {
      return {
        argv: [...nodeCommand(), ctx.binary.path, ...HEADLESS_FLAGS, "--model", ctx.model, `--prompt=${ctx.prompt}`],
        env: {
          // The SDK appends `/v1beta/models/<model>:…` to the base URL itself.
          GOOGLE_GEMINI_BASE_URL: ctx.proxyUrl.replace(/\/v1\/?$/, ""),
          GEMINI_API_KEY: ctx.dummyKey,
          TMPDIR: path.join(ctx.home, "tmp"),
          ...Object.fromEntries(ENVIRONMENT),
          ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: "1" } : {}),
        },
      };
    },

    settings(): Record<string, string> {
      return { command: ["gemini", ...HEADLESS_FLAGS].join(" "), ...Object.fromEntries(flatten(SETTINGS)), ...Object.fromEntries(ENVIRONMENT) };
    },

    parseEvent: parseGeminiEvent,
    toolCallEvidence: toolEvidence.fromCall,
    normalizeRequest: normalizeGeminiRequest,
  };
}

/** Gemini CLI's tools: a skill load, a read of a file, a shell command. */
const toolEvidence = toolEvidenceOf({ skill: ["activate_skill", "name"], read: ["read_file", "file_path"], command: ["run_shell_command", "command"] });

/**
 * One line of `gemini --output-format stream-json` → events. An assistant message comes as `delta` chunks; the proxy
 * answers each model turn in one chunk, so each chunk is one turn's text (the last is the final message).
 */
export function parseGeminiEvent(line: string): HarnessEvent[] {
  const event = parseJson(line);
  if (!isObject(event)) return [];
  if (event.type === "message" && event.role === "assistant" && typeof event.content === "string") return [{ kind: "message", text: event.content }];
  if (event.type === "tool_use" && typeof event.tool_name === "string") return toolEvidence.fromInput(event.tool_name, event.parameters);
  if (event.type === "error" && event.severity === "error" && typeof event.message === "string") return [{ kind: "error", message: event.message }];
  if (event.type === "result") {
    const out: HarnessEvent[] = [];
    if (isObject(event.stats)) {
      const n = (v: unknown) => (typeof v === "number" ? v : 0);
      out.push({ kind: "usage", prompt: n(event.stats.input_tokens), completion: n(event.stats.output_tokens) });
    }
    if (event.status === "error") {
      const message = isObject(event.error) && typeof event.error.message === "string" ? event.error.message : "the harness reported an error";
      out.push({ kind: "error", message });
    }
    return out;
  }
  return [];
}

const TODAY = /Today's date is [^\n]*? \(formatted according to the user's locale\)\./g;

/** `YYYY-MM-DD` as Gemini CLI writes today's date (en-US: "Sunday, December 6, 2026"); other text as it is. */
function spokenDate(date: string): string {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00Z`) : undefined;
  if (!d || Number.isNaN(d.getTime())) return date;
  return d.toLocaleDateString("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
}

const SKILL_LIST = /<available_skills>\n([\s\S]*?)<\/available_skills>/g;
const SKILL_ENTRY = /^ {2}<skill>\n[\s\S]*?^ {2}<\/skill>\n/gm;
const AVAILABLE = /\(Available: ((?:'[^']*'(?:, )?)+)\)/;

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The `<skill>` entries of each `<available_skills>` block in name order (the CLI lists them in file-system walk order). */
function sortSkillList(text: string): string {
  return text.replace(SKILL_LIST, (whole, inner: string) => {
    const entries = inner.match(SKILL_ENTRY) ?? [];
    if (entries.join("") !== inner) return whole;
    const name = (e: string) => /<name>([^<]*)<\/name>/.exec(e)?.[1] ?? "";
    return `<available_skills>\n${[...entries].sort((a, b) => byName(name(a), name(b))).join("")}</available_skills>`;
  });
}

/** activate_skill's name enum and its description's "(Available: 'a', 'b')" in name order. */
function sortActivateSkill(tool: ToolDefinition): ToolDefinition {
  if (tool.name !== "activate_skill") return tool;
  const description = tool.description.replace(AVAILABLE, (_whole, list: string) => `(Available: ${(list.match(/'[^']*'/g) ?? []).sort(byName).join(", ")})`);
  const properties = tool.parameters.properties as Record<string, Record<string, unknown>> | undefined;
  const names = properties?.name?.enum;
  const parameters = Array.isArray(names) ? { ...tool.parameters, properties: { ...properties, name: { ...properties!.name, enum: [...(names as string[])].sort(byName) } } } : tool.parameters;
  return { ...tool, description, parameters };
}

/**
 * Values Gemini CLI puts into requests that differ between two identical runs, replaced so an unchanged re-run asks
 * the same requests (docs/agents/gemini.md): today's date (→ the run's date); in shell output, the process group id
 * (→ dropped); the order of the skill list and of activate_skill's names (the CLI finds skills with an asynchronous
 * directory walk whose order varies from run to run → name order). Tool call ids are the model's own (the proxy's
 * answers carry them), so the CLI makes up none.
 */
export function normalizeGeminiRequest(request: ChatRequest, fixed: { date: string }): ChatRequest {
  const today = `Today's date is ${spokenDate(fixed.date)} (formatted according to the user's locale).`;
  const fix = (text: string): string => sortSkillList(text.replace(TODAY, today).replace(/^Process Group PGID: \d+\n?/gm, ""));
  const messages = request.messages.map((m): ChatMessage => (m.role === "assistant" ? m : { ...m, content: fix(m.content) }));
  return { ...request, messages, ...(request.tools ? { tools: request.tools.map(sortActivateSkill) } : {}) };
}
