import * as vscode from "vscode";
import { API_KEY_SECRET } from "./command-ids.js";
import type { ExtensionLogger } from "./logger.js";

/**
 * The API key lives in SecretStorage only (never settings, logs, run files or the cache). SecretStorage's
 * onDidChange fires in every window, so a key set in one window is seen by all. The environment
 * (SKILL_FOLLOWING_API_KEY, then OPENAI_API_KEY) is the fallback, as in the CLI.
 */
export interface Secrets extends vscode.Disposable {
  getApiKey(): Promise<{ key: string; source: "secret-storage" | "environment" } | undefined>;
  setApiKey(key: string): Promise<void>;
  deleteApiKey(): Promise<void>;
  readonly onDidChangeApiKey: vscode.Event<void>;
}

export function createSecrets(storage: vscode.SecretStorage, logger: ExtensionLogger): Secrets {
  const emitter = new vscode.EventEmitter<void>();
  const redactions = new Map<string, vscode.Disposable>();
  const remember = (key: string) => {
    if (!redactions.has(key)) redactions.set(key, logger.addSecret(key));
  };
  const sub = storage.onDidChange((e) => {
    if (e.key !== API_KEY_SECRET) return;
    logger.info("API key changed (possibly in another window)");
    emitter.fire();
  });
  return {
    async getApiKey() {
      const stored = await storage.get(API_KEY_SECRET);
      if (stored) {
        remember(stored);
        return { key: stored, source: "secret-storage" };
      }
      const env = process.env.SKILL_FOLLOWING_API_KEY || process.env.OPENAI_API_KEY;
      if (env) {
        remember(env);
        return { key: env, source: "environment" };
      }
      return undefined;
    },
    async setApiKey(key) {
      remember(key);
      await storage.store(API_KEY_SECRET, key);
    },
    async deleteApiKey() {
      await storage.delete(API_KEY_SECRET);
    },
    onDidChangeApiKey: emitter.event,
    dispose: () => {
      sub.dispose();
      emitter.dispose();
      for (const d of redactions.values()) d.dispose();
    },
  };
}
