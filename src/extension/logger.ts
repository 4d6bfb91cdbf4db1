import * as vscode from "vscode";
import type { Logger } from "../core/logger.js";

/**
 * The one LogOutputChannel, adapted to the core's Logger. `error()` reveals the channel (without taking focus)
 * because an error the user cannot see is an error they cannot fix. Every line passes through `redact`, which
 * removes secrets the extension knows about (the API key), as a second line of defence after "never log keys".
 */
export interface ExtensionLogger extends Logger {
  readonly channel: vscode.LogOutputChannel;
  /** Registers a secret that must never be printed; returns a disposable that forgets it. */
  addSecret(secret: string): vscode.Disposable;
  show(): void;
}

export function createLogger(name: string): ExtensionLogger & vscode.Disposable {
  const channel = vscode.window.createOutputChannel(name, { log: true });
  const secrets = new Set<string>();
  const redact = (text: string): string => {
    let out = text;
    for (const s of secrets) if (s.length >= 4) out = out.split(s).join("***");
    return out;
  };
  return {
    channel,
    trace: (m) => channel.trace(redact(m)),
    debug: (m) => channel.debug(redact(m)),
    info: (m) => channel.info(redact(m)),
    warn: (m) => channel.warn(redact(m)),
    error: (m) => {
      const text = m instanceof Error ? `${m.name}: ${m.message}${m.stack ? `\n${m.stack}` : ""}` : m;
      channel.error(redact(text));
      channel.show(true);
    },
    addSecret(secret) {
      secrets.add(secret);
      return new vscode.Disposable(() => secrets.delete(secret));
    },
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}
