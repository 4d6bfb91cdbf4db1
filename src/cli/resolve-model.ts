import { CancelledError, ModelConfigError, NoModelError } from "../core/errors.js";
import { modelsCacheDir } from "../core/layout.js";
import { silentLogger, type Logger } from "../core/logger.js";
import { DEFAULT_LOCAL_MODEL, isLocalModelName, LOCAL_PREFIX, megabytes } from "../core/models/local/catalog.js";
import { localRuntimeStatus, type RuntimeStatus } from "../core/models/local/runtime.js";

/**
 * Decides which model a CLI run uses, so that a first run works without reading docs: explicit flags, then the
 * OpenAI environment variables, then a local Ollama server, then the local default model (downloaded once and run
 * in-process), announced in one line; `--no-local` or SKILL_FOLLOWING_NO_LOCAL=1 turns that last step off (CI,
 * where a missing model must stay an error). A model named with `local:` runs in-process whatever else is set.
 * When nothing is configured the error lists, runnable as written, how to set up each supported backend.
 * The key travels only in the returned value: it is never put in a message or log line.
 */

export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
/** Ollama ignores the key, but the `openai` SDK refuses to start without one. */
export const OLLAMA_PLACEHOLDER_KEY = "ollama";

export interface ResolveModelInput {
  /** `--model` */
  model?: string;
  /** `--base-url`: any OpenAI-compatible endpoint root, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl?: string;
  /** A key given by the caller (SecretStorage, a flag); else `OPENAI_API_KEY`. */
  apiKey?: string;
  env: NodeJS.ProcessEnv;
  /** Where to look for Ollama; default `OLLAMA_HOST` or http://127.0.0.1:11434. */
  ollamaUrl?: string;
  /** How long a local server may take to answer a probe (default 1500 ms). */
  probeTimeoutMs?: number;
  logger?: Logger;
  signal?: AbortSignal;
  /** `--no-local`: no local default when nothing else answers (also SKILL_FOLLOWING_NO_LOCAL=1). */
  noLocal?: boolean;
  /** Whether local models can run here (default: node-llama-cpp's prebuilt binary loads); asked before the fallback. */
  localRuntime?: () => Promise<RuntimeStatus>;
}

export interface ResolvedModelConfig {
  /** Absent means the SDK default (api.openai.com). */
  baseURL?: string;
  apiKey?: string;
  model: string;
  source: "flags" | "env" | "ollama" | "local-default";
  /** The model runs in-process (`model` is `local:<name|file.gguf>`): no endpoint, no key. */
  local?: true;
  /** The local default: where Ollama was looked for and why it did not answer (for the message if the download fails). */
  ollamaProbe?: { url: string; reason: string };
}

/** SKILL_FOLLOWING_NO_LOCAL: set to anything but "", "0" or "false". */
export function noLocalFromEnv(env: NodeJS.ProcessEnv): boolean {
  const v = env.SKILL_FOLLOWING_NO_LOCAL?.trim().toLowerCase();
  return v !== undefined && v !== "" && v !== "0" && v !== "false";
}

