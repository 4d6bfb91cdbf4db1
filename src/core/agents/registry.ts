import type { HarnessId } from "../../shared/vocabulary/index.js";
import { claudeCodeAdapter } from "./claude-code.js";
import { codexAdapter } from "./codex.js";
import { geminiAdapter } from "./gemini.js";
import { openCodeAdapter } from "./opencode.js";
import type { HarnessAdapter } from "./types.js";

/**
 * The harness adapters, by agent id: every id of the vocabulary has one (the type says so). A contributor adds a
 * harness by adding its id to the vocabulary, implementing HarnessAdapter (types.ts) and adding it here.
 */
const ADAPTERS: Record<HarnessId, () => HarnessAdapter> = {
  codex: codexAdapter,
  "claude-code": claudeCodeAdapter,
  opencode: openCodeAdapter,
  gemini: geminiAdapter,
};

export function harnessAdapter(id: HarnessId): HarnessAdapter {
  return ADAPTERS[id]();
}

/** The harness ids, in the order the pickers list them. */
export function builtHarnesses(): HarnessId[] {
  return Object.keys(ADAPTERS) as HarnessId[];
}
