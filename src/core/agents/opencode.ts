/**
 * OpenCode (`opencode-ai`, a native Bun-compiled binary in a platform package) as a harness. What it does and why
 * each flag, variable and config key is here: docs/agents/opencode.md.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Condition } from "../../shared/vocabulary/index.js";
import type { ChatMessage, ChatRequest } from "../models/types.js";
import { isObject, parseJson, toolEvidenceOf } from "./tool-evidence.js";
import { findHarnessPackage, findPackageDir, sha256File } from "./locate.js";
import { HarnessError, type HarnessAdapter, type HarnessBinary, type HarnessEvent, type LaunchContext, type LocateOptions } from "./types.js";

/** The command the package puts on PATH (a global install is found through it). */
const COMMAND = "opencode";
const PACKAGE = "opencode-ai";

/** Where OpenCode finds project skills: `<workspace>/.opencode/skills/<name>/SKILL.md` (its config folder's `skills/`). */
const SKILLS_DIR = ".opencode/skills";

/** The provider entry that points OpenCode at the proxy, and the variable its key is read from (`{env:…}`). */
const PROVIDER = "skill-following";
const KEY_VARIABLE = "SKILL_FOLLOWING_PROXY_KEY";

/**
 * The headless flags every run gets: `run` with the JSON event stream; a fixed session title (without one OpenCode
 * asks the model for a title first: one more model call per run); `--auto` approves the permission asks a headless
 * run would otherwise refuse (sound only because the run is inside the product's confinement); `--pure` loads no
 * external plugins. The prompt goes on stdin: OpenCode wraps a prompt argument that holds a space in double quotes.
 */
const RUN_FLAGS = ["run", "--format", "json", "--title", "skill-following", "--auto", "--pure"] as const;

/**
 * The environment besides HOME, XDG folders and the key: no update check, no fetch of the models.dev catalog, no
 * sharing, no LSP downloads; and skills only from the workspace's `.opencode/skills` (not Claude Code's or the
 * `.agents` folders OpenCode also reads), so the skill list is exactly the installed skills.
 */
const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ["OPENCODE_DISABLE_AUTOUPDATE", "1"],
  ["OPENCODE_DISABLE_MODELS_FETCH", "1"],
  ["OPENCODE_DISABLE_SHARE", "1"],
  ["OPENCODE_DISABLE_LSP_DOWNLOAD", "1"],
  ["OPENCODE_DISABLE_CLAUDE_CODE", "1"],
  ["OPENCODE_DISABLE_EXTERNAL_SKILLS", "1"],
];

/**
 * The built-in skill OpenCode always lists (`customize-opencode`, about its own configuration): denied, so the
 * disabled condition's request says "No skills are currently available." and the enabled one lists only the
 * installed skills. Web fetches are denied too: the run's only network is the model.
 */
const PERMISSION = { skill: { "customize-opencode": "deny" }, webfetch: "deny" } as const;

/**
 * OpenCode installs `@opencode-ai/plugin` with its embedded npm into every config folder it reads (the global one in
 * HOME, and the workspace's `.opencode/`) unless the folder already has `node_modules/` and a lock file naming it.
 * Inside the sandbox that install could only fail (no network); unconfined it would download from the registry on
 * every run. These files make OpenCode see the dependency as installed, so it fetches nothing.
 */
const PLUGIN_LOCK = `${JSON.stringify({ name: "skill-following-harness", lockfileVersion: 3, requires: true, packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } }, null, 2)}\n`;
function pluginSeed(folder: string): Record<string, string> {
  return { [`${folder}/package-lock.json`]: PLUGIN_LOCK, [`${folder}/node_modules/.skill-following`]: "" };
}

