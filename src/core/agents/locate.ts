import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The folder of an installed npm package: `node_modules/<name>` in `from` (default: the working folder) or any
 * folder above it, then beside this program (its own node_modules). Undefined when none has it.
 */
export function findPackageDir(name: string, from: string = process.cwd()): string | undefined {
  const starts = [from, path.dirname(process.argv[1] ?? from)];
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
