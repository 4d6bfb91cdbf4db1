import { stat } from "node:fs/promises";
import path from "node:path";
import { readAblationFile, siblingAblationFiles } from "../core/runs/ablation-store.js";
import { readRunFile } from "../core/runs/store.js";
import type { LoadedRun } from "./report-view-model.js";

/** Reads run files, re-reading only when a file changed (size or mtime), so reopening a report is cheap. */
export class RunFiles {
  private readonly cache = new Map<string, { key: string; run: LoadedRun }>();

  async load(file: string): Promise<LoadedRun> {
    const abs = path.resolve(file);
    const s = await stat(abs);
    // Section ablations beside the run file are part of its report: any change to them re-reads too.
    const siblings = siblingAblationFiles(abs);
    const sizes = await Promise.all(siblings.map(async (f) => `${f}:${(await stat(f)).size}:${(await stat(f)).mtimeMs}`));
    const key = [`${s.size}:${s.mtimeMs}`, ...sizes].join("|");
    const hit = this.cache.get(abs);
    if (hit && hit.key === key) return hit.run;
    const run: LoadedRun = { file: abs, ...(await readRunFile(abs)), ablations: await Promise.all(siblings.map((f) => readAblationFile(f))) };
    this.cache.set(abs, { key, run });
    return run;
  }

  forget(file: string): void {
    this.cache.delete(path.resolve(file));
  }
}
