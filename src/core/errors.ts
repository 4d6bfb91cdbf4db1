/**
 * Typed errors of the core. The CLI maps them to exit codes, the extension to notifications with actions.
 * Each carries what the user needs to fix the problem: the file and line where there is one, and a hint.
 */
export type ErrorAction = "setApiKey" | "openSettings" | "showLog" | "pickTaskSet" | "openFile";

export class SkillFollowingError extends Error {
  constructor(
    message: string,
    readonly options: { hint?: string; action?: ErrorAction; file?: string; line?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** Bad input from the user: a file that does not parse, a flag out of range. CLI exit code 2. */
export class InputError extends SkillFollowingError {}

/** No usable model configuration (no key, no base URL, nothing answering). */
export class ModelConfigError extends SkillFollowingError {}

/** A model endpoint failed in a way retries cannot fix (401, 404, 400 ...). */
export class ModelRequestError extends SkillFollowingError {
  constructor(
    message: string,
    readonly status: number | undefined,
    options: ConstructorParameters<typeof SkillFollowingError>[1] = {},
  ) {
    super(message, options);
  }
}

/** The user (or a stopping rule) cancelled; finished work is kept. */
export class CancelledError extends SkillFollowingError {
  constructor(message = "cancelled") {
    super(message);
  }
}

/** Formats `file:line: message` the way every located error in the product is shown. */
export function located(file: string, line: number | undefined, message: string): string {
  return line === undefined ? `${file}: ${message}` : `${file}:${line}: ${message}`;
}
