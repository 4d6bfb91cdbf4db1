import { createHash } from "node:crypto";
import type { Skill } from "./types.js";

/**
 * The content a skill's identity is computed from. Editors disagree about BOMs, line endings and trailing
 * whitespace; none of those change what an agent reads, so none of them may change the hash.
 * Result: lines joined by LF, each without trailing whitespace, no trailing blank lines, no final newline.
 */
export function normaliseSkillContent(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = noBom.split(/\r\n|\r|\n/).map(trimTrailingBlanks);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

const isTrailingBlank = (c: number) => c === 0x20 || c === 0x09 || c === 0x0c || c === 0x0b;

/**
 * `line` without trailing spaces, tabs, form feeds and vertical tabs. A loop, not /[ \t\f\v]+$/: that regex
 * starts over at every blank of an inner run, so a line of 40,000 spaces and one letter took 3 s.
 */
export function trimTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && isTrailingBlank(line.charCodeAt(end - 1))) end--;
  return end === line.length ? line : line.slice(0, end);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 (hex) of the normalised content: the `contentHash` of a Skill. */
export function skillContentHash(text: string): string {
  return sha256Hex(normaliseSkillContent(text));
}

/**
 * Identity of a whole library as recorded in run headers: sha256 of the sorted `name:contentHash` lines
 * joined by LF (no final newline). Order of scanning does not matter; any edit, rename or removal does.
 */
export function skillLibraryHash(skills: readonly Pick<Skill, "name" | "contentHash">[]): string {
  const lines = skills.map((s) => `${s.name}:${s.contentHash}`).sort();
  return sha256Hex(lines.join("\n"));
}
