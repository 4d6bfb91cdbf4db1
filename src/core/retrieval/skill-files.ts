/**
 * The files a skill keeps beside its SKILL.md (`references/`, `scripts/`, `assets/`), which its body links to
 * (progressive disclosure), and the one way the agent reads them: `read_skill_file(skill, path)`. A read returns
 * UTF-8 text from that skill's folder under a size cap. It refuses absolute paths, `..`, symbolic links that lead
 * out of the folder, the skill's `evals/` (its test answers), binary files and files over the cap.
 */
import { closeSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { inForbidden, openContained, readPrefixFd, realFolder, within, type ContainedRefusal } from "../contained-file.js";

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

/** Top-level folders never read or listed, by any spelling: the skill's test answers. */
const FORBIDDEN = ["evals"];

/** The readable files of a skill folder, sorted; none when the folder does not exist. */
export function listSkillFiles(dir: string): SkillFile[] {
  const root = realFolder(dir);
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
          const real = realpathSync.native(full);
          if (!within(root, real) || inForbidden(path.relative(root, real), FORBIDDEN)) continue;
          st = statSync(full);
        }
      } catch {
        continue;
      }
      if (st.isDirectory() && depth < MAX_DEPTH) walk(full, relPath, depth + 1);
      // A second hard link can name a host file: read_skill_file refuses it, so it is not offered.
      else if (st.isFile() && st.nlink === 1) out.push({ path: relPath, bytes: st.size });
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
  if (inForbidden(parts.join("/"), FORBIDDEN)) return "a skill's evals/ folder is not readable";
  return undefined;
}

/** What the model is told for each refusal after the open: short, and never a host path. */
const REFUSED: Record<ContainedRefusal, (rel: string) => string> = {
  missing: (rel) => `no file ${rel} in this skill`,
  unreadable: (rel) => `${rel} cannot be read`,
  outside: (rel) => `${rel} leads outside the skill folder (a link); refused`,
  forbidden: () => "a skill's evals/ folder is not readable",
  "hard-linked": (rel) => `${rel} has more than one hard link; refused`,
  "not-a-file": (rel) => `${rel} is not a regular file`,
};

/**
 * Reads one file of a skill folder for the agent, or says why not. The file is opened first and then checked
 * (src/core/contained-file.ts): its real path must lie in the folder and outside evals/, with one hard link.
 */
export function readSkillFolderFile(dir: string, rel: string): { text: string; path: string } | { error: string } {
  const refused = refusedPath(rel);
  if (refused) return { error: refused };
  const root = realFolder(dir);
  if (!root) return { error: "the skill folder is not readable" };
  const normal = rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".").join("/");
  const open = openContained(root, normal, FORBIDDEN);
  if ("refused" in open) return { error: REFUSED[open.refused](normal) };
  try {
    const size = open.stat.size;
    if (size > MAX_SKILL_FILE_READ_BYTES) return { error: `${normal} is ${size} bytes, over the ${MAX_SKILL_FILE_READ_BYTES}-byte limit for one read` };
    const bytes = readPrefixFd(open.fd, size);
    if (bytes.includes(0)) return { error: `${normal} is a binary file; only UTF-8 text can be read` };
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
    try {
      return { text: text.decode(bytes), path: normal };
    } catch {
      return { error: `${normal} is not UTF-8 text; only UTF-8 text can be read` };
    }
  } finally {
    closeSync(open.fd);
  }
}
