// Finds the test files of each tier and hands them to node's own test runner (node --test).
// Tiers: unit (plain node, src/core), integration (inside code-server's extension host), e2e (Playwright).
// `npm test` runs every tier; `npm test -- unit` (or integration, e2e) runs one.
//
// Prerequisites (scripts/test-prerequisites.mjs): under CI=true a tier whose prerequisite is missing fails the run
// at once and names it; elsewhere its tests skip, and the summary counts and names them. Nothing is installed unless
// SF_INSTALL_DEPS=1 asks for it (.ci/run installs everything itself and sets CI=true).
// Counts come from a node:test reporter (scripts/test-counts.mjs), never from the text of the spec output.
// Knobs for the runner's own test (test/unit/runner): SF_TEST_ROOT (where the tier folders are; default test/) and
// SF_TEST_BUILD=0 (skip the build).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeMissing, fileRequirements, missingFileRequirements, missingPrerequisites } from "./test-prerequisites.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const testRoot = process.env.SF_TEST_ROOT ? path.resolve(process.env.SF_TEST_ROOT) : path.join(root, "test");
const allTiers = ["unit", "integration", "e2e"];
const asked = process.argv.slice(2).filter((a) => allTiers.includes(a));
const tiers = asked.length ? asked : allTiers;
const ci = process.env.CI === "true";

function find(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (/\.test\.(ts|mts|mjs)$/.test(name)) out.push(p);
  }
  return out.sort();
}

const machine = () => ({ root, env: process.env, platform: process.platform, exists: existsSync });

