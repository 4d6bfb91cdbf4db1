import { rmSync } from "node:fs";
import os from "node:os";
import { bwrapWorks, findBwrap } from "../agents/confine.js";
import { createWorkRoot, sweepOrphanedWorkRoots } from "../agents/workroot.js";
import { builtHarnesses, harnessAdapter } from "../agents/registry.js";
import { socketPathProblem } from "../agents/run.js";
import { HarnessError, type HarnessAdapter, type HarnessBinary, type HarnessConfinement, type HarnessId, type HarnessInfo, type HarnessSession } from "../agents/types.js";
import { InputError, ModelConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { RunSettings } from "../settings.js";

/** Wall-clock limit of one harness process: generous, a run is a few model calls and shell commands per turn. */
const HARNESS_TIMEOUT_MS_PER_TURN = 120_000;

/**
 * bubblewrap when it works here (`unavailable` undefined); otherwise unconfined only when the user allowed it, else
 * the run is refused, saying why.
 */
export function chooseConfinement(unavailable: string | undefined, allowUnconfined: boolean): HarnessConfinement {
  if (unavailable === undefined) return "bwrap";
  if (allowUnconfined) return "unconfined";
  throw new HarnessError(`A harness agent runs shell commands; here they cannot be confined (${unavailable}), so the run is refused.`, {
    hint: "Install bubblewrap (Linux), or allow unconfined harness runs knowingly: the agent's commands then run with your rights and network.",
    hintIds: ["agentUnconfined"],
  });
}

/**
 * The adapter and the installed binary of a harness agent, or a clear error naming the fix: an agent without an
 * adapter in this version, or a harness that is not installed (bad input: exit 2 in the CLI, before any model call).
 * The CLI calls it first, so a missing harness is reported before task downloads and model lookups.
 */
export async function locateHarness(agent: HarnessId, searchFolders?: readonly string[]): Promise<{ adapter: HarnessAdapter; binary: HarnessBinary }> {
  let adapter: HarnessAdapter;
  try {
    adapter = harnessAdapter(agent);
  } catch (err) {
    throw new InputError(err instanceof Error ? err.message : String(err), { hint: `Choose builtin or a harness this version runs (${builtHarnesses().join(", ")}).`, hintIds: ["agent"] });
  }
  try {
    return { adapter, binary: await adapter.locate(searchFolders?.length ? { from: searchFolders } : {}) };
  } catch (err) {
    if (!(err instanceof HarnessError)) throw err;
    throw new InputError(err.message, { hint: "Install the harness with npm in this project (or beside this program), or choose another agent.", hintIds: ["agent"], cause: err });
  }
}

/**
 * Everything a harness evaluation shares: the adapter, the installed binary (version and sha256 for the header and
 * the cache), the confinement (bubblewrap, or unconfined only when the user allowed it), and a private folder for
 * the runs' workspaces, removed by `dispose`.
 */
export async function prepareHarness(settings: RunSettings, batch: boolean, logger: Logger, searchFolders?: readonly string[]): Promise<{ info: HarnessInfo; session: Omit<HarnessSession, "fixedDate">; dispose(): void }> {
  if (settings.agent === "builtin") throw new Error("prepareHarness: the built-in loop has no harness");
  if (batch) {
    throw new ModelConfigError("A harness agent asks the model one turn at a time as it works; it cannot wait for batch rounds.", { hint: "Turn batch mode off, or use the built-in agent.", hintIds: ["batch", "agent"] });
  }
  const { adapter, binary } = await locateHarness(settings.agent, searchFolders);
  const bwrap = process.platform === "linux" ? findBwrap() : undefined;
  const confinement = chooseConfinement(bwrap === undefined ? "bubblewrap is not installed" : bwrapWorks(bwrap) ? undefined : "bubblewrap is installed but cannot create namespaces", settings.agentUnconfined);
  const confined = confinement === "bwrap";
  if (!confined) logger.warn(`the ${adapter.id} harness runs unconfined: its shell commands have your user's rights and network`);
  const info: HarnessInfo = {
    id: adapter.id,
    version: binary.version,
    package: binary.package,
    sha256: binary.sha256,
    wireFormat: adapter.wireFormat,
    skillsDir: adapter.skillsDir,
    confinement,
    settings: adapter.settings(),
  };
  // Folders of evaluations killed with SIGKILL (they could not clean up) go first; a running one's are kept.
  sweepOrphanedWorkRoots(os.tmpdir(), logger);
  const workRoot = createWorkRoot(adapter.id);
  // Refused before any run: a too-long socket path would make every confined run fail before its first model call.
  const problem = confined ? socketPathProblem(workRoot) : undefined;
  if (problem) {
    rmSync(workRoot, { recursive: true, force: true });
    throw new InputError(`${problem}: the temporary folder ${os.tmpdir()} is too deep for confined harness runs`, {
      hint: `Start the program with a shorter temporary folder (the TMPDIR environment variable, e.g. /tmp).`,
    });
  }
  return {
    info,
    session: { adapter, binary, confinement: info.confinement, workRoot, timeoutMs: HARNESS_TIMEOUT_MS_PER_TURN * settings.maxTurns, logger },
    dispose: () => rmSync(workRoot, { recursive: true, force: true }),
  };
}
