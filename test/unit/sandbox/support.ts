import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const repoRoot = path.resolve(__dirname, "../../..");
export const dataDir = path.resolve(repoRoot, "../shared/data");

/**
 * A private build of the sandbox (worker bundle + Pyodide files), so these tests neither depend on nor race
 * with other people's `npm run build` (which wipes dist/). It lives under <repo>/node_modules/.cache, i.e.
 * inside the repo, like the shipped dist/: `require('ws')` from there could find node_modules/ws, which is
 * exactly what the permission allow-list must prevent.
 */
/** One interpreter snapshot for every test pool (made once, checksummed), instead of one per pool. */
export const snapshotCache = path.join(repoRoot, "node_modules", ".cache", "sf-sandbox-snapshots");

export async function sandboxDist(): Promise<string> {
  const out = path.join(repoRoot, "node_modules", ".cache", "sf-sandbox-dist");
  const pyOut = path.join(out, "pyodide");
  mkdirSync(pyOut, { recursive: true });
  const pkgDir = path.join(repoRoot, "node_modules", "pyodide");
  for (const f of ["pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "package.json"]) {
    const dst = path.join(pyOut, f);
    if (!existsSync(dst) || statSync(dst).size !== statSync(path.join(pkgDir, f)).size) copyFileSync(path.join(pkgDir, f), dst);
  }
  await build({
    entryPoints: [path.join(repoRoot, "src/core/sandbox/worker-entry.ts")],
    outfile: path.join(out, "sandbox-worker.js"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "error",
  });
  return out;
}

export function readGzipLines(rel: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { gunzipSync } = require("node:zlib") as typeof import("node:zlib");
  return gunzipSync(readFileSync(path.join(dataDir, rel))).toString("utf8").split("\n").filter((l) => l.trim());
}
