// What each test tier needs from the machine, for scripts/run-tests.mjs. Pure: the environment, the platform and a
// file-exists check come in as arguments, so test/unit/runner/run-tests.test.ts can ask about any machine.
// The paths are the ones the tiers use (test/integration/support/code-server.ts): keep the two in step.
import path from "node:path";

/**
 * The prerequisites a tier lacks, each { tier, what, hint }. unit: bubblewrap on Linux (the sandbox's strongest
 * confinement; the hostile suite requires it under CI) and /usr/bin/python3 (the CPython runtime's tests).
 * integration and e2e: code-server and Chromium.
 */
export function missingPrerequisites(tiers, { root, env, platform, exists }) {
  const out = [];
  const codeServer = path.join(env.SF_CODE_SERVER_DIR ?? path.join(root, ".vscode-test", "code-server"), "node_modules", ".bin", "code-server");
  const chromium = env.SF_CHROMIUM ?? "/usr/bin/chromium";
  const bwrapDirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
  for (const tier of tiers) {
    if (tier === "unit" && platform === "linux" && !bwrapDirs.some((d) => exists(path.join(d, "bwrap")))) {
      out.push({ tier, what: "bubblewrap (bwrap) not on PATH", hint: "apt-get install bubblewrap, or SF_INSTALL_DEPS=1 npm test" });
    }
    if (tier === "unit" && platform === "linux" && !exists(env.SF_SANDBOX_PYTHON ?? "/usr/bin/python3")) {
      out.push({ tier, what: "CPython not found at /usr/bin/python3 (the CPython sandbox runtime's tests)", hint: "apt-get install python3, set SF_SANDBOX_PYTHON, or SF_INSTALL_DEPS=1 npm test" });
    }
    if (tier === "integration" || tier === "e2e") {
      if (!exists(codeServer)) out.push({ tier, what: `code-server not installed at ${codeServer}`, hint: "bash scripts/install-code-server.sh, or SF_INSTALL_DEPS=1 npm test" });
      if (!exists(chromium)) out.push({ tier, what: `Chromium not found at ${chromium}`, hint: "apt-get install chromium, or set SF_CHROMIUM" });
    }
  }
  return out;
}

/**
 * What one test file needs beyond its tier, declared in its own text by a line `// test-requires: <name>`. Known
 * names: "shared-data" (../shared/data beside the repository: the public task sets, model solutions and golden
 * values, which are never copied into the repository).
 */
export function fileRequirements(text) {
  return [...text.matchAll(/^\/\/ test-requires: ([\w-]+)\s*$/gm)].map((m) => m[1]);
}

/** Where the tests read ../shared/data from (beside the repository, as every test file spells it). */
export function sharedDataDir(root) {
  return path.resolve(root, "..", "shared", "data");
}

/** The file-level requirements that a machine lacks, each { what, hint }, by name. */
export function missingFileRequirements({ root, exists }) {
  const dir = sharedDataDir(root);
  return exists(path.join(dir, "stats-golden.json")) ? {} : { "shared-data": { what: `${dir} not found (the public task sets, model solutions and golden values)`, hint: "put the project's shared/ folder beside the repository" } };
}

/** The message for one missing prerequisite. */
export function describeMissing(m) {
  return `${m.tier} tier: ${m.what} (${m.hint})`;
}
