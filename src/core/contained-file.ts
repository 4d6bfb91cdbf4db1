/**
 * Opening a file that must lie inside a folder (a skill's): open first, then check what was opened. A path checked
 * and then opened can be swapped for a symbolic link in between (6 of 6,572 tries read the outside file), so the
 * checks run on the open descriptor: its real path (Linux: `/proc/self/fd/N`; elsewhere the path's real path, accepted
 * only when it names the very file that is open, by device and inode) lies under the folder, outside every
 * forbidden top-level folder (by any spelling: case, Unicode compatibility forms, trailing dots or spaces), and the
 * file has one hard link (a second name can be a host file's, and nothing on the inode says which is the original).
 *
 * Links that stay inside the folder are followed on purpose (skills link their own references); `O_NOFOLLOW` would
 * refuse those and protects only the last component, so the real-path check is what holds. FIFOs and devices are
 * opened non-blocking and refused by fstat before a byte is read.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";

/** Why an open was refused. Callers word it for their reader; none of these carries a host path. */
export type ContainedRefusal = "missing" | "unreadable" | "outside" | "forbidden" | "hard-linked" | "not-a-file";

export interface ContainedFile {
  fd: number;
  stat: Stats;
  /** Relative to the folder's real path, forward slashes: where the bytes really are. */
  realRel: string;
}

/** A folder name as compared for "forbidden": case-folded, compatibility forms folded, trailing dots and spaces cut. */
export function folded(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/[. ]+$/, "");
}

/** Whether `real` is `root` or lies under it (both real paths). */
export function within(root: string, real: string): boolean {
  const r = path.relative(root, real);
  return r === "" || (!r.startsWith("..") && !path.isAbsolute(r));
}

/** Whether a path relative to the folder starts in a forbidden top-level folder. */
export function inForbidden(rel: string, forbidden: readonly string[]): boolean {
  const first = rel.split(/[\\/]+/).find((p) => p !== "" && p !== ".");
  return first !== undefined && forbidden.some((f) => folded(first) === folded(f));
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The real path of an open descriptor, or undefined when it cannot be tied to the descriptor. */
function realPathOf(fd: number, opened: string, st: Stats): string | undefined {
  if (process.platform === "linux") {
    try {
      const p = readlinkSync(`/proc/self/fd/${fd}`);
      // A file deleted since it was opened reads "<path> (deleted)": that is no longer the path's file.
      if (path.isAbsolute(p) && !p.endsWith(" (deleted)")) return p;
    } catch {
      // No /proc (a container without it): fall through to the portable check.
    }
  }
  let real: string;
  try {
    real = realpathSync.native(opened);
    const now = statSync(real);
    // Swapped after the open: the path names another file now, so its real path says nothing about ours.
    if (now.dev !== st.dev || now.ino !== st.ino) return undefined;
  } catch {
    return undefined;
  }
  return real;
}

/**
 * Opens `rel` (already checked lexically: relative, no `..`) under `rootReal` (a real path) and checks the open file.
 * The caller owns the descriptor and must close it.
 */
export function openContained(rootReal: string, rel: string, forbidden: readonly string[] = []): ContainedFile | { refused: ContainedRefusal } {
  const opened = path.join(rootReal, rel);
  let fd: number;
  try {
    fd = openSync(opened, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { refused: code === "ENOENT" || code === "ENOTDIR" ? "missing" : code === "ELOOP" ? "outside" : "unreadable" };
  }
  const refuse = (why: ContainedRefusal) => {
    closeSync(fd);
    return { refused: why };
  };
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch {
    return refuse("unreadable");
  }
  const real = realPathOf(fd, opened, st);
  if (real === undefined || !within(rootReal, real)) return refuse("outside");
  const realRel = path.relative(rootReal, real).split(path.sep).join("/");
  if (inForbidden(realRel, forbidden)) return refuse("forbidden");
  if (!st.isFile()) return refuse("not-a-file");
  if (st.nlink > 1) return refuse("hard-linked");
  return { fd, stat: st, realRel };
}

/** Reads up to `n` bytes from the start of an open file. */
export function readPrefixFd(fd: number, n: number): Buffer {
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const k = readSync(fd, buf, got, n - got, got);
    if (k === 0) break;
    got += k;
  }
  return buf.subarray(0, got);
}

/** A folder's real path (the native call: on case-insensitive systems it also settles the case), or undefined. */
export function realFolder(dir: string): string | undefined {
  try {
    return realpathSync.native(dir);
  } catch {
    return undefined;
  }
}

/** Opens a file the user named (no folder to stay in): non-blocking, and refused unless it is a regular file. */
export function openRegular(file: string): ContainedFile | { refused: ContainedRefusal } {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { refused: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable" };
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    return { refused: "not-a-file" };
  }
  return { fd, stat: st, realRel: "" };
}
