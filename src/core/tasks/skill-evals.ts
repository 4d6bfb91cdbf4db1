/**
 * `--tasks skill-evals`: every scanned skill's `evals/evals.json` becomes tasks named `<skill>/<id>`, and
 * skill-creator trigger sets (`--trigger-evals`) become enabled-only trigger tasks. A broken file or case is a
 * located issue (`file:line:column`) and is skipped; the rest loads. Attached files are inlined under their relative
 * path when they are UTF-8 text under the size cap, otherwise listed by name and size; a path that leaves the skill
 * folder is refused.
 */
import { createHash } from "node:crypto";
import { closeSync, statSync } from "node:fs";
import path from "node:path";
import { openContained, openRegular, readPrefixFd, realFolder, type ContainedRefusal } from "../contained-file.js";
import { InputError } from "../errors.js";
import { firstInvalidUtf8 } from "../skills/scan.js";
import type { Skill } from "../skills/types.js";
import { EvalCaseSchema, EvalsFileShellSchema, LocatedJson, locatedIssues, NOT_APPLIED_CASE_FIELDS, TriggerSetSchema, type EvalAssertion, type EvalCase, type Position } from "./evals-file.js";
import type { Attachment, EvalCriterion, SkillEvalTask, TaskLoadIssue, TaskSet } from "./schema.js";

/** The task-set name (and `--tasks` keyword) of a library's own evals. */
export const SKILL_EVALS = "skill-evals";
/** Where a skill keeps its evals, relative to its folder. */
export const EVALS_FILE = path.join("evals", "evals.json");

export interface SkillEvalsOptions {
  /** An eval file larger than this is refused. Default 4 MB. */
  maxEvalFileBytes?: number;
  /** An attached text file larger than this is listed, not inlined. Default 64 KB. */
  maxAttachmentBytes?: number;
  /** Inlined attachments of one case stop at this many bytes in all; the rest are listed. Default 256 KB. */
  maxAttachmentsTotalBytes?: number;
}

const DEFAULTS = { maxEvalFileBytes: 4 * 2 ** 20, maxAttachmentBytes: 64 * 2 ** 10, maxAttachmentsTotalBytes: 256 * 2 ** 10 };

/** Collects issues for one file, each with its line and column. */
class Issues {
  constructor(
    readonly list: TaskLoadIssue[],
    readonly file: string,
  ) {}
  add(at: Position, message: string): void {
    this.list.push({ file: this.file, line: at.line, column: at.column, message });
  }
}

/** The skills' own evals as one task set. Throws InputError when no skill has an eval file, or none yields a task. */
export function loadSkillEvals(skills: readonly Skill[], options: SkillEvalsOptions = {}): TaskSet {
  const o = { ...DEFAULTS, ...options };
  const tasks: SkillEvalTask[] = [];
  const issues: TaskLoadIssue[] = [];
  const files: string[] = [];
  for (const skill of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(skill.dir, EVALS_FILE);
    if (!isFile(file)) continue;
    files.push(file);
    tasks.push(...readEvalsFile(skill, file, new Issues(issues, file), o));
  }
  if (files.length === 0) {
    throw new InputError(`none of the ${skills.length} skills has ${EVALS_FILE}`, {
      hint: `Add ${EVALS_FILE} to a skill folder ({"skill_name": ..., "evals": [{"id": 1, "prompt": ..., "expectations": [...]}]}), or evaluate on a task file.`,
      hintIds: ["taskSet"],
    });
  }
  if (tasks.length === 0) {
    const first = issues[0];
    throw new InputError(`${first ? `${first.file}:${first.line}:${first.column}: ` : ""}no usable eval case in ${files.length} eval files${first ? ` (first problem: ${first.message})` : ""}`, {
      ...(first ? { file: first.file, line: first.line } : {}),
      hintIds: ["file"],
    });
  }
  return taskSetOf(SKILL_EVALS, commonFolder(files), tasks, issues);
}

/** The located issues of one skill's eval file, without building a task set (what `lint` reports). */
export function checkSkillEvalsFile(skill: Pick<Skill, "name" | "dir">, file: string, options: SkillEvalsOptions = {}): TaskLoadIssue[] {
  const issues: TaskLoadIssue[] = [];
  // Reading a file uses only the skill's name and folder, so a skill whose SKILL.md does not load can be named by its folder.
  readEvalsFile(skill as Skill, file, new Issues(issues, file), { ...DEFAULTS, ...options });
  return issues;
}

