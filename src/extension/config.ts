import * as vscode from "vscode";
import { CONFIG_KEYS, CONFIG_SECTION, invalidKeys, parseConfig, type Config } from "./config-schema.js";
import type { ExtensionLogger } from "./logger.js";

/** The typed Config facade: one zod parse over `skillFollowing.*`, re-read when any of it changes. */
export interface ConfigFacade extends vscode.Disposable {
  get(): Config;
  /** Reads the settings again now (after this extension changed one, before the change event arrives). */
  reload(): Config;
  readonly onDidChange: vscode.Event<Config>;
}

export function createConfig(logger: ExtensionLogger): ConfigFacade {
  const emitter = new vscode.EventEmitter<Config>();
  const read = (): Config => {
    const section = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const raw: Record<string, unknown> = {};
    for (const key of CONFIG_KEYS) raw[key] = section.get(key);
    const bad = invalidKeys(raw);
    if (bad.length > 0) logger.warn(`ignoring invalid settings (defaults used): ${bad.map((k) => `${CONFIG_SECTION}.${k}`).join(", ")}`);
    return parseConfig(raw);
  };
  let current = read();
  const sub = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration(CONFIG_SECTION)) return;
    current = read();
    emitter.fire(current);
  });
  return {
    get: () => current,
    reload: () => (current = read()),
    onDidChange: emitter.event,
    dispose: () => {
      sub.dispose();
      emitter.dispose();
    },
  };
}
