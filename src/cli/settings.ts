import { InputError } from "../core/errors.js";
import { RUN_SETTING_KEYS, RUN_SETTING_SPECS, describeAccepted, parseRunSettings, type RunSettingKey, type RunSettings, type RunSettingSpec } from "../core/settings.js";

/**
 * The CLI's face of RunSettings: one flag per option. Names, defaults, ranges and descriptions come from the core
 * schema; this table adds only the flag and its value placeholder. `--no-cache` is the negation of responseCache,
 * and `--rae-only` stays as the short form of `--design rae-only`.
 */
export const SETTING_FLAGS: Readonly<Record<RunSettingKey, { flag: string; value?: string; negates?: true }>> = {
  mode: { flag: "mode" },
  topK: { flag: "top-k", value: "n" },
  searchThreshold: { flag: "search-threshold", value: "x" },
  design: { flag: "design" },
  raeOnlyControl: { flag: "rae-only-control", value: "q" },
  samples: { flag: "samples", value: "k" },
  temperature: { flag: "temperature", value: "t" },
  seed: { flag: "seed", value: "n" },
  maxTokens: { flag: "max-tokens", value: "n" },
  maxTurns: { flag: "max-turns", value: "n" },
  concurrency: { flag: "concurrency", value: "n" },
  limit: { flag: "limit", value: "n" },
  stopWhen: { flag: "stop-when" },
  shuffleSeed: { flag: "shuffle-seed", value: "n" },
  alpha: { flag: "alpha", value: "a" },
  timeoutSeconds: { flag: "timeout", value: "seconds" },
  judgeModel: { flag: "judge-model", value: "name" },
  judgeBaseUrl: { flag: "judge-base-url", value: "url" },
  judgeRepeats: { flag: "judge-repeats", value: "k" },
  responseCache: { flag: "no-cache", negates: true },
  batch: { flag: "batch" },
  sandboxPython: { flag: "python" },
  agent: { flag: "agent" },
  agentUnconfined: { flag: "agent-unconfined" },
};

const RAE_ONLY = "rae-only";

/** parseArgs options for every setting (all strings but the negated booleans), plus the `--rae-only` shorthand. */
export const SETTING_OPTIONS = Object.fromEntries([
  ...RUN_SETTING_KEYS.map((key) => [SETTING_FLAGS[key].flag, { type: RUN_SETTING_SPECS[key].type === "boolean" ? "boolean" : "string" }] as const),
  [RAE_ONLY, { type: "boolean" }] as const,
]) as Record<string, { type: "string" | "boolean" }>;

/** `--samples <k>`, `--mode catalog|search`, `--no-cache`. */
export function flagUsage(key: RunSettingKey): string {
  const f = SETTING_FLAGS[key];
  const spec = RUN_SETTING_SPECS[key];
  if (spec.type === "boolean") return `--${f.flag}`;
  return `--${f.flag} ${spec.enum ? spec.enum.join("|") : `<${f.value ?? "value"}>`}`;
}

function convert(key: RunSettingKey, raw: string, spec: RunSettingSpec): number | string {
  if (spec.enum) {
    if (!spec.enum.includes(raw)) throw new InputError(`--${SETTING_FLAGS[key].flag} must be ${describeAccepted(spec)} (got '${raw}')`);
    return raw;
  }
  if (spec.type === "string") {
    if (raw.trim() === "") throw new InputError(`--${SETTING_FLAGS[key].flag} needs a value`);
    return raw;
  }
  const n = raw.trim() === "" ? Number.NaN : Number(raw);
  const ok =
    Number.isFinite(n) &&
    (spec.type !== "integer" || Number.isInteger(n)) &&
    (spec.minimum === undefined || n >= spec.minimum) &&
    (spec.maximum === undefined || n <= spec.maximum);
  if (!ok) throw new InputError(`--${SETTING_FLAGS[key].flag} takes ${describeAccepted(spec)} (got '${raw}')`);
  return n;
}

/** RunSettings from parseArgs values: each flag converted and range-checked under its own name, then the whole validated. */
export function runSettingsFromArgs(values: Record<string, string | boolean | (string | boolean)[] | undefined>): RunSettings {
  const input: Record<string, unknown> = {};
  for (const key of RUN_SETTING_KEYS) {
    const { flag, negates } = SETTING_FLAGS[key];
    const raw = values[flag];
    if (raw === undefined) continue;
    if (negates) {
      if (raw === true) input[key] = false;
      continue;
    }
    if (RUN_SETTING_SPECS[key].type === "boolean") {
      if (raw === true) input[key] = true;
      continue;
    }
    input[key] = convert(key, String(raw), RUN_SETTING_SPECS[key]);
  }
  if (values[RAE_ONLY] === true) {
    if (input.design === "paired") throw new InputError("--rae-only contradicts --design paired; give one of them");
    input.design = "rae-only";
  }
  return parseRunSettings(input);
}

function wrap(text: string, indent: number, width = 110): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width - indent) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}

/** The evaluation options of `run --help`, one per setting, generated from the schema. */
export function settingsUsage(): string {
  const column = 30;
  return RUN_SETTING_KEYS.map((key) => {
    const spec = RUN_SETTING_SPECS[key];
    const flag = flagUsage(key);
    const dflt = spec.type === "boolean" ? "" : spec.default !== undefined ? ` Default: ${String(spec.default)}.` : "";
    const text = `${SETTING_FLAGS[key].negates ? "Turns off what is on by default: " : ""}${spec.description}${dflt}`;
    const head = `  ${flag}`;
    return head.length < column ? `${head.padEnd(column)}${wrap(text, column)}` : `${head}\n${" ".repeat(column)}${wrap(text, column)}`;
  }).join("\n");
}
