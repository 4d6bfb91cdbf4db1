import { existsSync } from "node:fs";
import { InputError, ModelConfigError } from "../core/errors.js";
import { modelsCacheDir } from "../core/layout.js";
import type { Logger } from "../core/logger.js";
import { assertRunWeights, localModelName, megabytes, parseLocalModel, runLocalModelName } from "../core/models/local/catalog.js";
import { createLocalClient, type LocalModelClient } from "../core/models/local/client.js";
import { ensureModel } from "../core/models/local/download.js";
import { ModelDigests } from "../core/models/local/file-digest.js";
import { checkGgufFile } from "../core/models/local/gguf-check.js";
import { localRuntimeStatus } from "../core/models/local/runtime.js";
import type { RunHeader } from "../core/runs/types.js";
import { progressBar } from "./progress.js";

/**
 * The CLI's local models: `local:<name>` is downloaded once (progress bar, resume, sha256 pin) into the models folder
 * ($SKILL_FOLLOWING_MODELS_DIR, else the user cache), from $SKILL_FOLLOWING_MODELS_MIRROR if set; `local:<file.gguf>`
 * runs that file. Nothing is downloaded where the runtime cannot load: an install without node-llama-cpp stops first.
 */
export interface OpenLocalOptions {
  logger: Logger;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

export async function openLocalModel(model: string, options: OpenLocalOptions): Promise<LocalModelClient> {
  const env = options.env ?? process.env;
  const { logger } = options;
  const ref = parseLocalModel(model);
  // Before anything loads, hashes or runs: a damaged or lying file is refused here, located, not at the first call.
  if (ref.kind === "file") {
    if (!existsSync(ref.file)) throw new InputError(`${ref.file}: no such model file`, { file: ref.file, hintIds: ["model"] });
    checkGgufFile(ref.file);
  }
  const runtime = await localRuntimeStatus();
  if (!runtime.ok) {
    throw new ModelConfigError(`${model} cannot run here: ${runtime.reason}`, {
      hint: "Local models need the project's dependencies installed (npm ci) on a platform with a node-llama-cpp binary; otherwise use a model served over HTTP.",
      hintIds: ["model", "baseUrl"],
    });
  }
  const dir = modelsCacheDir(env);
  const digests = new ModelDigests(dir, logger);
  let file: string;
  let digest: { sha256: string; bytes: number };
  if (ref.kind === "catalog") {
    const e = ref.entry;
    const bar = progressBar(`${e.title} (${megabytes(e.bytes)}, once)`);
    const mirror = env.SKILL_FOLLOWING_MODELS_MIRROR?.trim();
    try {
      const got = await ensureModel(e, { dir, digests, logger, ...(mirror ? { mirror } : {}), ...(options.signal ? { signal: options.signal } : {}), onProgress: (p) => bar.update(p) });
      file = got.file;
      digest = got;
    } finally {
      bar.done();
    }
  } else {
    file = ref.file;
    if (!existsSync(file)) throw new InputError(`${file}: no such model file`, { file, hintIds: ["model"] });
    digest = await digests.of(file);
  }
  const threads = Number(env.SKILL_FOLLOWING_LOCAL_THREADS);
  const client = createLocalClient({
    name: localModelName(ref),
    file,
    sha256: digest.sha256,
    bytes: digest.bytes,
    chatFormat: ref.kind === "catalog" ? ref.entry.chatFormat : "auto",
    logger,
    ...(Number.isInteger(threads) && threads > 0 ? { threads } : {}),
  });
  logger.info(`model ${client.weights.file} (sha256 ${digest.sha256.slice(0, 12)}…, ${megabytes(digest.bytes)}) runs in-process; it loads on the first uncached call`);
  return client;
}

/** The local model a run file was made with (ablation re-runs it): the same file, checked by sha256. */
export async function openRunLocalModel(model: RunHeader["model"], options: OpenLocalOptions): Promise<LocalModelClient> {
  const client = await openLocalModel(runLocalModelName(model), options);
  assertRunWeights(model, client.weights);
  return client;
}
