import { z } from "zod";
import { DEFAULT_RUN_SETTINGS, RUN_SETTING_KEYS, parseRunSettings, runSettingSchema, type RunSettingKey, type RunSettings } from "../core/settings.js";

/**
 * The typed view of the `skillFollowing.*` settings. No `vscode` import: a unit test checks that every key here
 * is declared in package.json `contributes.configuration` and the other way round, and that each evaluation option
 * there has the core schema's type, range, default and description. The API key is deliberately absent; it lives
 * in SecretStorage only.
 */

/** The setting behind each evaluation option (RunSettings key → `skillFollowing.<name>`). */
export const RUN_SETTING_CONFIG_KEYS = {
  mode: "retrievalMode",
  topK: "searchTopK",
  searchThreshold: "searchThreshold",
  design: "design",
  raeOnlyControl: "raeOnlyControl",
  samples: "samples",
  temperature: "temperature",
  seed: "seed",
  maxTokens: "maxTokens",
  maxTurns: "maxTurns",
  concurrency: "concurrency",
  limit: "taskLimit",
  stopWhen: "stopWhen",
  shuffleSeed: "shuffleSeed",
  alpha: "alpha",
  timeoutSeconds: "requestTimeoutSeconds",
  judgeModel: "judgeModel",
  judgeBaseUrl: "judgeBaseUrl",
  judgeRepeats: "judgeRepeats",
  responseCache: "responseCache",
  batch: "batch",
  sandboxPython: "sandboxPython",
  agent: "agent",
  agentUnconfined: "agentUnconfined",
} as const satisfies Record<RunSettingKey, string>;

type RunSettingFields = { [K in RunSettingKey as (typeof RUN_SETTING_CONFIG_KEYS)[K]]: z.ZodCatch<z.ZodType<RunSettings[K]>> };

/** An evaluation option as a setting: the core's schema; `null` (package.json's "unset") is absent; bad values fall back. */
function runSettingField<K extends RunSettingKey>(key: K): z.ZodCatch<z.ZodType<RunSettings[K]>> {
  const inner = z.preprocess((v) => (v === null ? undefined : v), runSettingSchema(key)) as unknown as z.ZodType<RunSettings[K]>;
  return inner.catch(DEFAULT_RUN_SETTINGS[key]);
}

const runSettingFields = Object.fromEntries(RUN_SETTING_KEYS.map((k) => [RUN_SETTING_CONFIG_KEYS[k], runSettingField(k)])) as unknown as RunSettingFields;

export const ConfigSchema = z.object({
  modelProvider: z.enum(["openai-compatible", "vscode-lm"]).catch("openai-compatible"),
  baseUrl: z.string().trim().catch("https://api.openai.com/v1"),
  model: z.string().trim().catch("gpt-4o-mini"),
  models: z.array(z.string()).catch([]),
  ...runSettingFields,
  skillFolders: z.array(z.string()).catch([]),
  evaluateOnSave: z.boolean().catch(false),
  lintDelayMs: z.number().int().min(0).catch(300),
  taskSetMirror: z.string().trim().catch(""),
});
export type Config = z.infer<typeof ConfigSchema>;

export const CONFIG_SECTION = "skillFollowing";
export const CONFIG_KEYS = Object.keys(ConfigSchema.shape) as (keyof Config)[];

/** Parses raw setting values; a bad value falls back to its default (and is reported by `invalidKeys`). */
export function parseConfig(raw: Record<string, unknown>): Config {
  return ConfigSchema.parse(raw);
}

/** Keys whose raw value did not validate, so the user can be told which setting was ignored. */
export function invalidKeys(raw: Record<string, unknown>): string[] {
  const strict = z.object(
    Object.fromEntries(
      Object.entries(ConfigSchema.shape).map(([k, v]) => [k, (v as unknown as { removeCatch?: () => z.ZodType }).removeCatch?.() ?? z.unknown()]),
    ),
  );
  const r = strict.safeParse(raw);
  return r.success ? [] : [...new Set(r.error.issues.map((i) => String(i.path[0])))].filter((k) => raw[k] !== undefined);
}

/** The evaluation options these settings give, validated by the core (a control sample without rae-only is refused). */
export function runSettingsFromConfig(config: Config): RunSettings {
  const input: Record<string, unknown> = {};
  for (const key of RUN_SETTING_KEYS) input[key] = config[RUN_SETTING_CONFIG_KEYS[key]];
  return parseRunSettings(input);
}