export async function resolveModelConfig(input: ResolveModelInput): Promise<ResolvedModelConfig> {
  const logger = input.logger ?? silentLogger;
  const env = input.env;
  const timeoutMs = input.probeTimeoutMs ?? 1500;
  const flagModel = nonEmpty(input.model);
  const envModel = nonEmpty(env.SKILL_FOLLOWING_MODEL);
  const envKey = nonEmpty(env.OPENAI_API_KEY);
  const envBase = nonEmpty(env.OPENAI_BASE_URL);
  const apiKey = nonEmpty(input.apiKey) ?? envKey;

  // 0. A model named `local:` runs in-process, from a flag or (without a --model) the environment.
  const localNamed = flagModel !== undefined ? (isLocalModelName(flagModel) ? { model: flagModel, source: "flags" as const } : undefined) : envModel && isLocalModelName(envModel) ? { model: envModel, source: "env" as const } : undefined;
  if (localNamed) {
    if (nonEmpty(input.baseUrl) !== undefined) {
      throw new ModelConfigError(`${localNamed.model} runs in-process, so --base-url has nothing to do.`, { hint: "Drop --base-url, or name a model the endpoint serves.", hintIds: ["model", "baseUrl"] });
    }
    return { model: localNamed.model, source: localNamed.source, local: true };
  }

  // 1. Explicit flags. `--base-url` alone is enough when the server lists its models.
  const flagBase = nonEmpty(input.baseUrl);
  if (flagBase !== undefined) {
    const baseURL = normaliseUrl(flagBase, "--base-url");
    warnIfBareOllama(baseURL, "--base-url", logger);
    const model = flagModel ?? envModel ?? (await firstListedModel(baseURL, apiKey, timeoutMs, input.signal, "--base-url"));
    return withKey({ baseURL, model, source: "flags" }, apiKey);
  }
  if (flagModel !== undefined && (apiKey !== undefined || envBase !== undefined)) {
    const baseURL = envBase === undefined ? undefined : normaliseUrl(envBase, "OPENAI_BASE_URL");
    return withKey({ ...(baseURL ? { baseURL } : {}), model: flagModel, source: "flags" }, apiKey);
  }

  // 2. The environment: a key (OpenAI, OpenRouter, ...) and/or a base URL (vLLM, LM Studio, ...).
  if (apiKey !== undefined || envBase !== undefined) {
    const baseURL = envBase === undefined ? undefined : normaliseUrl(envBase, "OPENAI_BASE_URL");
    if (baseURL) warnIfBareOllama(baseURL, "OPENAI_BASE_URL", logger);
    let model = envModel;
    if (model === undefined) {
      // Against api.openai.com a small cheap model is the sensible default; a self-hosted server is asked.
      model = baseURL === undefined ? DEFAULT_OPENAI_MODEL : await firstListedModel(baseURL, apiKey, timeoutMs, input.signal, "OPENAI_BASE_URL");
    }
    return withKey({ ...(baseURL ? { baseURL } : {}), model, source: "env" }, apiKey);
  }

  // 3. A local Ollama server, if one answers quickly.
  const ollama = normaliseUrl(nonEmpty(input.ollamaUrl) ?? ollamaFromEnv(env) ?? DEFAULT_OLLAMA_URL, "OLLAMA_HOST");
  const probe = await probeOllama(ollama, timeoutMs, input.signal);
  if (probe.ok) {
    const wanted = flagModel ?? envModel;
    const installed = probe.models;
    if (installed.length === 0) {
      throw new ModelConfigError(`Ollama at ${ollama} answered but has no models installed.`, {
        hint: "Pull one, e.g. `ollama pull llama3.2`, or pass --model after pulling it.",
        hintIds: ["model"],
      });
    }
    let model = installed[0] as string;
    if (wanted !== undefined) {
      const match = installed.find((m) => sameOllamaModel(m, wanted));
      if (!match) {
        throw new ModelConfigError(`Ollama at ${ollama} has no model "${wanted}"; installed: ${installed.join(", ")}.`, {
          hint: `Run \`ollama pull ${wanted}\` or pass one of the installed names with --model.`,
          hintIds: ["model"],
        });
      }
      model = match;
    }
    logger.info(`model: using Ollama at ${ollama} with ${model}`);
    return { baseURL: `${ollama}/v1`, apiKey: OLLAMA_PLACEHOLDER_KEY, model, source: "ollama" };
  }

  // 4. The local default, unless a model was named (never swapped for another) or the fallback is off.
  const named = flagModel ?? envModel;
  const off = input.noLocal === true || noLocalFromEnv(env);
  let localNote: string;
  if (named !== undefined) localNote = "";
  else if (off) localNote = "The local default model is off (--no-local or SKILL_FOLLOWING_NO_LOCAL).";
  else {
    const runtime = await (input.localRuntime ?? localRuntimeStatus)();
    if (runtime.ok) {
      const e = DEFAULT_LOCAL_MODEL;
      logger.info(
        `model: no API key, endpoint or Ollama found, so using the local default ${e.title} (${megabytes(e.bytes)}, ${e.license}), downloaded once to ${modelsCacheDir(env)} and run in-process; --no-local turns this off`,
      );
      return { model: `${LOCAL_PREFIX}${e.name}`, source: "local-default", local: true, ollamaProbe: { url: ollama, reason: probe.reason } };
    }
    // Never download what cannot run: say why instead.
    localNote = `The local default model cannot run in this installation (${runtime.reason}).`;
  }
  throw noModelError(ollama, probe.reason, flagModel, localNote);
}

