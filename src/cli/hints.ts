import type { HintId } from "../core/errors.js";
import { RUN_SETTING_KEYS, type RunSettingKey } from "../core/settings.js";
import { flagUsage } from "./settings.js";

/** How the CLI names each input a core error can point at (see HintId in src/core/errors.ts). */
const INPUTS: Readonly<Record<Exclude<HintId, RunSettingKey>, string>> = {
  model: "--model <name> (or SKILL_FOLLOWING_MODEL)",
  baseUrl: "--base-url <url> (or OPENAI_BASE_URL)",
  // The CLI always talks to an OpenAI-compatible endpoint; choosing one is choosing its URL.
  modelProvider: "--base-url <url>",
  apiKey: "OPENAI_API_KEY",
  runFile: "--out <run.jsonl>",
  resume: "--resume",
  taskSet: "--tasks <file|name>",
  taskSetMirror: "--mirror <url> (or SKILL_FOLLOWING_TASKS_MIRROR=<url>)",
  log: "--verbose",
  modelsMirror: "SKILL_FOLLOWING_MODELS_MIRROR=<url> (or SKILL_FOLLOWING_MODELS_DIR=<dir> holding the .gguf)",
  noLocal: "--no-local (or SKILL_FOLLOWING_NO_LOCAL=1)",
  // The message already starts with file:line.
  file: "",
};

/** One hint id as the CLI shows it: a flag with its value, or an environment variable. */
export function renderHintId(id: HintId): string {
  return (RUN_SETTING_KEYS as readonly string[]).includes(id) ? flagUsage(id as RunSettingKey) : INPUTS[id as keyof typeof INPUTS];
}

/** The `hint:` line of an error: its words, then what to pass. Undefined when there is nothing to say. */
export function renderHint(hint: string | undefined, ids: readonly HintId[] = []): string | undefined {
  const where = ids.map(renderHintId).filter(Boolean).join(", ");
  if (!hint && !where) return undefined;
  if (!hint) return `see ${where}`;
  return where ? `${hint} (${where})` : hint;
}
