#!/usr/bin/env node
import { CancelledError, InputError, ModelConfigError, SkillFollowingError } from "../core/errors.js";
import { TOOL_VERSION } from "../core/version.js";
import { ABLATE_USAGE, ablateCommand } from "./ablate-command.js";
import { renderHint } from "./hints.js";
import { stderrLogger } from "./logger.js";
import { MERGE_USAGE, mergeCommand } from "./merge-command.js";
import { REPORT_USAGE, reportCommand } from "./report-command.js";
import { RUN_USAGE, runCommand } from "./run-command.js";
import { TASKS_USAGE, tasksCommand } from "./tasks-command.js";

const USAGE = `skill-following ${TOOL_VERSION} — does a retrieved skill help or hurt?

${RUN_USAGE}

${REPORT_USAGE}

${ABLATE_USAGE}

${MERGE_USAGE}

${TASKS_USAGE}`;

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
      case "tasks":
        return await tasksCommand(rest, logger, controller.signal);
      case "--version":
      case "-v":
        process.stdout.write(`${TOOL_VERSION}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new InputError(`unknown command '${command}'\n\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof CancelledError) return 130;
    if (err instanceof SkillFollowingError) {
      logger.error(err.message);
      // --verbose: the error's class and where it came from (the packaged bundle keeps class names: esbuild keepNames).
      logger.debug(err.stack ?? `${err.name}: ${err.message}`);
      const hint = renderHint(err.options.hint, err.options.hintIds);
      if (hint) process.stderr.write(`hint: ${hint}\n`);
      return err instanceof InputError || err instanceof ModelConfigError ? 2 : 1;
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