/** A task set from tasks already built (hash over their canonical content, so any edit to a prompt or file shows). */
export function taskSetOf(name: string, file: string, tasks: SkillEvalTask[], issues: TaskLoadIssue[]): TaskSet {
  const hash = createHash("sha256").update(JSON.stringify(tasks)).digest("hex");
  return { name, format: "skill-evals", file, hash, tasks, issues };
}

/** Adds trigger-only tasks to a task set (a fresh one when there is none). Ids must not collide. */
export function withTriggerTasks(base: TaskSet | undefined, triggers: SkillEvalTask[], file: string, issues: TaskLoadIssue[]): TaskSet {
  const have = new Set((base?.tasks ?? []).map((t) => t.id));
  const clash = triggers.find((t) => have.has(t.id));
  if (clash) throw new InputError(`${file}: trigger case id ${clash.id} is also an eval's id; give the trigger cases other ids`, { file, hintIds: ["file"] });
  const tasks = [...((base?.tasks ?? []) as SkillEvalTask[]), ...triggers];
  return taskSetOf(base ? `${base.name}+triggers` : "trigger-evals", base?.file ?? file, tasks, [...(base?.issues ?? []), ...issues]);
}

function readEvalsFile(skill: Skill, file: string, issues: Issues, o: typeof DEFAULTS): SkillEvalTask[] {
  const root = realFolder(skill.dir);
  const json = readJson(root ? openContained(root, EVALS_FILE) : { refused: "unreadable" }, issues, o.maxEvalFileBytes);
  if (!json) return [];
  const shell = EvalsFileShellSchema.safeParse(json.value);
  if (!shell.success) {
    for (const i of locatedIssues(json, shell.error)) issues.add(i.at, i.message);
    return [];
  }
  if (shell.data.skill_name !== undefined && shell.data.skill_name !== skill.name) {
    issues.add(json.locate(["skill_name"]), `skill_name "${shell.data.skill_name}" is not this skill's name "${skill.name}"; the cases are loaded as ${skill.name}'s`);
  }
  if (shell.data.defaults !== undefined) {
    const parts = Object.keys(shell.data.defaults).map((k) => `defaults.${k}`);
    issues.add(json.locate(["defaults"]), `${NOT_APPLIED} ${parts.length ? parts.join(", ") : "defaults"} (agent-skills-eval's model params and tools): every task runs with this run's model settings and the judge with its own; the cases load as usual`);
  }
  const notApplied = new Map<string, number[]>();
  const tasks: SkillEvalTask[] = [];
  const seen = new Map<string, number>();
  shell.data.evals.forEach((raw, index) => {
    if (raw !== null && typeof raw === "object") for (const k of NOT_APPLIED_CASE_FIELDS) if (k in raw) notApplied.set(k, [...(notApplied.get(k) ?? []), index]);
    const parsed = EvalCaseSchema.safeParse(raw);
    if (!parsed.success) {
      const [first, ...rest] = locatedIssues(json, parsed.error, ["evals", index]);
      if (first) issues.add(first.at, `${first.message}${rest.length ? ` (and ${rest.length} more problems)` : ""}; case skipped`);
      return;
    }
    const c = parsed.data;
    const id = `${skill.name}/${c.id}`;
    if (seen.has(id)) {
      issues.add(json.locate(["evals", index, "id"]), `duplicate eval id ${JSON.stringify(c.id)} (first in case ${seen.get(id)! + 1}); case skipped`);
      return;
    }
    seen.set(id, index);
    const attachments = attach(skill, c.files ?? [], (k, message) => issues.add(json.locate(["evals", index, "files", k]), message), o);
    if (attachments === undefined) return;
    tasks.push(toTask(skill.name, id, c, attachments));
  });
  // One note per field, at its first use: what other tools' cases ask for that this tool does not do.
  for (const [k, cases] of notApplied) {
    issues.add(json.locate(["evals", cases[0]!, k]), `${NOT_APPLIED} "${k}" (agent-skills-eval's; in ${cases.length === 1 ? "1 case" : `${cases.length} cases`}): ${NOT_APPLIED_WHY[k as (typeof NOT_APPLIED_CASE_FIELDS)[number]]}; the cases load with their assertions`);
  }
  return tasks;
}

/** The start of every "read but not applied" note (lint tells these apart from problems by it). */
export const NOT_APPLIED = "not applied here:";

const NOT_APPLIED_WHY: Record<(typeof NOT_APPLIED_CASE_FIELDS)[number], string> = {
  params: "every task runs with the run's model settings",
  tools: "the agent is offered the skill tools only",
  tool_choice: "the agent is offered the skill tools only",
  tool_assertions: "the tools they check are not offered",
  runtime_checks: "the agent has no workspace to check",
  verification: "the agent has no workspace to run commands in",
  captured_files: "the agent has no workspace to keep files from",
};

