import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The folder of an installed npm package: `node_modules/<name>` in `from` (default: the working folder; several
 * folders are tried in order) or any folder above it, then beside this program (its own node_modules). Undefined
 * when none has it.
 */
export function findPackageDir(name: string, from: string | readonly string[] = process.cwd()): string | undefined {
  const first = typeof from === "string" ? [from] : from;
  const starts = [...first, path.dirname(process.argv[1] ?? process.cwd())];
  for (const start of starts) {
    let dir = path.resolve(start);
    for (;;) {
      const candidate = path.join(dir, "node_modules", name);
      if (existsSync(path.join(candidate, "package.json"))) return candidate;
      // A platform package sits beside its parent package (`node_modules/@openai/codex-linux-x64`).
      if (path.basename(path.dirname(dir)) === "node_modules" || path.basename(dir) === "node_modules") {
        const sibling = path.join(dir.endsWith("node_modules") ? dir : path.dirname(dir), name);
        if (existsSync(path.join(sibling, "package.json"))) return sibling;
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return undefined;
}

/**
 * The folder of npm package `name` whose command `command` is on PATH (a global install: the command is a link into
 * the package, e.g. `…/lib/node_modules/@openai/codex/bin/codex.js`). Undefined when PATH has no such command.
 */
export function findPackageOnPath(name: string, command: string, pathVariable: string = process.env.PATH ?? ""): string | undefined {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) continue;
    let real: string;
    try {
      real = realpathSync(path.join(dir, command));
    } catch {
      continue;
    }
    let up = path.dirname(real);
    for (let i = 0; i < 6; i++) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(up, "package.json"), "utf8")) as { name?: unknown };
        if (pkg.name === name) return up;
      } catch {
        // no package.json here
      }
      const parent = path.dirname(up);
      if (parent === up) break;
      up = parent;
    }
  }
  return undefined;
}

/** Where a harness package is looked for: under these folders (then beside this program), then its command on PATH. */
export function findHarnessPackage(name: string, command: string, from?: readonly string[]): string | undefined {
  return findPackageDir(name, from && from.length ? from : process.cwd()) ?? findPackageOnPath(name, command);
}

/** Hashes already computed in this process, by path and the file's identity (a changed file is hashed again). */
const hashed = new Map<string, Promise<string>>();

/**
 * sha256 (hex) of a file's bytes, streamed (a harness binary is hundreds of MB). Computed once per process for an
 * unchanged file (same device, inode, size and modification time): the CLI locates the harness before it resolves
 * the model, and the evaluation locates it again.
 */
export function sha256File(file: string): Promise<string> {
  let identity: string;
  try {
    const st = statSync(file);
    identity = `${file}\u0000${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return hashFile(file);
  }
  let p = hashed.get(identity);
  if (!p) {
    p = hashFile(file);
    hashed.set(identity, p);
    p.catch(() => hashed.delete(identity));
  }
  return p;
}

function hashFile(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}
