/**
 * The .vsix allow-list: `vsce ls` (what `npm run package` would ship) holds the bundles, the Pyodide runtime files
 * and the webview media, and nothing else (no sources, no node_modules, no source maps, no tests).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

const repoRoot = path.resolve(__dirname, "../../..");
const vsce = path.join(repoRoot, "node_modules", ".bin", "vsce");
const built = existsSync(path.join(repoRoot, "dist", "extension.js"));

describe(".vscodeignore allow-list", { skip: built ? false : "dist/ not built (npm test builds it first)" }, () => {
  it("ships exactly the runtime files", () => {
    const r = spawnSync(vsce, ["ls", "--no-dependencies"], { cwd: repoRoot, encoding: "utf8", timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const files = r.stdout.split("\n").map((l) => l.trim()).filter(Boolean);
    for (const f of [
      "package.json", "README.md", "LICENSE", "dist/extension.js", "dist/sandbox-worker.js", "dist/webview/main.js", "media/report.css",
      "dist/pyodide/pyodide.js", "dist/pyodide/pyodide.asm.mjs", "dist/pyodide/pyodide.asm.wasm", "dist/pyodide/python_stdlib.zip", "dist/pyodide/pyodide-lock.json",
    ]) {
      assert.ok(files.includes(f), `missing ${f}`);
    }
    const unwanted = files.filter((f) => /^(src|test|node_modules|scripts|bench|\.vscode-test)\/|\.map$|\.ts$/.test(f));
    assert.deepEqual(unwanted, []);
  });
});
