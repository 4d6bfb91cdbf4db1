import os from "node:os";
import { ModelConfigError } from "../../errors.js";
import type { Logger } from "../../logger.js";

/**
 * node-llama-cpp, loaded only when a local model is really used: the package (and its native binary) is absent
 * from the packaged extension and may be absent from an install, and loading it costs time every other run would
 * pay for nothing. Only the prebuilt CPU binary is used: no GPU probing, never a build, never a download.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- false positive: the rule reads the import attributes as a value
export type NodeLlamaCpp = typeof import("node-llama-cpp", { with: { "resolution-mode": "import" } });
export type Llama = Awaited<ReturnType<NodeLlamaCpp["getLlama"]>>;

let module: Promise<NodeLlamaCpp> | undefined;
let shared: Promise<Llama> | undefined;

const RUNTIME_HINT = "Install the project's dependencies (npm ci) on a platform node-llama-cpp has a prebuilt binary for, or choose a model served over HTTP.";

/** The package itself; a clear configuration error when it is not installed. */
export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  module ??= import("node-llama-cpp").catch((error: unknown) => {
    module = undefined;
    throw new ModelConfigError(`Local models need the node-llama-cpp package, which this installation does not have (${error instanceof Error ? error.message.split("\n")[0] : String(error)}).`, {
      hint: RUNTIME_HINT,
      hintIds: ["model"],
      cause: error,
    });
  });
  return module;
}

/**
 * Threads for evaluation: all cores but one (the sandbox checks answers meanwhile), at most 4. llama.cpp's threads
 * spin while they wait for each other, so a thread without a free core costs far more than it brings: on a busy
 * two-core machine two threads generated 9 times slower than one (bench/local-model-speed.ts, --threads).
 */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/** The process's one llama.cpp backend (CPU), created on first use. */
export function sharedLlama(logger?: Logger): Promise<Llama> {
  shared ??= (async () => {
    const lib = await loadNodeLlamaCpp();
    try {
      return await lib.getLlama({
        gpu: false,
        build: "never",
        skipDownload: true,
        usePrebuiltBinaries: true,
        progressLogs: false,
        logLevel: lib.LlamaLogLevel.warn,
        logger: (level, message) => {
          const text = message.trimEnd();
          if (!text) return;
          if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.fatal) logger?.warn(`llama.cpp: ${text}`);
          else logger?.debug(`llama.cpp: ${text}`);
        },
      });
    } catch (error) {
      throw new ModelConfigError(`node-llama-cpp has no working prebuilt binary for ${process.platform}-${process.arch} here (${error instanceof Error ? error.message.split("\n")[0] : String(error)}).`, {
        hint: RUNTIME_HINT,
        hintIds: ["model"],
        cause: error,
      });
    }
  })().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

export type RuntimeStatus = { ok: true } | { ok: false; reason: string };

/**
 * Whether a local model could run here, without loading the backend: the package imports and its prebuilt binary
 * for this platform loads (node-llama-cpp's dry run). The model picker and the CLI fallback ask this before they
 * offer or download anything.
 */
export async function localRuntimeStatus(): Promise<RuntimeStatus> {
  try {
    const lib = await loadNodeLlamaCpp();
    await lib.getLlama({ gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true, progressLogs: false, dryRun: true });
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: (error instanceof Error ? error.message.split("\n")[0]! : String(error)).replace(/\.$/, "") };
  }
}
