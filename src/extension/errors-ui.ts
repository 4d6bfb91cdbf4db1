import * as vscode from "vscode";
import { ModelRequestError, SkillFollowingError } from "../core/errors.js";
import { COMMANDS } from "./command-ids.js";
import type { ExtensionLogger } from "./logger.js";

/** Turns the core's typed errors into notifications whose buttons fix the problem. */
const ACTIONS: Record<string, { label: string; run: () => Thenable<unknown> }> = {
  setApiKey: { label: "Set API Key", run: () => vscode.commands.executeCommand(COMMANDS.setApiKey.id) },
  openSettings: { label: "Open Settings", run: () => vscode.commands.executeCommand("workbench.action.openSettings", "skillFollowing") },
  pickTaskSet: { label: "Download Task Set…", run: () => vscode.commands.executeCommand(COMMANDS.downloadTaskSet.id) },
  showLog: { label: "Show Log", run: () => vscode.commands.executeCommand(COMMANDS.showLog.id) },
};

export async function showError(err: unknown, logger: ExtensionLogger): Promise<void> {
  const e = err instanceof Error ? err : new Error(String(err));
  logger.error(e);
  const opts = e instanceof SkillFollowingError ? { ...e.options } : {};
  // An endpoint that rejects the key is fixed by setting one, whatever layer classified it.
  if (e instanceof ModelRequestError && (e.status === 401 || e.status === 403) && !opts.action) opts.action = "setApiKey";
  const text = opts.hint ? `${e.message}. ${opts.hint}` : e.message;
  const buttons = [opts.action && opts.action !== "showLog" ? ACTIONS[opts.action] : undefined, ACTIONS.showLog].filter((b): b is { label: string; run: () => Thenable<unknown> } => !!b);
  if (opts.action === "openFile" && opts.file) {
    buttons.unshift({ label: "Open File", run: () => vscode.window.showTextDocument(vscode.Uri.file(opts.file!), opts.line ? { selection: new vscode.Range(opts.line - 1, 0, opts.line - 1, 0) } : {}) });
  }
  void vscode.window.showErrorMessage(text, ...buttons.map((b) => b.label)).then((pick) => buttons.find((b) => b.label === pick)?.run());
}

/** Says what is missing before a command can run, with the button that provides it. */
export async function needs(message: string, button: string, run: () => Thenable<unknown>): Promise<void> {
  // Not awaited: the command finishes now; the button works whenever the user gets to it.
  void vscode.window.showWarningMessage(message, button).then((pick) => (pick === button ? run() : undefined));
}
