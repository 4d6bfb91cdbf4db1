import type * as vscode from "vscode";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { skillVersionFile, type WorkspaceLayout } from "../core/layout.js";
import { diffSkill, type SkillDiff } from "../core/report/index.js";
import { pValue } from "../shared/format.js";
import type { LoadedRun } from "./report-view-model.js";
import type { Services } from "./services.js";

/**
 * What each edit of a skill changed (issue 28): after an evaluation of one skill whose text differs from the one
 * evaluated before on the same model and task set, the two runs are compared paired (core/report/diff.ts) and the
 * verdict kept here, per SKILL.md, newest first. The texts themselves are kept by content hash
 * (`skill-versions/<hash>.md`), so an edit opens as the two versions side by side.
 */
const KEY = "skillFollowing.editHistory.v1";
/** Edits kept per skill. */
export const MAX_EDITS = 20;

export interface EditEntry {
  /** When the "after" evaluation finished (ISO). */
  at: string;
  /** What the before side is: "previous evaluation" or a git ref such as HEAD. */
  beforeLabel: string;
  beforeRun: string;
  afterRun: string;
  diff: SkillDiff;
}

export class EditHistory {
  private readonly listeners: ((file: string) => void)[] = [];

  constructor(private readonly memento: vscode.Memento) {}

  onDidChange(listener: (file: string) => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => void this.listeners.splice(this.listeners.indexOf(listener), 1) };
  }

  /** The skill's edits, newest first. */
  of(file: string): EditEntry[] {
    return this.memento.get<Record<string, EditEntry[]>>(KEY, {})?.[path.resolve(file)] ?? [];
  }

  /** The edit that led to the text with this hash (the newest one), if any. */
  latestTo(file: string, contentHash: string): EditEntry | undefined {
    return this.of(file).find((e) => e.diff.after.hash === contentHash);
  }

  async add(file: string, entry: EditEntry): Promise<void> {
    const all = { ...this.memento.get<Record<string, EditEntry[]>>(KEY, {}) };
    const key = path.resolve(file);
    all[key] = [entry, ...(all[key] ?? [])].slice(0, MAX_EDITS);
    await this.memento.update(KEY, all);
    for (const l of [...this.listeners]) l(key);
  }

  async clear(): Promise<void> {
    await this.memento.update(KEY, undefined);
  }
}

/** `this edit: 4 improved · 1 regressed (p 0.37)`; trigger changes when the edit changed loading only. */
export function editLensTitle(d: SkillDiff): string {
  const p = d.decisionP === "exact" ? d.table.pExact : d.table.pMid;
  const trigger = d.triggerChanged.gained.length + d.triggerChanged.lost.length;
  const triggers = trigger ? ` · loaded on ${d.triggerChanged.gained.length} more, ${d.triggerChanged.lost.length} fewer` : "";
  if (d.table.n === 0) return `this edit: no task loaded both versions${triggers}`;
  const mark = d.verdict === "regressed" ? "$(warning) " : d.verdict === "improved" ? "$(pass) " : "";
  return `${mark}this edit: ${d.table.improved} improved \u00b7 ${d.table.regressed} regressed (p ${pValue(p)})${triggers}`;
}

/**
 * The diff of two evaluations of one skill, or undefined when they cannot be paired (another model or task set,
 * the same text). Never throws: an evaluation must not fail because its history could not be written.
 */
export function diffRuns(skill: string, before: LoadedRun, after: LoadedRun, alpha: number): SkillDiff | undefined {
  const was = before.header.skills.find((s) => s.name === skill)?.contentHash;
  const now = after.header.skills.find((s) => s.name === skill)?.contentHash;
  if (!was || !now || was === now) return undefined;
  try {
    return diffSkill(skill, { source: before.file, runs: [before] }, { source: after.file, runs: [after] }, alpha);
  } catch {
    return undefined;
  }
}

/** Keeps the text of a SKILL.md as evaluated (once per content hash). */
export function keepSkillVersion(layout: Pick<WorkspaceLayout, "root">, contentHash: string, text: string): void {
  const file = skillVersionFile(layout, contentHash);
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A kept text, or a note saying why it is not there (evaluated before versions were kept). */
export function keptSkillVersion(layout: Pick<WorkspaceLayout, "root">, contentHash: string): string {
  try {
    return readFileSync(skillVersionFile(layout, contentHash), "utf8");
  } catch {
    return `(The text of this version, sha256 ${contentHash.slice(0, 12)}, was not kept: it was evaluated before Skill Following kept the texts it evaluates.)\n`;
  }
}

/**
 * After an evaluation of one skill: if the configuration's previous run evaluated another text, the edit's diff is
 * recorded. `previous` is the run the CodeLens showed before this evaluation.
 */
export async function recordEdit(svc: Pick<Services, "runs" | "config" | "logger">, history: EditHistory, skillName: string, file: string, previousRun: string | undefined, runFile: string, beforeLabel = "previous evaluation"): Promise<EditEntry | undefined> {
  if (!previousRun || previousRun === runFile) return undefined;
  try {
    const [before, after] = await Promise.all([svc.runs.load(previousRun), svc.runs.load(runFile)]);
    const diff = diffRuns(skillName, before, after, svc.config.get().alpha);
    if (!diff) return undefined;
    const entry: EditEntry = { at: new Date().toISOString(), beforeLabel, beforeRun: previousRun, afterRun: runFile, diff };
    await history.add(file, entry);
    svc.logger.info(`${skillName}: ${editLensTitle(diff)} (${beforeLabel} → this version)`);
    return entry;
  } catch (err) {
    svc.logger.warn(`${skillName}: the edit could not be compared with ${previousRun}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

