/**
 * src/core/stats holds only what the product computes: every function it exports ends up in a product bundle
 * (extension, CLI, webview), built here in memory with the build's own settings. Reference formulas that only tests
 * use live in test/support/stats-reference, outside the bundle.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { build } from "esbuild";

const repo = path.resolve(__dirname, "../../..");
const statsDir = path.join(repo, "src/core/stats");

it("every function src/core/stats exports is part of a product bundle", async () => {
  const node = await build({
    entryPoints: ["src/extension/extension.ts", "src/cli/main.ts"].map((e) => path.join(repo, e)),
    outdir: "/virtual",
    bundle: true,
    write: false,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode", "pyodide"],
    logLevel: "silent",
  });
  const web = await build({ entryPoints: [path.join(repo, "src/webview/main.ts")], outdir: "/virtual", bundle: true, write: false, platform: "browser", format: "iife", target: "es2022", logLevel: "silent" });
  const bundled = [...node.outputFiles, ...web.outputFiles].map((f) => f.text).join("\n");
  const unused: string[] = [];
  for (const file of readdirSync(statsDir).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(path.join(statsDir, file), "utf8");
    for (const m of text.matchAll(/^export (?:async )?(?:function|const|class) ([A-Za-z0-9_]+)/gm)) {
      // esbuild keeps names, with a numeric suffix when two modules' names collide.
      if (!new RegExp(`(?:function|var|const|let|class) ${m[1]}\\d*\\b`).test(bundled)) unused.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(unused, [], "not used by the product: move it to test/support/stats-reference (tests use it) or delete it");
});