function toTask(owner: string, id: string, c: EvalCase, attachments: Attachment[]): SkillEvalTask {
  const criteria = [...(c.expectations ?? []), ...(c.assertions ?? [])].map(criterion);
  // skill-creator files may leave expectations empty for now: the expected output is then what the judge checks.
  if (criteria.length === 0 && c.expected_output) criteria.push({ type: "judge", text: `The response achieves the expected result: ${c.expected_output}` });
  const label = c.name ?? c.eval_name;
  return {
    id,
    kind: "skill-eval",
    prompt: c.prompt,
    owner,
    evalId: c.id,
    ...(label ? { name: label } : {}),
    shouldTrigger: c.should_trigger ?? true,
    // Nothing to grade: the case can only say whether the skill was loaded.
    triggerOnly: criteria.length === 0,
    ...(c.expected_output !== undefined ? { expectedOutput: c.expected_output } : {}),
    criteria,
    attachments,
  };
}

function criterion(a: EvalAssertion): EvalCriterion {
  if (typeof a === "string") return { type: "judge", text: a };
  // agent-skills-eval's object forms: a sentence for the judge.
  if ("text" in a) return { type: "judge", text: a.text };
  if ("criterion" in a) return { type: "judge", text: a.criterion };
  if (a.type === undefined) return { type: "judge", text: a.value };
  return { type: a.type, value: a.value === undefined ? "" : String(a.value), ...(a.name ? { name: a.name } : {}), ...(a.flags !== undefined ? { flags: a.flags } : {}) };
}

/**
 * The attachments of one case, or undefined when a path is refused (the case is skipped). Text is read only up to the
 * cap, so a huge file costs a stat and a bounded read, never its size in memory.
 */
function attach(skill: Skill, files: readonly string[], problem: (index: number, message: string) => void, o: typeof DEFAULTS): Attachment[] | undefined {
  const out: Attachment[] = [];
  let inlined = 0;
  const root = realFolder(skill.dir) ?? path.resolve(skill.dir);
  for (const [k, rel] of files.entries()) {
    const refused = refusePath(rel);
    if (refused) {
      problem(k, `files[${k}] ${JSON.stringify(rel)}: ${refused}; case skipped`);
      return undefined;
    }
    // Opened first, then checked: a path checked before the open can be swapped for a link in between.
    const open = openContained(root, rel);
    if ("refused" in open) {
      problem(k, `files[${k}] ${JSON.stringify(rel)}: ${ATTACH_REFUSED[open.refused]}; case skipped`);
      return undefined;
    }
    try {
      const a = readAttachment(open.fd, rel, open.stat.size, Math.min(o.maxAttachmentBytes, o.maxAttachmentsTotalBytes - inlined));
      if (a.text !== undefined) inlined += Buffer.byteLength(a.text);
      else if (a.note?.startsWith("over")) problem(k, `files[${k}] ${JSON.stringify(rel)}: ${a.bytes} bytes, ${a.note}; listed by name and size only`);
      out.push(a);
    } finally {
      closeSync(open.fd);
    }
  }
  return out;
}

const ATTACH_REFUSED: Record<ContainedRefusal, string> = {
  missing: "no such file in the skill folder",
  unreadable: "cannot be read",
  outside: "leads outside the skill folder (a link)",
  forbidden: "refused",
  "hard-linked": "has more than one hard link (it may be another file's); copy it into the skill instead",
  "not-a-file": "not a regular file",
};

/** Why a path given in an eval file is refused before touching the disk, or undefined. */
export function refusePath(rel: string): string | undefined {
  if (path.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel) || rel.startsWith("\\")) return "absolute paths are refused; give a path relative to the skill folder";
  if (rel.split(/[\\/]/).includes("..")) return "paths with .. are refused; the file must be inside the skill folder";
  if (rel.includes("\u0000")) return "the path holds a NUL character";
  return undefined;
}

/** Whether `real` is `root` or lies under it (both real paths). */
export function inside(root: string, real: string): boolean {
  const r = path.relative(root, real);
  return r === "" || (!r.startsWith("..") && !path.isAbsolute(r));
}

function readAttachment(fd: number, rel: string, size: number, cap: number): Attachment {
  if (size > cap) return { path: rel, bytes: size, note: cap <= 0 ? "over the total size cap for one case's files" : `over the ${cap}-byte cap for an inlined file` };
  const bytes = readPrefixFd(fd, size);
  if (bytes.includes(0) || firstInvalidUtf8(bytes) >= 0) return { path: rel, bytes: size, note: "binary (not UTF-8 text)" };
  return { path: rel, bytes: size, text: bytes.toString("utf8") };
}

