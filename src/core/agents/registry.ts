import type { HarnessId } from "../../shared/vocabulary/index.js";
import { claudeCodeAdapter } from "./claude-code.js";
import { codexAdapter } from "./codex.js";
import { geminiAdapter } from "./gemini.js";
import { HarnessError, type HarnessAdapter } from "./types.js";

/**
 * The harness adapters, by agent id. An id without an adapter yet is refused with a clear message. A contributor
 * adds a harness by implementing HarnessAdapter (types.ts) and adding it here.
 */
const ADAPTERS: Partial<Record<HarnessId, () => HarnessAdapter>> = {
  codex: codexAdapter,
  "claude-code": claudeCodeAdapter,
  gemini: geminiAdapter,
};

export function harnessAdapter(id: HarnessId): HarnessAdapter {
  const make = ADAPTERS[id];
  if (!make) {
    const built = Object.keys(ADAPTERS).join(", ");
    throw new HarnessError(`the agent '${id}' has no adapter in this version (harness agents available: ${built}); choose one of those or builtin`);
  }
  return make();
}

/** The harness ids that have an adapter. */
export function builtHarnesses(): HarnessId[] {
  return Object.keys(ADAPTERS) as HarnessId[];
}
