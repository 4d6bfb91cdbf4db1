/**
 * The files a skill keeps beside its SKILL.md (`references/`, `scripts/`, `assets/`), which its body links to
 * (progressive disclosure), and the one way the agent reads them: `read_skill_file(skill, path)`. A read returns
 * UTF-8 text from that skill's folder under a size cap. It refuses absolute paths, `..`, symbolic links that lead
 * out of the folder, the skill's `evals/` (its test answers), binary files and files over the cap.
 */
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** A read returns at most this many bytes; a larger file is refused with its size. */
export const MAX_SKILL_FILE_READ_BYTES = 64 * 1024;
/** At most this many files are listed per skill (a skill folder is small; a huge one is cut, not walked whole). */
export const MAX_LISTED_FILES = 100;
const MAX_DEPTH = 6;
const SKIPPED = new Set([".git", "node_modules", "__pycache__"]);

export interface SkillFile {
  /** Relative to the skill folder, with forward slashes. */
  path: string;
  bytes: number;
}

/** Whether `real` is `root` or under it (both real paths). */
function within(root: string, real: string): boolean {
  const r = path.relative(root, real);
  return r === "" || (!r.startsWith("..") && !path.isAbsolute(r));
}

function realRoot(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}

/** The readable files of a skill folder, sorted; none when the folder does not exist. */
export function listSkillFiles(dir: string): SkillFile[] {
  const root = realRoot(dir);
  if (!root) return [];
  const out: SkillFile[] = [];
  const walk = (abs: string, rel: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= MAX_LISTED_FILES) return;
      if (name.startsWith(".") || SKIPPED.has(name)) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      if (refusedPath(relPath)) continue;
      const full = path.join(abs, name);
      let st;
      try {
        st = lstatSync(full);
        if (st.isSymbolicLink()) {
          if (!within(root, realpathSync(full))) continue;
          st = statSync(full);
        }
      } catch {
        continue;
      }
      if (st.isDirectory() && depth < MAX_DEPTH) walk(full, relPath, depth + 1);
      else if (st.isFile()) out.push({ path: relPath, bytes: st.size });
    }
  };
  walk(root, "", 0);
  return out;
}

/** Why a path is refused before the disk is touched (absolute, `..`, SKILL.md, evals/), or undefined. */
export function refusedPath(rel: string): string | undefined {
  if (rel.trim() === "") return "the path is empty";
  if (path.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel) || rel.startsWith("\\")) return "absolute paths are refused; give a path relative to the skill folder";
  const parts = rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return "paths with .. are refused; only files inside the skill folder can be read";
  if (rel.includes("\u0000")) return "the path holds a NUL character";
  if (parts.length === 1 && parts[0] === "SKILL.md") return "SKILL.md is read with load_skill";
  if (parts[0] === "evals") return "a skill's evals/ folder is not readable";
  return undefined;
}

/** Reads one file of a skill folder for the agent, or says why not. */
export function readSkillFolderFile(dir: string, rel: string): { text: string; path: string } | { error: string } {
  const refused = refusedPath(rel);
  if (refused) return { error: refused };
  const root = realRoot(dir);
  if (!root) return { error: "the skill folder is not readable" };
  const normal = rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".").join("/");
  let real: string;
  try {
    real = realpathSync(path.join(root, normal));
  } catch {
    return { error: `no file ${normal} in this skill` };
  }
  if (!within(root, real)) return { error: `${normal} leads outside the skill folder (a symbolic link); refused` };
  let fd: number;
  try {
    // Before open: opening a FIFO blocks, and a device never ends.
    if (!statSync(real).isFile()) return { error: `${normal} is not a regular file` };
    fd = openSync(real, "r");
  } catch {
    return { error: `${normal} cannot be read` };
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_SKILL_FILE_READ_BYTES) return { error: `${normal} is ${size} bytes, over the ${MAX_SKILL_FILE_READ_BYTES}-byte limit for one read` };
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const k = readSync(fd, buf, got, size - got, got);
      if (k === 0) break;
      got += k;
    }
    const bytes = buf.subarray(0, got);
    if (bytes.includes(0)) return { error: `${normal} is a binary file; only UTF-8 text can be read` };
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
    try {
      return { text: text.decode(bytes), path: normal };
    } catch {
      return { error: `${normal} is not UTF-8 text; only UTF-8 text can be read` };
    }
  } finally {
    closeSync(fd);
  }
}