// Installing system packages and code-server is the developer's call: only when asked, never as a side effect.
if (process.env.SF_INSTALL_DEPS === "1" && missingPrerequisites(tiers, machine()).length > 0) {
  const scripts = ["ensure-system-deps.sh", ...(tiers.some((t) => t !== "unit") ? ["install-code-server.sh"] : [])];
  for (const script of scripts) {
    const r = spawnSync("bash", [path.join(root, "scripts", script)], { stdio: "inherit", cwd: root });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

const missing = missingPrerequisites(tiers, machine());
if (missing.length > 0 && ci) {
  for (const m of missing) console.error(`missing prerequisite: ${describeMissing(m)}`);
  console.error("CI=true: a tier that cannot run fails the run instead of skipping.");
  process.exit(1);
}
for (const m of missing) console.log(`note: ${describeMissing(m)}; its tests skip (under CI=true this fails the run)`);

const found = tiers.flatMap((t) => find(path.join(testRoot, t)));
if (found.length === 0) {
  console.error(`no test files found for tiers: ${tiers.join(", ")}`);
  process.exit(1);
}

// A file that declares a requirement (`// test-requires: shared-data`) the machine lacks does not run: under CI=true
// the run fails at once and names the file and the requirement; elsewhere the file is skipped and named.
// The tree is the one whose test/ folder runs (SF_TEST_ROOT's parent for the runner's own test; else the repository).
const lacking = missingFileRequirements({ ...machine(), root: path.dirname(testRoot) });
const unmet = found.map((f) => ({ f, needs: fileRequirements(readFileSync(f, "utf8")).filter((n) => lacking[n]) })).filter((u) => u.needs.length > 0);
if (unmet.length > 0 && ci) {
  for (const { f, needs } of unmet) for (const n of needs) console.error(`missing prerequisite: ${path.relative(root, f)} needs ${lacking[n].what} (${lacking[n].hint})`);
  console.error("CI=true: a test file that cannot run fails the run instead of skipping.");
  process.exit(1);
}
for (const n of new Set(unmet.flatMap((u) => u.needs))) console.log(`note: ${lacking[n].what}; ${unmet.filter((u) => u.needs.includes(n)).length} test files that need it skip (under CI=true this fails the run)`);

// Unit tests spawn the built CLI and sandbox worker too, so every run builds first (about a second).
if (process.env.SF_TEST_BUILD !== "0") {
  const b = spawnSync(process.execPath, [path.join(root, "esbuild.mjs")], { stdio: "inherit", cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

const files = found.filter((f) => !unmet.some((u) => u.f === f));

// The full canonical-solution sweeps keep both cores busy for minutes. Run beside other files, they starve the
// sandbox of tests whose verdicts rest on time limits, so they get a phase of their own, after the rest.
const SOLO = [/test\/unit\/grading\/python\/canonical\.test\.ts$/];
const isSolo = (f) => SOLO.some((re) => re.test(f));
// Measurements of responsiveness (the extension host's event-loop delay during an evaluation) run last, by
// themselves: beside other test files, their disk and process churn lands in the very delay being measured (the
// run-queue wait is subtracted, waits on a busy disk cannot be).
const ALONE = [/test\/integration\/event-loop\.test\.ts$/];
const isAlone = (f) => ALONE.some((re) => re.test(f));
const phases = [files.filter((f) => !isSolo(f) && !isAlone(f)), files.filter(isSolo), files.filter(isAlone)].filter((p) => p.length > 0);

const reporter = path.join(root, "scripts", "test-counts.mjs");
const countsDir = mkdtempSync(path.join(os.tmpdir(), "sf-test-counts-"));
let status = 0;
const totals = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, skippedSuites: [], failures: [], fileMs: {} };
// A file left out for a missing requirement counts as one skipped suite, named with the reason.
for (const { f, needs } of unmet) {
  totals.skipped++;
  totals.skippedSuites.push({ file: f, name: "(whole file)", reason: needs.map((n) => lacking[n].what).join("; ") });
}
for (const [i, phase] of phases.entries()) {
  const countsFile = path.join(countsDir, `phase-${i}.json`);
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--test",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        `--test-reporter=${reporter}`,
        `--test-reporter-destination=${countsFile}`,
        `--test-concurrency=${process.env.SF_TEST_CONCURRENCY ?? 2}`,
        ...phase,
      ],
      { stdio: ["ignore", "inherit", "inherit"], cwd: root },
    );
    child.on("close", (c) => resolve(c));
  });
  if (code !== 0) status = code ?? 1;
  let counts;
  try {
    counts = JSON.parse(readFileSync(countsFile, "utf8"));
  } catch (e) {
    console.error(`the test-count reporter wrote nothing readable (${e.message}); the phase is counted as failed`);
    status ||= 1;
    continue;
  }
  for (const key of ["passed", "failed", "cancelled", "skipped", "todo"]) totals[key] += counts[key];
  totals.skippedSuites.push(...counts.skippedSuites);
  totals.failures.push(...counts.failures);
  Object.assign(totals.fileMs, counts.fileMs);
}
rmSync(countsDir, { recursive: true, force: true });

const rel = (f) => path.relative(root, f);
const slowest = Object.entries(totals.fileMs).sort((a, b) => b[1] - a[1]).slice(0, 12);
if (slowest.length > 1) {
  console.log("\nslowest files (summed time of their top-level tests):");
  for (const [f, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${rel(f)}`);
}
if (totals.skippedSuites.length > 0) {
  console.log(`\nskipped (${totals.skippedSuites.length} suites or top-level tests):`);
  for (const s of totals.skippedSuites) console.log(`  ${rel(s.file)}: ${s.name}${s.reason ? ` — ${s.reason}` : ""}`);
}
if (totals.failures.length > 0) {
  console.log(`\nfailed:`);
  for (const f of totals.failures) console.log(`  ${rel(f.file)}: ${f.name}`);
}
// One closing line for the whole run (each phase prints its own summary above).
const extra = [totals.cancelled ? `${totals.cancelled} cancelled` : "", totals.todo ? `${totals.todo} todo` : ""].filter((s) => s !== "");
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${extra.length ? `, ${extra.join(", ")}` : ""}`);
if (status === 0 && totals.failed > 0) status = 1;
process.exit(status);
