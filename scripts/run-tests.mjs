// Finds the test files of each tier and hands them to node's own test runner (node --test).
// Tiers: unit (plain node, src/core), integration (inside code-server's extension host), e2e (Playwright).
// `npm test` runs every tier; `npm test -- unit` (or integration, e2e) runs one.
import { spawnSync } from "node:child_process";
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
const r = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", `--test-concurrency=${process.env.SF_TEST_CONCURRENCY ?? 2}`, ...files],
  { stdio: "inherit", cwd: root },
);
process.exit(r.status ?? 1);