/** The platform packages that ship the binary, in the order `opencode-ai`'s own postinstall tries them. */
function platformPackages(): string[] {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const base = `opencode-${os}-${process.arch}`;
  if (process.platform === "linux" && process.arch === "x64") return [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`];
  if (process.platform === "linux") return [base, `${base}-musl`];
  if (process.arch === "x64") return [base, `${base}-baseline`];
  return [base];
}

/** `opencode-ai/bin/opencode.exe` is the binary once the package's postinstall copied it (a shell stub before). */
const MIN_BINARY_BYTES = 1_000_000;

export function openCodeAdapter(): HarnessAdapter {
  return {
    id: "opencode",
    wireFormat: "openai-chat",
    skillsDir: SKILLS_DIR,

    async locate(options: LocateOptions = {}): Promise<HarnessBinary> {
      const dir = findHarnessPackage(PACKAGE, COMMAND, options.from);
      if (!dir) throw new HarnessError(`OpenCode is not installed: no ${PACKAGE} package found above ${(options.from?.length ? options.from : [process.cwd()]).join(", ")}, beside this program or on PATH; install it with npm (npm install ${PACKAGE})`);
      const version = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
      const exe = process.platform === "win32" ? "opencode.exe" : "opencode";
      const candidates: string[] = [];
      for (const pkg of platformPackages()) {
        const platformDir = findPackageDir(pkg, path.dirname(dir));
        if (platformDir) candidates.push(path.join(platformDir, "bin", exe));
      }
      candidates.push(path.join(dir, "bin", "opencode.exe"));
      const binary = candidates.find((c) => existsSync(c) && statSync(c).size >= MIN_BINARY_BYTES);
      if (!binary) throw new HarnessError(`OpenCode ${version} is installed but its native binary (${platformPackages()[0]}) is missing; reinstall ${PACKAGE} with npm, with optional dependencies`);
      return { path: binary, version, sha256: options.hash === false ? "" : await sha256File(binary), package: PACKAGE };
    },

    homeFiles(ctx: LaunchContext): Record<string, string> {
      const config = {
        $schema: "https://opencode.ai/config.json",
        model: `${PROVIDER}/${ctx.model}`,
        small_model: `${PROVIDER}/${ctx.model}`,
        autoupdate: false,
        share: "disabled",
        permission: PERMISSION,
        provider: {
          [PROVIDER]: {
            // Bundled in the binary: no provider package is fetched at run time.
            npm: "@ai-sdk/openai-compatible",
            name: "Skill Following proxy",
            options: { baseURL: ctx.proxyUrl, apiKey: `{env:${KEY_VARIABLE}}` },
            models: { [ctx.model]: { name: ctx.model } },
          },
        },
      };
      return { ".config/opencode/opencode.json": `${JSON.stringify(config, null, 2)}\n`, ...pluginSeed(".config/opencode") };
    },

    workspaceFiles(condition: Condition): Record<string, string> {
      // `.opencode/` exists only when skills are installed in it; then it is a config folder OpenCode sets up.
      return condition === "enabled" ? pluginSeed(".opencode") : {};
    },

    command(ctx: LaunchContext) {
      return {
        argv: [ctx.binary.path, ...RUN_FLAGS, "--model", `${PROVIDER}/${ctx.model}`],
        env: {
          XDG_CONFIG_HOME: path.posix.join(ctx.home, ".config"),
          XDG_DATA_HOME: path.posix.join(ctx.home, ".local", "share"),
          XDG_CACHE_HOME: path.posix.join(ctx.home, ".cache"),
          XDG_STATE_HOME: path.posix.join(ctx.home, ".local", "state"),
          [KEY_VARIABLE]: ctx.dummyKey,
          NO_COLOR: "1",
          ...Object.fromEntries(ENVIRONMENT),
        },
        stdin: ctx.prompt,
      };
    },

    settings(): Record<string, string> {
      return {
        command: ["opencode", ...RUN_FLAGS].join(" "),
        ...Object.fromEntries(ENVIRONMENT),
        provider: "@ai-sdk/openai-compatible",
        permission: JSON.stringify(PERMISSION),
      };
    },

    parseEvent: parseOpenCodeEvent,
    toolCallEvidence: toolEvidence.fromCall,
    normalizeRequest: normalizeOpenCodeRequest,
  };
}

/** OpenCode's tools: a skill load, a read of a file, a shell command. */
const toolEvidence = toolEvidenceOf({ skill: ["skill", "name"], read: ["read", "filePath"], command: ["bash", "command"] });

/** One line of `opencode run --format json` → events. */
export function parseOpenCodeEvent(line: string): HarnessEvent[] {
  const event = parseJson(line);
  if (!isObject(event)) return [];
  const part = isObject(event.part) ? event.part : undefined;
  if (event.type === "text" && part && typeof part.text === "string") return [{ kind: "message", text: part.text }];
  if (event.type === "tool_use" && part && typeof part.tool === "string" && isObject(part.state)) return toolEvidence.fromInput(part.tool, part.state.input);
  if (event.type === "step_finish" && part && isObject(part.tokens)) {
    const n = (v: unknown) => (typeof v === "number" ? v : 0);
    const cache = isObject(part.tokens.cache) ? part.tokens.cache : {};
    return [{ kind: "usage", prompt: n(part.tokens.input) + n(cache.read) + n(cache.write), completion: n(part.tokens.output) + n(part.tokens.reasoning) }];
  }
  if (event.type === "error") {
    const err = isObject(event.error) ? event.error : {};
    const data = isObject(err.data) ? err.data : {};
    const message = [data.message, err.message, err.name].find((v): v is string => typeof v === "string" && v !== "") ?? "the harness reported an error";
    return [{ kind: "error", message }];
  }
  return [];
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A YYYY-MM-DD date as JavaScript's `toDateString` writes it (`Sun Dec 06 2026`); any other text as it is. */
export function openCodeDate(date: string): string {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00Z`) : undefined;
  if (!d || Number.isNaN(d.getTime())) return date;
  return `${WEEKDAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, "0")} ${d.getUTCFullYear()}`;
}

const TODAY = /Today's date: [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4}/g;

/**
 * Values OpenCode puts into requests that differ between two identical runs, replaced so an unchanged re-run asks
 * the same requests (docs/agents/opencode.md): today's date in the system prompt's `<env>` block (→ the run's date).
 * The random session id travels only in headers (`x-session-id`), which never reach the engine's request.
 */
export function normalizeOpenCodeRequest(request: ChatRequest, fixed: { date: string }): ChatRequest {
  const fix = (text: string): string => text.replace(TODAY, `Today's date: ${openCodeDate(fixed.date)}`);
  const messages = request.messages.map((m): ChatMessage => (m.role === "assistant" ? m : { ...m, content: fix(m.content) }));
  return { ...request, messages };
}
