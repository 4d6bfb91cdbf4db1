import { closeSync, existsSync, statSync } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { openContained, readPrefixFd, realFolder, type ContainedRefusal } from "../contained-file.js";
import { finding } from "./codes.js";
import { MAX_SKILL_FILE_BYTES, parseSkill } from "./parse.js";
import type { Finding, Skill, SkillScan } from "./types.js";

/** Where agents look for skills, relative to a workspace root (Agent Skills, Claude Code, Copilot). */
export const DEFAULT_SKILL_ROOTS = ["skills", ".agents/skills", ".claude/skills", ".github/skills"] as const;

const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

/**
 * The skills folders of a workspace: the usual locations that exist, then the configured ones (relative
 * paths resolve against the workspace root, `~/` against the home folder; they are kept even when missing
 * so the scan can say so).
 * Absolute, de-duplicated, in that order.
 */
export function findSkillRoots(workspaceRoot: string, configured: string[] = []): string[] {
  const out: string[] = [];
  const push = (p: string) => {
    if (!out.includes(p)) out.push(p);
  };
  for (const rel of DEFAULT_SKILL_ROOTS) {
    const p = path.resolve(workspaceRoot, rel);
    try {
      if (existsSync(p) && statSync(p).isDirectory()) push(p);
    } catch {
      // Unreadable: not a root we can use; the user did not ask for it explicitly.
    }
  }
  for (const c of configured) {
    const t = c.trim();
    // `~/.claude/skills` is where personal Claude Code skills live; settings write it that way.
    if (t !== "") push(t === "~" || t.startsWith("~/") ? path.join(homedir(), t.slice(1)) : path.resolve(workspaceRoot, t));
  }
  return out;
}

/**
 * Scans skills. Each path may be a skills folder (holding `<name>/SKILL.md`), a single skill folder, or a
 * SKILL.md file. Never throws for bad input: unreadable paths and bad files become findings. A file reached
 * twice (overlapping roots, symlinks) counts once; a second skill with an already-seen name is skipped
 * with a `duplicate-name` error.
 */
