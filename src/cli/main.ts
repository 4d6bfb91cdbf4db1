#!/usr/bin/env node
import { CancelledError, EndpointUnreachableError, InputError, ModelConfigError, NoModelError, SkillFollowingError } from "../core/errors.js";
import { ModelDownloadError } from "../core/models/local/download.js";
import { DownloadError } from "../core/tasks/download.js";
import { closest } from "../shared/suggest.js";
import { TOOL_VERSION } from "../core/version.js";
import { ABLATE_USAGE, ablateCommand } from "./ablate-command.js";
import { renderHint } from "./hints.js";
import { stderrLogger } from "./logger.js";
import { DIFF_USAGE, diffCommand } from "./diff-command.js";
import { LINT_USAGE, lintCommand } from "./lint-command.js";
import { MERGE_USAGE, mergeCommand } from "./merge-command.js";
import { REPORT_USAGE, reportCommand } from "./report-command.js";
import { RUN_USAGE, runCommand } from "./run-command.js";
import { TASKS_USAGE, tasksCommand } from "./tasks-command.js";

/** The exit codes the README documents (a test holds the two to each other). */
export const EXIT_CODES = {
  ok: 0,
  /** Some runs failed (model errors after retries); resuming retries them. */
  runsFailed: 1,
  /** Bad input: a file that does not parse, an option out of range, a model setting that cannot work. */
  badInput: 2,
  /** report --fail-on: the condition holds. */
  failOn: 3,
  /** No model to reach: nothing answers at the endpoint, none is configured or found, or a download (task set, local model) failed. */
  unreachable: 4,
  cancelled: 130,
} as const;

const USAGE = `skill-following ${TOOL_VERSION} — does a retrieved skill help or hurt?

${RUN_USAGE}

${REPORT_USAGE}

${ABLATE_USAGE}

${MERGE_USAGE}

${DIFF_USAGE}

${TASKS_USAGE}

${LINT_USAGE}

Exit codes: 0 done; 1 runs failed (resume to retry them); 2 bad input; 3 the --fail-on condition holds;
4 no model could be reached (the endpoint does not answer, none is configured, or a download failed); 130 interrupted.`;

const COMMAND_USAGE: Record<string, string> = { run: RUN_USAGE, report: REPORT_USAGE, ablate: ABLATE_USAGE, merge: MERGE_USAGE, diff: DIFF_USAGE, tasks: TASKS_USAGE, lint: LINT_USAGE };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const level = rest.includes("--quiet") ? "quiet" : rest.includes("--verbose") ? "debug" : "info";
  const logger = stderrLogger(level);
  const controller = new AbortController();
  let interrupts = 0;
  process.on("SIGINT", () => {
    // First Ctrl-C: stop cleanly and keep finished runs; second: leave at once.
    if (++interrupts > 1) process.exit(130);
    logger.warn("interrupted: finishing up (press Ctrl-C again to quit at once)");
    controller.abort();
  });
  // `<command> --help` is a question, not an error: print that command's usage and exit 0.
  if (command && COMMAND_USAGE[command] && (rest.includes("--help") || rest.includes("-h"))) {
    process.stdout.write(`${COMMAND_USAGE[command]}\n`);
    return EXIT_CODES.ok;
  }
  try {
    switch (command) {
      case "run":
        return await runCommand(rest, logger, controller.signal);
      case "report":
        return await reportCommand(rest, logger);
      case "ablate":
        return await ablateCommand(rest, logger, controller.signal);
      case "merge":
        return await mergeCommand(rest, logger);
      case "diff":
        return await diffCommand(rest, logger, controller.signal);
      case "tasks":
        return await tasksCommand(rest, logger, controller.signal);
      case "lint":
        return await lintCommand(rest, logger);
      case "--version":
      case "-v":
        process.stdout.write(`${TOOL_VERSION}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? EXIT_CODES.badInput : EXIT_CODES.ok;
      default: {
        const near = closest(command, Object.keys(COMMAND_USAGE));
        throw new InputError(`unknown command '${command}'${near ? `: did you mean '${near}'?` : ""}`, { hint: "skill-following --help lists the commands." });
      }
    }
  } catch (err) {
    if (err instanceof CancelledError) return EXIT_CODES.cancelled;
    if (err instanceof SkillFollowingError) {
      logger.error(err.message);
      // --verbose: the error's class and where it came from (the packaged bundle keeps class names: esbuild keepNames).
      logger.debug(err.stack ?? `${err.name}: ${err.message}`);
      const hint = renderHint(err.options.hint, err.options.hintIds);
      if (hint) process.stderr.write(`hint: ${hint}\n`);
      if (err instanceof EndpointUnreachableError || err instanceof NoModelError || err instanceof DownloadError || err instanceof ModelDownloadError) return EXIT_CODES.unreachable;
      return err instanceof InputError || err instanceof ModelConfigError ? EXIT_CODES.badInput : EXIT_CODES.runsFailed;
    }
    logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fatal: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
