import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { InputError, ModelConfigError } from "../../core/errors.js";
import { modelsCacheDir } from "../../core/layout.js";
import { localModelName, megabytes, parseLocalModel } from "../../core/models/local/catalog.js";
import { createLocalClient, type LocalModelClient } from "../../core/models/local/client.js";
import { ensureModel } from "../../core/models/local/download.js";
import { ModelDigests } from "../../core/models/local/file-digest.js";
import { checkGgufFile } from "../../core/models/local/gguf-check.js";
import { localRuntimeStatus, type RuntimeStatus } from "../../core/models/local/runtime.js";
import type { Services } from "../services.js";

/**
 * Local models in the editor: lazily loaded node-llama-cpp (the packaged .vsix ships none, so there the picker simply
 * has no local entry), a cancellable download notification with progress, and a client the evaluation frees when done.
 */
let status: Promise<RuntimeStatus> | undefined;

/** Whether local models can run in this extension host (asked once per session; a dry run, nothing is loaded). */
export function localRuntime(): Promise<RuntimeStatus> {
  status ??= localRuntimeStatus();
  return status;
}

export async function openLocalModelInEditor(svc: Services, modelName: string): Promise<LocalModelClient> {
  const ref = parseLocalModel(modelName, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  const runtime = await localRuntime();
  if (!runtime.ok) {
    throw new ModelConfigError(`Local models cannot run in this installation (${runtime.reason})`, {
      hint: "Choose a model served over HTTP or one of the editor's language models.",
      hintIds: ["model", "modelProvider"],
    });
  }
  const dir = modelsCacheDir();
  const digests = new ModelDigests(dir, svc.logger);
  let file: string;
  let digest: { sha256: string; bytes: number };
  if (ref.kind === "catalog") {
    const e = ref.entry;
    const got = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Downloading ${e.title} (${megabytes(e.bytes)}, once)`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        let shown = 0;
        try {
          const mirror = process.env.SKILL_FOLLOWING_MODELS_MIRROR?.trim();
          return await ensureModel(e, {
            dir,
            digests,
            logger: svc.logger,
            signal: controller.signal,
            ...(mirror ? { mirror } : {}),
            onProgress: (p) => {
              const pct = (100 * p.received) / p.total;
              if (pct - shown < 1 && p.received < p.total) return;
              progress.report({ increment: pct - shown, message: `${megabytes(p.received)} of ${megabytes(p.total)}` });
              shown = pct;
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
    file = got.file;
    digest = got;
  } else {
    file = ref.file;
    if (!existsSync(file)) throw new InputError(`${file}: no such model file`, { file, hintIds: ["model"] });
    checkGgufFile(file);
    digest = await digests.of(file);
  }
  return createLocalClient({
    name: localModelName(ref),
    file,
    sha256: digest.sha256,
    bytes: digest.bytes,
    chatFormat: ref.kind === "catalog" ? ref.entry.chatFormat : "auto",
    logger: svc.logger,
  });
}