export async function scanSkills(paths: string[]): Promise<SkillScan> {
  const skills: Skill[] = [];
  const findings: Finding[] = [];
  const seenFiles = new Set<string>();
  const byName = new Map<string, Skill>();

  const load = async (file: string) => {
    let real: string;
    try {
      real = await realpath(file);
    } catch {
      real = file;
    }
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    const r = await readSkillFile(file);
    findings.push(...r.findings);
    if (!r.skill) return;
    const first = byName.get(r.skill.name);
    if (first) {
      findings.push(
        finding("duplicate-name", file, `skill name "${r.skill.name}" is already used by ${first.file}: rename one of them (folder and name:)`, nameLine(r.text)),
      );
      return;
    }
    byName.set(r.skill.name, r.skill);
    skills.push(r.skill);
  };

  for (const given of paths) {
    const p = path.resolve(given);
    let st;
    try {
      st = await stat(p);
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
      findings.push(finding(missing ? "path-not-found" : "read-error", p, missing ? `skills path does not exist: ${p}: create it or remove it from the configured skill folders` : `cannot read ${p}: ${(e as Error).message}`));
      continue;
    }
    if (st.isFile()) {
      await load(p);
      continue;
    }
    if (!st.isDirectory()) {
      findings.push(finding("read-error", p, `${p} is neither a file nor a folder`));
      continue;
    }
    const own = await skillFileIn(p, findings);
    if (own) {
      await load(own);
      continue;
    }
    let found = 0;
    let entries;
    try {
      entries = (await readdir(p, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      findings.push(finding("read-error", p, `cannot list ${p}: ${(e as Error).message}`));
      continue;
    }
    for (const ent of entries) {
      if (ent.name.startsWith(".") || SKIPPED_DIRS.has(ent.name)) continue;
      const dir = path.join(p, ent.name);
      const isDir = ent.isDirectory() || (ent.isSymbolicLink() && (await stat(dir).then((s) => s.isDirectory(), () => false)));
      if (!isDir) continue;
      const f = await skillFileIn(dir, findings);
      if (f) {
        found++;
        await load(f);
      } else {
        await reportNested(dir, p, findings);
      }
    }
    if (found === 0) findings.push(finding("no-skill-file", p, `no SKILL.md in ${p} or its sub-folders: skills live in <folder>/<name>/SKILL.md`));
  }
  return { skills, findings };
}

/** A group folder holding skills one level too deep: agents will not find them, so say where to move them. */
async function reportNested(dir: string, root: string, findings: Finding[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const ent of entries.filter((e) => e.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const file = path.join(dir, ent.name, "SKILL.md");
    if (!existsSync(file)) continue;
    findings.push(finding("nested-skill", file, `skill is nested too deep for agents to find: move ${path.join(dir, ent.name)} to ${path.join(root, ent.name)}`));
  }
}

/** The SKILL.md of a folder, accepting other spellings with a warning (case-insensitive file systems hide them). */
async function skillFileIn(dir: string, findings: Finding[]): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  if (names.includes("SKILL.md")) return path.join(dir, "SKILL.md");
  const other = names.find((n) => /^skill\.md$/i.test(n));
  if (!other) return undefined;
  const file = path.join(dir, other);
  findings.push(finding("file-name-case", file, `skill file is named ${other}: rename it to SKILL.md (agents on case-sensitive systems will not find it)`));
  return file;
}

/** Reads a SKILL.md with the size, binary and UTF-8 checks a text editor would do, then parses it. */
export async function readSkillFile(file: string): Promise<{ skill?: Skill; findings: Finding[]; text: string }> {
  let bytes: Buffer;
  // Opened first (non-blocking: a FIFO or device is refused by fstat, not waited on), then checked: the file really
  // lies in its skill folder (a link out would send a host file to the model) and has one hard link.
  const dir = realFolder(path.dirname(file));
  const open = dir ? openContained(dir, path.basename(file)) : ({ refused: "missing" } as const);
  if ("refused" in open) {
    const why: Record<ContainedRefusal, string> = {
      missing: `cannot read ${file}: no such file`,
      unreadable: `cannot read ${file}`,
      outside: `${file} is a link that leads outside its skill folder: copy the file into the folder instead`,
      forbidden: `cannot read ${file}`,
      "hard-linked": `${file} has more than one hard link (it may be another file's): copy it instead of linking it`,
      "not-a-file": `${file} is not a regular file (a device, FIFO or socket): SKILL.md must be a text file`,
    };
    return { text: "", findings: [finding("read-error", file, why[open.refused])] };
  }
  try {
    const { size } = open.stat;
    if (size > MAX_SKILL_FILE_BYTES) {
      return { text: "", findings: [finding("file-too-large", file, `file is ${size} bytes; the limit is ${MAX_SKILL_FILE_BYTES} (1 MB): move reference material into separate files next to SKILL.md`)] };
    }
    bytes = readPrefixFd(open.fd, size);
  } catch (e) {
    return { text: "", findings: [finding("read-error", file, `cannot read ${file}: ${(e as Error).message}`)] };
  } finally {
    closeSync(open.fd);
  }
  if (bytes.length > MAX_SKILL_FILE_BYTES) {
    return { text: "", findings: [finding("file-too-large", file, `file grew past the ${MAX_SKILL_FILE_BYTES}-byte limit while being read`)] };
  }
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { text: "", findings: [finding("binary-file", file, "file is UTF-16 encoded: save SKILL.md as UTF-8")] };
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    return { text: "", findings: [finding("binary-file", file, "file contains NUL bytes (binary?): SKILL.md must be UTF-8 text", bytePosition(bytes, nul))] };
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const hex = bytes[bad]?.toString(16).padStart(2, "0");
    return { text: "", findings: [finding("encoding", file, `invalid UTF-8 (byte 0x${hex} at offset ${bad}): re-save the file as UTF-8`, bytePosition(bytes, bad))] };
  }
  const text = bytes.toString("utf8");
  const r = parseSkill(file, text);
  return { ...r, text };
}

/** Offset of the first byte that breaks UTF-8 (overlongs, surrogates and > U+10FFFF included), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** 1-based line/column (in characters of the valid prefix) of a byte offset. */
function bytePosition(bytes: Buffer, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: bytes.subarray(start, offset).toString("utf8").length + 1 };
}

function nameLine(text: string): { line: number; column: number; endLine?: number; endColumn?: number } {
  const lines = text.split(/\r\n|\r|\n/);
  const i = lines.findIndex((l, k) => k > 0 && /^name\s*:/.test(l));
  return i < 0 ? { line: 1, column: 1 } : { line: i + 1, column: 1, endLine: i + 1, endColumn: (lines[i] ?? "").length + 1 };
}
