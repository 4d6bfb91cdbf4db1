// Finds the test files of each tier and hands them to node's own test runner (node --test).
// Tiers: unit (plain node, src/core), integration (inside code-server's extension host), e2e (Playwright).
// `npm test` runs every tier; `npm test -- unit` (or integration, e2e) runs one.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync, existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const allTiers = ["unit", "integration", "e2e"];
const asked = process.argv.slice(2).filter((a) => allTiers.includes(a));
const tiers = asked.length ? asked : allTiers;

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

// The integration and e2e tiers drive a real VS Code (code-server) with Chromium: make sure both are there, so that
// `npm ci && npm test` works on a fresh machine (both steps are no-ops once installed).
if (tiers.some((t) => t !== "unit")) {
  for (const script of ["ensure-system-deps.sh", "install-code-server.sh"]) {
    const r = spawnSync("bash", [path.join(root, "scripts", script)], { stdio: "inherit", cwd: root });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

// Unit tests spawn the built CLI and sandbox worker too, so every run builds first (about a second).
{
  const b = spawnSync(process.execPath, [path.join(root, "esbuild.mjs")], { stdio: "inherit", cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

const files = tiers.flatMap((t) => find(path.join(root, "test", t)));
if (files.length === 0) {
  console.error(`no test files found for tiers: ${tiers.join(", ")}`);
  process.exit(1);
}

// The full canonical-solution sweeps keep both cores busy for minutes. Run beside other files, they starve the
// sandbox of tests whose verdicts rest on time limits, so they get a phase of their own, after the rest.
const SOLO = [/test\/unit\/grading\/python\/canonical\.test\.ts$/];
const isSolo = (f) => SOLO.some((re) => re.test(f));
const phases = [files.filter((f) => !isSolo(f)), files.filter(isSolo)].filter((p) => p.length > 0);

let status = 0;
const totals = { pass: 0, fail: 0 };
for (const phase of phases) {
  const r = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=spec", `--test-concurrency=${process.env.SF_TEST_CONCURRENCY ?? 2}`, ...phase],
      { stdio: ["ignore", "pipe", "inherit"], cwd: root },
    );
    // The summary ("ℹ pass N") comes before the list of failures, so read it line by line as it streams.
    const counts = { pass: 0, fail: 0 };
    let partial = "";
    child.stdout.on("data", (d) => {
      process.stdout.write(d);
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const m = /^ℹ (pass|fail) (\d+)$/.exec(line.trim());
        if (m) counts[m[1]] = Number(m[2]);
      }
    });
    child.on("close", (code) => resolve({ code, counts }));
  });
  for (const key of ["pass", "fail"]) totals[key] += r.counts[key];
  if (r.code !== 0) status = r.code ?? 1;
}
// One closing line for the whole run (each phase prints its own summary above).
console.log(`\ntests: ${totals.pass} passed, ${totals.fail} failed`);
process.exit(status);
