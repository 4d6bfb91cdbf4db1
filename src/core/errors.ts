import type { RunSettingKey } from "./settings.js";

/**
 * Typed errors of the core. The CLI maps them to exit codes, the extension to notifications with buttons.
 * Each carries what the user needs to fix the problem: the file and line where there is one, a hint in words that
 * fit any host, and hint ids naming the options or commands that fix it, which each host renders its own way.
 */

/**
 * Hint ids besides the evaluation options (RunSettings keys): the inputs every host has.
 * model: the model name · baseUrl: the OpenAI-compatible endpoint · modelProvider: which kind of endpoint answers
 * (OpenAI-compatible, or the editor's own language models) · apiKey · runFile: where the run file goes ·
 * resume: continue an existing run file · taskSet: which tasks to evaluate on · taskSetMirror: a mirror for
 * task-set downloads · log: the detailed log · file: the file (and line) the error names · modelsMirror: where local
 * models are downloaded from (a mirror, or the models folder to copy a file into) · noLocal: turning off the local
 * default model.
 */
export const INPUT_HINT_IDS = ["model", "baseUrl", "modelProvider", "apiKey", "runFile", "resume", "taskSet", "taskSetMirror", "log", "file", "modelsMirror", "noLocal"] as const;

/**
 * What fixes an error, named without a host: an evaluation option (a RunSettings key) or one of INPUT_HINT_IDS.
 * The CLI renders each as a flag or environment variable (src/cli/hints.ts), the extension as a setting or a
 * command button (src/extension/hints.ts). Error texts never spell a flag or a setting themselves.
 */
export type HintId = RunSettingKey | (typeof INPUT_HINT_IDS)[number];

export interface ErrorOptions {
  /** What to do, in words that hold in every host (no flags, no setting names). */
  hint?: string;
  /** The options or commands that fix it, most useful first. */
  hintIds?: readonly HintId[];
  file?: string;
  line?: number;
  cause?: unknown;
}

export class SkillFollowingError extends Error {
  constructor(
    message: string,
    readonly options: ErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** Bad input from the user: a file that does not parse, an option out of range. CLI exit code 2. */
export class InputError extends SkillFollowingError {}

/**
 * A run or ablation file exists but was made from other inputs (model, skill, tasks, settings), so it cannot be
 * resumed: the message lists the differences. A host may start a new file beside it instead of matching the text.
 */
export class ResumeMismatchError extends InputError {}

/** No usable model configuration (no key, no base URL, nothing answering). */
export class ModelConfigError extends SkillFollowingError {}

/** A model endpoint failed in a way retries cannot fix (401, 404, 400 ...). */
export class ModelRequestError extends SkillFollowingError {
  constructor(
    message: string,
    readonly status: number | undefined,
    options: ErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * Nothing answers at the endpoint (connection refused, unknown host) and nothing ever did in this run: every further
 * call would fail the same way, so the evaluation stops at once with this one message. CLI exit code 4.
 */
export class EndpointUnreachableError extends ModelRequestError {
  constructor(
    message: string,
    readonly endpoint: string,
    options: ErrorOptions = {},
  ) {
    super(message, undefined, options);
  }
}

/**
 * No model can be had: none is configured, none answers where one is looked for (a local Ollama), and the local
 * default is off, cannot run here or cannot be downloaded. The message lists every way to get one. CLI exit code 4.
 */
export class NoModelError extends ModelConfigError {}

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

/**
 * The skill-eval judge could not grade an answer: its endpoint failed after retries, or its reply is not a grading.
 * The run is left ungraded (its pair incomplete) and resuming grades it again; it is never a task failure.
 */
export class JudgeError extends SkillFollowingError {}
