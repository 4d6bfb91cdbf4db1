/** The one logging seam of the core. The extension backs it with a LogOutputChannel, the CLI with stderr. */
export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string | Error): void;
}

/** A logger that drops everything; for tests and library callers that do not care. */
export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};
