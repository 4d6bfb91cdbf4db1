import { z } from "zod";

/**
 * The typed view of the `skillFollowing.*` settings. No `vscode` import: a unit test checks that every key here
 * is declared in package.json `contributes.configuration` and the other way round. The API key is deliberately
 * absent; it lives in SecretStorage only.
 */
const optionalInt = z.number().int().nullish().transform((v) => v ?? undefined);

export const ConfigSchema = z.object({
  modelProvider: z.enum(["openai-compatible", "vscode-lm"]).catch("openai-compatible"),
  baseUrl: z.string().trim().catch("https://api.openai.com/v1"),
  model: z.string().trim().catch("gpt-4o-mini"),
  models: z.array(z.string()).catch([]),
  temperature: z.number().min(0).max(2).catch(0),
  seed: optionalInt.catch(undefined),
  maxTokens: z.number().int().positive().nullish().transform((v) => v ?? undefined).catch(undefined),
  samples: z.number().int().min(1).max(20).catch(1),
  concurrency: z.number().int().min(1).max(64).catch(4),
  maxTurns: z.number().int().min(1).max(50).catch(6),
  retrievalMode: z.enum(["catalog", "search"]).catch("catalog"),
  design: z.enum(["paired", "rae-only"]).catch("paired"),
  raeOnlyControl: z.number().min(0).max(1).catch(0),
  taskLimit: z.number().int().positive().nullish().transform((v) => v ?? undefined).catch(undefined),
  skillFolders: z.array(z.string()).catch([]),
  evaluateOnSave: z.boolean().catch(false),
  alpha: z.number().gt(0).lt(1).catch(0.05),
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