/** Reads and parses a JSON file with the size cap; problems become located issues. */
function readJson(open: ReturnType<typeof openContained>, issues: Issues, maxBytes: number): LocatedJson | undefined {
  if ("refused" in open) {
    issues.add({ line: 1, column: 1 }, `cannot read: ${open.refused === "missing" ? "no such file" : ATTACH_REFUSED[open.refused]}`);
    return undefined;
  }
  let bytes: Buffer;
  try {
    const size = open.stat.size;
    if (size > maxBytes) {
      issues.add({ line: 1, column: 1 }, `the file is ${size} bytes, over the ${maxBytes}-byte limit for an eval file; move large inputs into files the cases attach`);
      return undefined;
    }
    bytes = readPrefixFd(open.fd, size);
  } finally {
    closeSync(open.fd);
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    issues.add({ line: 1, column: 1 }, `not UTF-8 text (bad byte at offset ${bad}); save it as UTF-8`);
    return undefined;
  }
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  const r = LocatedJson.parse(text);
  if ("error" in r) {
    issues.add(r.at, r.error);
    return undefined;
  }
  return r.json;
}

/**
 * A skill-creator trigger set. The owner is its `skill_name`, else the skill whose folder holds the file, else the
 * only skill. Cases run in the enabled condition only and are graded by whether the owner was loaded.
 */
export function loadTriggerEvals(file: string, skills: readonly Skill[]): { tasks: SkillEvalTask[]; issues: TaskLoadIssue[] } {
  const issues: TaskLoadIssue[] = [];
  const json = readJson(openRegular(file), new Issues(issues, file), DEFAULTS.maxEvalFileBytes);
  const fail = (message: string, at: Position = { line: 1, column: 1 }) =>
    new InputError(`${file}:${at.line}:${at.column}: ${message}`, { file, line: at.line, hintIds: ["file"] });
  if (!json) throw fail(issues[0]?.message ?? "cannot read", issues[0] ? { line: issues[0].line, column: issues[0].column ?? 1 } : undefined);
  const parsed = TriggerSetSchema.safeParse(json.value);
  if (!parsed.success) {
    // Report against the shape the file has (a list, or an object), not zod's "no union branch matched".
    const branch = (Array.isArray(json.value) ? TriggerSetSchema.options[0] : TriggerSetSchema.options[1]).safeParse(json.value);
    const first = locatedIssues(json, branch.success ? parsed.error : branch.error)[0]!;
    throw fail(`${first.message} (a trigger set is [{"query", "should_trigger"}] or {"evals": [{"prompt", "should_trigger"}]})`, first.at);
  }
  const set = parsed.data;
  const named = Array.isArray(set) ? undefined : set.skill_name;
  const owner = named ?? skills.find((s) => inside(path.resolve(s.dir), path.resolve(file)))?.name ?? (skills.length === 1 ? skills[0]!.name : undefined);
  if (!owner) throw fail(`whose trigger set is this? Put it in the skill's folder, or give "skill_name" (skills: ${skills.map((s) => s.name).join(", ")})`);
  if (!skills.some((s) => s.name === owner)) throw fail(`skill_name "${owner}" is not among the scanned skills (${skills.map((s) => s.name).join(", ")})`);
  const cases = Array.isArray(set) ? set : set.evals;
  const seen = new Set<string>();
  const tasks: SkillEvalTask[] = [];
  cases.forEach((c, i) => {
    const evalId = c.id ?? i + 1;
    const id = `${owner}/trigger-${evalId}`;
    if (seen.has(id)) {
      issues.push({ file, line: json.locate([...(Array.isArray(set) ? [] : ["evals"]), i]).line, message: `duplicate trigger case id ${JSON.stringify(evalId)}; case skipped` });
      return;
    }
    seen.add(id);
    tasks.push({ id, kind: "skill-eval", prompt: (c.query ?? c.prompt)!, owner, evalId, shouldTrigger: c.should_trigger, triggerOnly: true, criteria: [], attachments: [] });
  });
  if (tasks.length === 0) throw fail("the trigger set has no cases");
  return { tasks, issues };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The deepest folder holding every file (the task set's `file` in run headers). */
function commonFolder(files: readonly string[]): string {
  const parts = files.map((f) => path.resolve(path.dirname(f)).split(path.sep));
  const first = parts[0]!;
  let n = 0;
  while (n < first.length && parts.every((p) => p[n] === first[n])) n++;
  return first.slice(0, n).join(path.sep) || path.sep;
}
