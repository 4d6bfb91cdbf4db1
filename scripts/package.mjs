// Builds the .vsix a user installs: `npm run package` (or `node scripts/package.mjs [--out <file.vsix>] [--staging <dir>]`).
//
// What ships is what the top-level .vscodeignore allows (an allow-list; read with vsce's rules by vscodeignore.mjs):
// production bundles (minified, names kept), the Pyodide runtime, the webview media and icon, the built-in sample task
// sets, the example skills, the README with the images it links, and the LICENSE. Those files are put into a staging
// folder first (out/vsix-staging): the bundles from a production build, everything else copied from the repository,
// then anything the manifest does not allow is removed. vsce packages that folder with the same .vscodeignore.
// Building into the staging folder (not dist/) leaves a developer's dist/ and the tests running against it alone.
//
// The README's relative links are not rewritten to a repository URL (there is no public one to point at): they
// resolve inside the installed extension, which is where VS Code's extension page reads them from.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { relativeLinks } from "./readme-links.mjs";
import { allowed, filesUnder, readManifest } from "./vscodeignore.mjs";

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

/** Repository folders never read for the package (dependencies, build output, VCS, test caches). */
const NOT_SOURCES = new Set(["node_modules", ".git", "dist", "out", ".vscode-test", ".skill-following", "test-results"]);

if (!existsSync(path.join(root, ".vscodeignore"))) fail(".vscodeignore (the package manifest) is missing");
const manifest = readManifest(root);

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });

// 1. Production bundles (minified, keepNames) and the Pyodide runtime, into the staging folder's dist/.
run(process.execPath, [path.join(root, "esbuild.mjs"), "--production", "--outdir", path.join(staging, "dist")], root);

// 2. Every repository file the manifest allows (media, samples, example skills, README, its images, LICENSE).
for (const rel of filesUnder(root, NOT_SOURCES)) {
  if (!allowed(rel, manifest)) continue;
  mkdirSync(path.dirname(path.join(staging, rel)), { recursive: true });
  copyFileSync(path.join(root, rel), path.join(staging, rel));
}

// 3. Every image and document the README links must ship, or the extension page shows broken links.
const readme = readFileSync(path.join(root, "README.md"), "utf8");
for (const target of relativeLinks(readme)) {
  const rel = path.posix.normalize(target);
  if (rel.startsWith("..") || path.isAbsolute(rel)) fail(`README.md links outside the repository: ${target}`);
  if (!existsSync(path.join(root, rel))) fail(`README.md links to ${target}, which does not exist`);
  if (!allowed(rel, manifest)) fail(`README.md links to ${target}, which .vscodeignore does not allow: add !${rel}`);
}

// 4. The manifest without what only the repository uses (scripts, dev tools); vsce must not run npm here. Then drop
//    whatever the allow-list leaves out (source maps of the build), so the staged folder is exactly the package.
const pkgManifest = { ...pkg };
delete pkgManifest.scripts;
delete pkgManifest.devDependencies;
writeFileSync(path.join(staging, "package.json"), `${JSON.stringify(pkgManifest, null, 2)}\n`);
for (const rel of filesUnder(staging)) if (!allowed(rel, manifest)) rmSync(path.join(staging, rel));
copyFileSync(path.join(root, ".vscodeignore"), path.join(staging, ".vscodeignore"));

// 5. Package the folder as it is. vsce's own "Packaged: … (N files, X MB)" line is not passed on: its MB are MiB and
//    the summary below is the one this script prints, read back from the .vsix itself (entries and bytes).
const vsce = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
if (!existsSync(vsce)) fail("vsce is not installed (run npm ci)");
mkdirSync(path.dirname(outFile), { recursive: true });
const packed = spawnSync(vsce, ["package", "--no-dependencies", "--no-rewrite-relative-links", "--allow-missing-repository", "--out", outFile], { cwd: staging, encoding: "utf8" });
process.stderr.write(packed.stderr ?? "");
process.stdout.write((packed.stdout ?? "").split("\n").filter((l) => !/^\s*DONE\s+Packaged:/.test(l)).join("\n"));
if (packed.status !== 0) fail(`vsce package exited with ${packed.status ?? packed.signal}`);

/** The number of entries a zip file holds, from its end-of-central-directory record (the last 22+ bytes). */
function zipEntries(file) {
  const buf = readFileSync(file);
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) return buf.readUInt16LE(i + 10);
  }
  fail(`${file} is not a zip file (no end-of-central-directory record)`);
}

const bytes = statSync(outFile).size;
// One summary: every file inside the .vsix (vsce's manifest and content-types files included) and its size on disk.
console.log(`package: ${path.relative(process.cwd(), outFile) || outFile} (${zipEntries(outFile)} files, ${(bytes / 1e6).toFixed(2)} MB, ${bytes} bytes)`);