/** Nothing configured and nothing found (CLI exit code 4): the list of every way to get a model, and why the local default did not serve. */
export function noModelError(ollamaUrl: string, ollamaReason: string, model: string | undefined, localNote: string, cause?: unknown): NoModelError {
  return new NoModelError([unconfiguredMessage(ollamaUrl, ollamaReason, model), localNote].filter(Boolean).join("\n"), {
    hint: "Set OPENAI_API_KEY, start Ollama, pass --base-url and --model for any OpenAI-compatible server, or run a local model.",
    hintIds: ["apiKey", "baseUrl", "model", "modelsMirror"],
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The text shown when no model can be found: one runnable recipe per supported backend. */
export function unconfiguredMessage(ollamaUrl: string, ollamaReason: string, model?: string): string {
  const first = model === undefined ? "No model is configured" : `--model ${model} was given but no endpoint for it`;
  return [
    `${first}, and no Ollama server answered at ${ollamaUrl}/api/tags (${ollamaReason}).`,
    "Configure one of these (flags go on `skill-following run`; env vars are read at start):",
    "  OpenAI:      export OPENAI_API_KEY=<your key>     model: --model gpt-4o-mini or SKILL_FOLLOWING_MODEL=gpt-4o-mini (default gpt-4o-mini)",
    "  Ollama:      ollama serve; ollama pull llama3.2   found automatically at http://127.0.0.1:11434 (elsewhere: OLLAMA_HOST=http://<host>:11434),",
    "               or explicitly: --base-url http://127.0.0.1:11434/v1 --model llama3.2",
    "  vLLM:        vllm serve <model>                   then --base-url http://127.0.0.1:8000/v1 --model <model>  (or OPENAI_BASE_URL=http://127.0.0.1:8000/v1)",
    "  LM Studio:   Developer tab > Start Server          then --base-url http://127.0.0.1:1234/v1 --model <loaded model id>",
    "  llama.cpp:   llama-server -m <model>.gguf --port 8080   then --base-url http://127.0.0.1:8080/v1 --model <any name>",
    "  OpenRouter:  export OPENAI_API_KEY=<openrouter key> OPENAI_BASE_URL=https://openrouter.ai/api/v1   then --model openai/gpt-4o-mini",
    "  VS Code:     inside the editor, run \"Skill Following: Evaluate This Skill\" and pick one of the editor's own language models (e.g. Copilot); no key needed.",
    `  Local:       --model local:${DEFAULT_LOCAL_MODEL.name} (${megabytes(DEFAULT_LOCAL_MODEL.bytes)}, downloaded once; offline, from a mirror: SKILL_FOLLOWING_MODELS_MIRROR=<url>)`,
    "               or --model local:<file.gguf> (any GGUF file on disk): runs in-process, no server, no key",
    "With --base-url and no --model, the server's first listed model (GET <base-url>/models) is used.",
  ].join("\n");
}

type Probe = { ok: true; models: string[] } | { ok: false; reason: string };

async function probeOllama(root: string, timeoutMs: number, signal?: AbortSignal): Promise<Probe> {
  try {
    const body = await getJson(`${root}/api/tags`, undefined, timeoutMs, signal);
    const models = (body as { models?: unknown }).models;
    if (!Array.isArray(models)) return { ok: false, reason: "the answer is not an Ollama /api/tags listing" };
    const names = models
      .map((m) => (m && typeof m === "object" ? ((m as { name?: unknown; model?: unknown }).name ?? (m as { model?: unknown }).model) : undefined))
      .filter((n): n is string => typeof n === "string" && n.length > 0);
    return { ok: true, models: names };
  } catch (error) {
    if (signal?.aborted) throw new CancelledError("model resolution cancelled");
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** GET <base>/models (OpenAI list shape) and take the first id; vLLM, LM Studio, llama.cpp and Ollama all answer it. */
async function firstListedModel(baseURL: string, apiKey: string | undefined, timeoutMs: number, signal: AbortSignal | undefined, from: string): Promise<string> {
  let reason: string;
  try {
    const body = await getJson(`${baseURL}/models`, apiKey, timeoutMs, signal);
    const data = (body as { data?: unknown }).data;
    const id = Array.isArray(data) ? (data as Array<{ id?: unknown }>).map((d) => d?.id).find((v) => typeof v === "string" && v.length > 0) : undefined;
    if (typeof id === "string") return id;
    reason = "it listed no models";
  } catch (error) {
    if (signal?.aborted) throw new CancelledError("model resolution cancelled");
    reason = error instanceof Error ? error.message : String(error);
  }
  throw new ModelConfigError(`No model given, and ${baseURL}/models (from ${from}) could not name one: ${reason}.`, {
    hint: "Pass --model <name> (or set SKILL_FOLLOWING_MODEL).",
    hintIds: ["model"],
  });
}

async function getJson(url: string, apiKey: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { signal: combined, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  } catch (error) {
    if (timeout.aborted && !signal?.aborted) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
    // fetch hides the useful part ("ECONNREFUSED") in the cause.
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : (error as Error).message;
    throw new Error(detail, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status}`);
  }
  try {
    return await response.json();
  } catch (error) {
    if (timeout.aborted && !signal?.aborted) throw new Error(`no complete answer within ${timeoutMs} ms`, { cause: error });
    throw new Error("the answer is not JSON", { cause: error });
  }
}

function withKey(config: Omit<ResolvedModelConfig, "apiKey">, apiKey: string | undefined): ResolvedModelConfig {
  return apiKey === undefined ? config : { ...config, apiKey };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Accepts `host:port` and `http(s)://host:port/path`; drops trailing slashes; 0.0.0.0 (a bind address) becomes loopback. */
function normaliseUrl(raw: string, from: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ModelConfigError(`${from} "${raw}" is not a URL.`, { hint: "Use a form like http://127.0.0.1:8000/v1.", hintIds: ["baseUrl"] });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ModelConfigError(`${from} "${raw}" must be an http(s) URL.`, { hint: "Use a form like http://127.0.0.1:8000/v1.", hintIds: ["baseUrl"] });
  }
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  return url.toString().replace(/\/+$/, "");
}

function ollamaFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  return nonEmpty(env.OLLAMA_HOST);
}

/** A common slip: Ollama's root instead of its OpenAI-compatible `/v1`. */
function warnIfBareOllama(baseURL: string, from: string, logger: Logger): void {
  const url = new URL(baseURL);
  if (url.port === "11434" && (url.pathname === "/" || url.pathname === "")) {
    logger.warn(`${from} ${baseURL} looks like an Ollama root; its OpenAI-compatible API is at ${baseURL}/v1`);
  }
}

/** `llama3.2` and `llama3.2:latest` name the same Ollama model. */
function sameOllamaModel(installed: string, wanted: string): boolean {
  const norm = (s: string) => (s.includes(":") ? s : `${s}:latest`);
  return norm(installed) === norm(wanted);
}
