// Builds the .vsix a user installs: `npm run package` (or `node scripts/package.mjs [--out <file.vsix>] [--staging <dir>]`).
//
// Everything that ships is put into a staging folder first (out/vsix-staging), so the package holds exactly what
// the extension needs and nothing of the repository: production bundles (minified, names kept), the Pyodide runtime,
// the webview media and icon, the built-in sample task sets, the example skills, the README with every image and
// document it links, and the LICENSE. vsce then packages that folder as it is. Building into the staging folder
// (not dist/) leaves a developer's dist/ and the tests running against it alone.
//
// The README's relative links are not rewritten to a repository URL (there is no public one to point at): they
// resolve inside the installed extension, which is where VS Code's extension page reads them from.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { relativeLinks } from "./readme-links.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const outArg = process.argv.indexOf("--out");
const outFile = path.resolve(outArg > 0 ? process.argv[outArg + 1] : path.join(root, `${pkg.name}-${pkg.version}.vsix`));
// `--staging <dir>`: another staging folder (tests package into a temporary one, beside a developer's own).
const stagingArg = process.argv.indexOf("--staging");
const staging = path.resolve(stagingArg > 0 ? process.argv[stagingArg + 1] : path.join(root, "out", "vsix-staging"));

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit" });
  if (r.status !== 0) fail(`${path.basename(cmd)} ${args.join(" ")} exited with ${r.status ?? r.signal}`);
}

function copy(rel) {
  const from = path.join(root, rel);
  if (!existsSync(from)) fail(`${rel} is missing`);
  cpSync(from, path.join(staging, rel), { recursive: true });
}

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });

// 1. Production bundles (minified, keepNames) and the Pyodide runtime, into the staging folder's dist/.
run(process.execPath, [path.join(root, "esbuild.mjs"), "--production", "--outdir", path.join(staging, "dist")], root);
for (const f of readdirSync(path.join(staging, "dist"), { recursive: true })) {
  if (String(f).endsWith(".map")) rmSync(path.join(staging, "dist", String(f)));
}

// 2. What the extension reads at run time: webview styles, walkthrough pages and icon; the built-in task sets; the
//    example skills Try the Example copies.
copy("media");
copy("skills");
mkdirSync(path.join(staging, "samples"), { recursive: true });
for (const f of readdirSync(path.join(root, "samples"))) {
  if (f.endsWith(".jsonl") || f === "README.md") copy(path.join("samples", f));
}
copy("LICENSE");

// 3. The README and everything it links to (images, docs), so every link resolves on the extension page.
const readme = readFileSync(path.join(root, "README.md"), "utf8");
copy("README.md");
for (const target of relativeLinks(readme)) {
  const rel = path.normalize(target);
  if (rel.startsWith("..") || path.isAbsolute(rel)) fail(`README.md links outside the repository: ${target}`);
  if (!existsSync(path.join(root, rel))) fail(`README.md links to ${target}, which does not exist`);
  if (!existsSync(path.join(staging, rel))) copy(rel);
}

// 4. The manifest without what only the repository uses (scripts, dev tools); vsce must not run npm here.
const manifest = { ...pkg };
delete manifest.scripts;
delete manifest.devDependencies;
writeFileSync(path.join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(path.join(staging, ".vscodeignore"), "**/*.map\n");

// 5. Package the folder as it is.
const vsce = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
if (!existsSync(vsce)) fail("vsce is not installed (run npm ci)");
mkdirSync(path.dirname(outFile), { recursive: true });
run(vsce, ["package", "--no-dependencies", "--no-rewrite-relative-links", "--allow-missing-repository", "--out", outFile], staging);

const files = readdirSync(staging, { recursive: true }).filter((f) => statSync(path.join(staging, String(f))).isFile()).length;
console.log(`package: ${path.relative(process.cwd(), outFile) || outFile} (${files} files, ${(statSync(outFile).size / 1e6).toFixed(2)} MB)`);
