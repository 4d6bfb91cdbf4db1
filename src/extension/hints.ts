import type { HintId } from "../core/errors.js";
import { RUN_SETTING_KEYS, type RunSettingKey } from "../core/settings.js";
import { COMMANDS } from "./command-ids.js";
import { CONFIG_SECTION, RUN_SETTING_CONFIG_KEYS, type Config } from "./config-schema.js";

/**
 * How the editor shows a core error's hint ids (src/core/errors.ts): a setting the user can open, or a command
 * button. No `vscode` import, so a unit test checks every id against package.json, and that no text the editor
 * shows names a CLI flag.
 */
export type EditorHint =
  | { kind: "setting"; setting: string }
  | { kind: "command"; command: string; label: string }
  /** Nothing to click: the words say what to do. */
  | { kind: "text"; text: string };

const setting = (key: keyof Config): EditorHint => ({ kind: "setting", setting: `${CONFIG_SECTION}.${key}` });
const command = (key: keyof typeof COMMANDS): EditorHint => ({ kind: "command", command: COMMANDS[key].id, label: COMMANDS[key].title });

const INPUTS: Readonly<Record<Exclude<HintId, RunSettingKey>, EditorHint>> = {
  model: setting("model"),
  baseUrl: setting("baseUrl"),
  modelProvider: setting("modelProvider"),
  apiKey: command("setApiKey"),
  // The extension picks a fresh run file for every evaluation and resumes a cancelled one by itself.
  runFile: { kind: "text", text: "evaluate again to start a new run file" },
  resume: { kind: "text", text: "evaluating again with the same settings resumes the run" },
  taskSet: command("downloadTaskSet"),
  taskSetMirror: setting("taskSetMirror"),
  log: command("showLog"),
  modelsMirror: { kind: "text", text: "copy the .gguf file into the models folder, or start VS Code with SKILL_FOLLOWING_MODELS_MIRROR set" },
  // The editor never falls back to a local model by itself: it is one entry of the model picker.
  noLocal: { kind: "text", text: "pick another model" },
  // errors-ui adds an Open File button from the error's file and line.
  file: { kind: "text", text: "" },
};

export function editorHint(id: HintId): EditorHint {
  if ((RUN_SETTING_KEYS as readonly string[]).includes(id)) return setting(RUN_SETTING_CONFIG_KEYS[id as RunSettingKey]);
  return INPUTS[id as keyof typeof INPUTS];
}

/** The notification text: the message, the hint's words, then the settings to change (by their full id). */
export function editorErrorText(message: string, hint: string | undefined, ids: readonly HintId[] = []): string {
  const hints = ids.map(editorHint);
  const settings = hints.flatMap((h) => (h.kind === "setting" ? [h.setting] : []));
  const words = hints.flatMap((h) => (h.kind === "text" && h.text ? [h.text] : []));
  let text = hint ? `${message}. ${hint}` : message;
  if (words.length) text += ` (${words.join("; ")})`;
  if (settings.length) text += ` Setting${settings.length > 1 ? "s" : ""}: ${settings.join(", ")}.`;
  return text;
}
