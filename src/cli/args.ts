import { parseArgs, type ParseArgsConfig } from "node:util";
import { InputError } from "../core/errors.js";
import { closest } from "../shared/suggest.js";

/**
 * parseArgs with errors turned into InputError (exit code 2): a mistyped flag gets "did you mean", and every error
 * says where the full list is (`<command> --help`) instead of burying the message under the whole usage text.
 */
export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T, usage: string, command = "") {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const help = `skill-following ${command} --help`.replace(/\s+/g, " ");
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const flag = /'(-[^']+)'/.exec((err as Error).message)?.[1] ?? "";
      const near = closest(flag.replace(/^-+/, "").split("=")[0]!, Object.keys(options));
      throw new InputError(`unknown option ${flag}${near ? `: did you mean --${near}?` : ""}`, { hint: `${help} lists every option.` });
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw new InputError((err as Error).message.replace(/\s*To specify.*$/s, ""), { hint: `${help} lists every option.` });
    throw new InputError(`${err instanceof Error ? err.message : String(err)}\n\n${usage}`);
  }
}

export function intOption(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InputError(`${flag} takes a whole number ≥ ${min} (got '${value}')`);
  return n;
}

export function numberOption(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new InputError(`${flag} takes a number from ${min} to ${max} (got '${value}')`);
  return n;
}

export function choice<T extends string>(value: string | undefined, flag: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new InputError(`${flag} must be one of ${allowed.join(", ")} (got '${value}')`);
  return value as T;
}
