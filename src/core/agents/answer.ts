/**
 * What a harness run is graded on, and what its prompt says about it (issue 25, item 5):
 * - a skill eval: the final response plus the files the agent wrote under `outputs/` in its workspace, as one text
 *   (text files inlined under their path, other files listed by name and size), so the assertions and the blind judge
 *   grade both with the graders the built-in loop uses;
 * - a code task: the code in the final message, else the file `solution.py` in the workspace;
 * - a math task: the final message, as today.
 *
 * The workspace was written by the agent: every file is opened first and checked after (`openContained`), so a
 * symbolic link to a host file, a hard link, a FIFO or a device is never read. Sizes are capped.
 */
import { closeSync, readdirSync } from "node:fs";
import path from "node:path";
import { extractAnswer } from "../agent/extract.js";
import { userPrompt } from "../agent/prompts.js";
import { openContained, readPrefixFd, realFolder } from "../contained-file.js";
import type { Task } from "../tasks/schema.js";

/** The file a code task's answer may be written to in the workspace (graded when the final message has no code). */
export const SOLUTION_FILE = "solution.py";
/** The folder of a skill eval's output files, relative to the workspace. */
export const OUTPUTS_DIR = "outputs";

/** Caps on what is read from `outputs/`: files listed, folders deep, bytes read per file, characters inlined in all. */
export const OUTPUT_LIMITS = { files: 50, depth: 8, fileBytes: 64_000, totalChars: 256_000 } as const;
/** The largest solution.py read (a code answer is small; the reply cap of the built-in loop is of the same order). */
const SOLUTION_MAX_BYTES = 256_000;

/**
 * The task prompt as a harness gets it: the built-in loop's, plus where files count, because a harness can write
 * files. Both conditions get the same text.
 */
export function harnessPrompt(task: Task): string {
  const base = userPrompt(task);
  if (task.kind === "skill-eval") return `${base}\n\nFiles you write under \`${OUTPUTS_DIR}/\` in the working folder are graded with your final response.`;
  if (task.kind === "python-function") return `${base}\nYou may instead write the complete implementation to the file \`${SOLUTION_FILE}\` in the working folder.`;
  return base;
}

/** The graded answer of a harness run (null: nothing to grade). */
export function harnessAnswer(task: Task, finalText: string | null, workspace: string): string | null {
  if (task.kind === "skill-eval") return skillEvalAnswer(finalText, workspace);
  const answer = extractAnswer(task, finalText);
  if (answer !== null || task.kind !== "python-function") return answer;
  const solution = readWorkspaceText(workspace, SOLUTION_FILE, SOLUTION_MAX_BYTES);
  return solution.kind === "text" && solution.text.trim() !== "" ? solution.text : null;
}

type FileRead = { kind: "text"; text: string; bytes: number } | { kind: "shown-as"; bytes: number; note: string } | { kind: "refused"; note: string };

/** A file of the workspace, opened first and checked after; UTF-8 text up to `maxBytes`, else why not. */
function readWorkspaceText(workspace: string, rel: string, maxBytes: number): FileRead {
  const root = realFolder(workspace);
  if (!root) return { kind: "refused", note: "the workspace is gone" };
  const opened = openContained(root, rel);
  if ("refused" in opened) return { kind: "refused", note: opened.refused === "missing" ? "missing" : `not read: ${opened.refused}` };
  try {
    const bytes = opened.stat.size;
    if (bytes > maxBytes) return { kind: "shown-as", bytes, note: `over ${maxBytes} bytes` };
    const buf = readPrefixFd(opened.fd, maxBytes);
    const text = buf.includes(0) ? undefined : decodeUtf8(buf);
    return text === undefined ? { kind: "shown-as", bytes, note: "binary" } : { kind: "text", text, bytes };
  } finally {
    closeSync(opened.fd);
  }
}

function decodeUtf8(buf: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    return undefined;
  }
}

/** Regular files and links under `outputs/` (relative to the workspace, `/`-separated, sorted), within the caps. */
function outputFiles(workspace: string): { files: string[]; more: boolean } {
  const files: string[] = [];
  let more = false;
  const walk = (rel: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(path.join(workspace, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = `${rel}/${e.name}`;
      // A link to a folder is not followed (it is listed as a file and refused when opened).
      if (e.isDirectory()) {
        if (depth < OUTPUT_LIMITS.depth) walk(child, depth + 1);
        else more = true;
      } else if (files.length < OUTPUT_LIMITS.files) files.push(child);
      else more = true;
    }
  };
  // outputs/ itself must be a real folder of the workspace, not a link out of it.
  const root = realFolder(workspace);
  const outputs = realFolder(path.join(workspace, OUTPUTS_DIR));
  if (root && outputs && outputs === path.join(root, OUTPUTS_DIR)) walk(OUTPUTS_DIR, 1);
  return { files, more };
}

/** A backtick fence longer than any run of backticks in the text, so file content cannot close it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * The final response, then a section `## Files under outputs/` with each text file under its path in a fence and
 * each other file as a list line (name, size, why not shown). Null when there is neither a response nor a file.
 */
export function skillEvalAnswer(finalText: string | null, workspace: string): string | null {
  const text = finalText?.trim() ? finalText : "";
  const { files, more } = outputFiles(workspace);
  if (files.length === 0) return text === "" ? null : text;
  const parts: string[] = [text, "", `## Files under ${OUTPUTS_DIR}/`];
  let budget: number = OUTPUT_LIMITS.totalChars;
  for (const rel of files) {
    const read = readWorkspaceText(workspace, rel, OUTPUT_LIMITS.fileBytes);
    if (read.kind === "text" && read.text.length <= budget) {
      budget -= read.text.length;
      const fence = fenceFor(read.text);
      parts.push("", `### ${rel}`, fence, read.text.replace(/\n$/, ""), fence);
    } else if (read.kind === "text") parts.push("", `- ${rel} (${read.bytes} bytes; over the ${OUTPUT_LIMITS.totalChars}-character total; not shown)`);
    else if (read.kind === "shown-as") parts.push("", `- ${rel} (${read.bytes} bytes; ${read.note}; not shown)`);
    else parts.push("", `- ${rel} (${read.note})`);
  }
  if (more) parts.push("", `(more files under ${OUTPUTS_DIR}/ than the ${OUTPUT_LIMITS.files} listed, or folders deeper than ${OUTPUT_LIMITS.depth})`);
  return parts.join("\n").replace(/^\n+/, "");
}
