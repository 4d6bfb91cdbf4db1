import { parseArgs, type ParseArgsConfig } from "node:util";
import { InputError } from "../core/errors.js";

/** parseArgs with errors turned into InputError (exit code 2) that name the command's usage. */
export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T, usage: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
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
