// The package manifest: the top-level .vscodeignore, an allow-list (`**`, then one `!` line per path that ships),
// read with vsce's own rules so that what scripts/package.mjs stages and what vsce packages are the same set.
//
// vsce's rules (@vscode/vsce out/package.js collectFiles): blank lines and `#` comments are skipped; a pattern without
// a `*` in its last segment also stands for everything under it (`x` adds `x/**`); a file ships when no plain pattern
// matches it, or when any `!` pattern does (a `!` line wins whatever its position); matching is minimatch with
// `dot: true`, on `/`-separated paths relative to the package root. minimatch is loaded from vsce's own dependencies.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const { minimatch } = createRequire(require.resolve("@vscode/vsce/package.json"))("minimatch");
const OPTIONS = { dot: true };

/** The patterns of a .vscodeignore text, with the folder expansion vsce applies. */
export function parseManifest(text) {
  const lines = text
    .split(/[\n\r]/)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("#"));
  const all = [...lines, ...lines.filter((i) => !/(^|\/)[^/]*\*[^/]*$/.test(i)).map((i) => (i.endsWith("/") ? `${i}**` : `${i}/**`))];
  return { ignore: all.filter((p) => !p.startsWith("!")), allow: all.filter((p) => p.startsWith("!")).map((p) => p.slice(1)) };
}

export function readManifest(root) {
  return parseManifest(readFileSync(path.join(root, ".vscodeignore"), "utf8"));
}

/** Whether a package-relative, `/`-separated path ships under the manifest. */
export function allowed(rel, manifest) {
  return !manifest.ignore.some((p) => minimatch(rel, p, OPTIONS)) || manifest.allow.some((p) => minimatch(rel, p, OPTIONS));
}

/** Every file under `dir` (relative, `/`-separated; symbolic links are not followed), skipping the top-level folders named in `skip`. */
export function filesUnder(dir, skip = new Set()) {
  const out = [];
  const walk = (rel) => {
    for (const ent of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.isDirectory()) {
        if (!skip.has(r)) walk(r);
      } else if (ent.isFile()) out.push(r);
    }
  };
  walk("");
  return out.sort();
}
