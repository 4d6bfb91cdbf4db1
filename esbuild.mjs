// One build script: extension host, CLI, sandbox worker, the action's comment step (all node/cjs) and the report
// webview (browser).
// Pyodide's runtime files are copied beside the bundle, never bundled (see docs in src/core/sandbox/README.md).
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync, rmSync, chmodSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");
const root = path.dirname(new URL(import.meta.url).pathname);
// `--outdir <dir>` builds somewhere else than dist/ (scripts/package.mjs builds the .vsix bundles into its staging
// folder, so tests running against dist/ meanwhile keep their files).
const outdirArg = process.argv.indexOf("--outdir");
const dist = outdirArg > 0 ? path.resolve(process.argv[outdirArg + 1]) : path.join(root, "dist");

const common = {
  bundle: true,
  // jsonc-parser's UMD build loads its parts with a require() esbuild cannot follow; its ESM build bundles whole.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  sourcemap: !production,
  minify: production,
  // Minified names would reach users: error classes name themselves (`this.name = new.target.name`) and the log
  // prints them ("DownloadError: …", not "Fr: …").
  keepNames: true,
  logLevel: "warning",
  legalComments: "none",
};

const nodeEntries = [
  { in: "src/extension/extension.ts", out: "extension" },
  { in: "src/cli/main.ts", out: "cli" },
  { in: "src/core/sandbox/worker-entry.ts", out: "sandbox-worker" },
  // The engine process the extension runs each evaluation in (src/core/runs/engine-protocol.ts).
  { in: "src/core/runs/engine-host-entry.ts", out: "engine-host" },
  // The GitHub Action's pull-request comment step (action.yml); not part of the .vsix.
  { in: "src/cli/pr-comment-main.ts", out: "pr-comment" },
].filter((e) => existsSync(path.join(root, e.in)));

function copyPyodide() {
  const pkgDir = path.dirname(require.resolve("pyodide/package.json"));
  const out = path.join(dist, "pyodide");
  mkdirSync(out, { recursive: true });
  // `ws` is deliberately not shipped: without it Python sockets fail ("Host is unreachable").
  for (const f of ["pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "package.json"]) {
    copyFileSync(path.join(pkgDir, f), path.join(out, f));
  }
}

/**
 * The JSON Schema of `evals/evals.json`, generated from its zod schema (src/core/tasks/evals-file.ts) so the editor's
 * completion and squiggles and the loader's errors come from one definition. package.json contributes it as
 * jsonValidation for `**\/evals/evals.json`.
 */
async function writeEvalsSchema() {
  const out = path.join(dist, "schemas");
  const tmp = path.join(out, "evals-schema.cjs");
  mkdirSync(out, { recursive: true });
  await esbuild.build({ ...common, sourcemap: false, entryPoints: [path.join(root, "src/core/tasks/evals-file.ts")], outfile: tmp, platform: "node", format: "cjs", logLevel: "warning" });
  const { evalsJsonSchema } = require(tmp);
  writeFileSync(path.join(out, "evals.schema.json"), `${JSON.stringify(evalsJsonSchema(), null, 2)}\n`);
  rmSync(tmp, { force: true });
}

async function main() {
  // Only a production build into its own folder (packaging) starts empty: a rebuild of dist/ overwrites in place, so
  // tests that are running against dist/ meanwhile do not lose their files.
  if (production && outdirArg > 0) rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  const builds = [
    esbuild.context({
      ...common,
      entryPoints: nodeEntries,
      outdir: dist,
      platform: "node",
      format: "cjs",
      target: "node20",
      // node-llama-cpp (local models) is imported lazily and never bundled: it carries a native binary, and a package
      // without it (the .vsix) must still load and simply not offer local models.
      external: ["vscode", "pyodide", "node-llama-cpp"],
    }),
  ];
  if (existsSync(path.join(root, "src/webview/main.ts"))) {
    builds.push(
      esbuild.context({
        ...common,
        entryPoints: [{ in: "src/webview/main.ts", out: "main" }],
        outdir: path.join(dist, "webview"),
        platform: "browser",
        format: "iife",
        target: "es2022",
      }),
    );
  }
  const contexts = await Promise.all(builds);
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
  } else {
    await Promise.all(contexts.map((c) => c.rebuild()));
    await Promise.all(contexts.map((c) => c.dispose()));
  }
  copyPyodide();
  await writeEvalsSchema();
  if (existsSync(path.join(dist, "cli.js"))) chmodSync(path.join(dist, "cli.js"), 0o755);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
