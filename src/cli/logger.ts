import type { Logger } from "../core/logger.js";

/** The CLI's logger: stderr, so stdout stays clean for reports. */
export function stderrLogger(level: "quiet" | "info" | "debug"): Logger {
  const rank = { quiet: 0, info: 1, debug: 2 }[level];
  const write = (prefix: string, message: string) => process.stderr.write(`${prefix}${message}\n`);
  return {
    trace: (m) => rank >= 2 && write("trace: ", m),
    debug: (m) => rank >= 2 && write("debug: ", m),
    info: (m) => rank >= 1 && write("", m),
    warn: (m) => write("warning: ", m),
    error: (m) => write("error: ", m instanceof Error ? m.message : m),
  };
}
