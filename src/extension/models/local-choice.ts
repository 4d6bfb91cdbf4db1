import { existsSync } from "node:fs";
import { DEFAULT_LOCAL_MODEL, LOCAL_PREFIX, megabytes } from "../../core/models/local/catalog.js";
import { modelPath } from "../../core/models/local/download.js";

/**
 * The model picker's local entry, without `vscode` (unit-tested): offered only where node-llama-cpp's binary loads,
 * and it says what choosing it costs, once.
 */
export interface LocalPickerEntry {
  label: string;
  description: string;
  detail: string;
  /** What the evaluation is then given as its model. */
  model: string;
}

export function localPickerEntry(runtimeOk: boolean, modelsDir: string): LocalPickerEntry | undefined {
  if (!runtimeOk) return undefined;
  const e = DEFAULT_LOCAL_MODEL;
  const downloaded = existsSync(modelPath(e, modelsDir));
  return {
    label: downloaded ? `$(vm) Local model (${e.title})` : `$(vm) Local model (downloads ${megabytes(e.bytes)} once)`,
    description: downloaded ? "downloaded · runs on this machine, no key" : `${e.title} · ${e.license} · runs on this machine, no key`,
    detail: downloaded ? modelPath(e, modelsDir) : `saved to ${modelsDir}`,
    model: `${LOCAL_PREFIX}${e.name}`,
  };
}
