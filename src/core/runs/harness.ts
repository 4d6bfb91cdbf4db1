import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findBwrap } from "../agents/confine.js";
import { harnessAdapter } from "../agents/registry.js";
import { HarnessError, type HarnessInfo, type HarnessSession } from "../agents/types.js";
import { InputError, ModelConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { RunSettings } from "../settings.js";

/** Wall-clock limit of one harness process: generous, a run is a few model calls and shell commands per turn. */
const HARNESS_TIMEOUT_MS_PER_TURN = 120_000;

/** Whether bubblewrap really starts a namespace here (user namespaces can be disabled even where it is installed). */
function bwrapWorks(bwrap: string): boolean {
  const r = spawnSync(bwrap, ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 15_000 });
  return r.status === 0;
}

/**
 * Everything a harness evaluation shares: the adapter, the installed binary (version and sha256 for the header and
 * the cache), the confinement (bubblewrap, or unconfined only when the user allowed it), and a private folder for
 * the runs' workspaces, removed by `dispose`.
 */
export async function prepareHarness(settings: RunSettings, batch: boolean, logger: Logger): Promise<{ info: HarnessInfo; session: Omit<HarnessSession, "fixedDate">; dispose(): void }> {
  if (settings.agent === "builtin") throw new Error("prepareHarness: the built-in loop has no harness");
  if (batch) {
    throw new ModelConfigError("A harness agent asks the model one turn at a time as it works; it cannot wait for batch rounds.", { hint: "Turn batch mode off, or use the built-in agent.", hintIds: ["batch", "agent"] });
  }
  let adapter;
  try {
    adapter = harnessAdapter(settings.agent);
  } catch (err) {
    throw new InputError(err instanceof Error ? err.message : String(err), { hintIds: ["agent"] });
  }
  const binary = await adapter.locate();
  const bwrap = process.platform === "linux" ? findBwrap() : undefined;
  const confined = bwrap !== undefined && bwrapWorks(bwrap);
  if (!confined && !settings.agentUnconfined) {
    throw new HarnessError(
      `A harness agent runs shell commands; here they cannot be confined (${bwrap ? "bubblewrap is installed but cannot create namespaces" : "bubblewrap is not installed"}), so the run is refused.`,
      { hint: "Install bubblewrap (Linux), or allow unconfined harness runs knowingly: the agent's commands then run with your rights and network.", hintIds: ["agentUnconfined"] },
    );
  }
  if (!confined) logger.warn(`the ${adapter.id} harness runs unconfined: its shell commands have your user's rights and network`);
  const info: HarnessInfo = {
    id: adapter.id,
    version: binary.version,
    package: binary.package,
    sha256: binary.sha256,
    wireFormat: adapter.wireFormat,
    skillsDir: adapter.skillsDir,
    confinement: confined ? "bwrap" : "unconfined",
    settings: adapter.settings(),
  };
  const workRoot = mkdtempSync(path.join(os.tmpdir(), `skill-following-${adapter.id}-`));
  return {
    info,
    session: { adapter, binary, confinement: info.confinement, workRoot, timeoutMs: HARNESS_TIMEOUT_MS_PER_TURN * settings.maxTurns, logger },
    dispose: () => rmSync(workRoot, { recursive: true, force: true }),
  };
}
