import * as vscode from "vscode";
import { CancelledError, ModelRequestError, SkillFollowingError } from "../core/errors.js";
import { COMMANDS } from "./command-ids.js";
import { editorErrorText, editorHint, type EditorHint } from "./hints.js";
import type { ExtensionLogger } from "./logger.js";

type Button = { label: string; run: () => Thenable<unknown> };

/** The buttons a hint id offers: open the setting, or run the command that fixes it. */
function buttonFor(hint: EditorHint): Button | undefined {
  if (hint.kind === "setting") return { label: "Open Setting", run: () => vscode.commands.executeCommand("workbench.action.openSettings", hint.setting) };
  if (hint.kind === "command") return { label: hint.label, run: () => vscode.commands.executeCommand(hint.command) };
  return undefined;
}

/** Turns the core's typed errors into notifications whose text names settings and commands, and whose buttons fix the problem. */
export async function showError(err: unknown, logger: ExtensionLogger): Promise<void> {
  // The user cancelled (a download, say): say what was kept, not that something failed.
  if (err instanceof CancelledError) {
    logger.info(err.message);
    void vscode.window.showInformationMessage(err.message.charAt(0).toUpperCase() + err.message.slice(1));
    return;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  logger.error(e);
  const opts = e instanceof SkillFollowingError ? e.options : {};
  let ids = [...(opts.hintIds ?? [])];
  // An endpoint that rejects the key is fixed by setting one, whatever layer classified it.
  if (e instanceof ModelRequestError && (e.status === 401 || e.status === 403) && !ids.includes("apiKey")) ids = ["apiKey", ...ids];
  const text = editorErrorText(e.message, opts.hint, ids);
  const buttons: Button[] = [];
  if (ids.includes("file") && opts.file) {
    const file = opts.file;
    buttons.push({ label: "Open File", run: () => vscode.window.showTextDocument(vscode.Uri.file(file), opts.line ? { selection: new vscode.Range(opts.line - 1, 0, opts.line - 1, 0) } : {}) });
  }
  for (const id of ids) {
    const b = buttonFor(editorHint(id));
    // One "Open Setting" is enough: it opens the first setting the text names.
    if (b && !buttons.some((x) => x.label === b.label)) buttons.push(b);
  }
  if (!buttons.some((b) => b.label === COMMANDS.showLog.title)) buttons.push({ label: COMMANDS.showLog.title, run: () => vscode.commands.executeCommand(COMMANDS.showLog.id) });
  void vscode.window.showErrorMessage(text, ...buttons.map((b) => b.label)).then((pick) => buttons.find((b) => b.label === pick)?.run());
}

/** Says what is missing before a command can run, with the button that provides it. */
export async function needs(message: string, button: string, run: () => Thenable<unknown>): Promise<void> {
  // Not awaited: the command finishes now; the button works whenever the user gets to it.
  void vscode.window.showWarningMessage(message, button).then((pick) => (pick === button ? run() : undefined));
}
