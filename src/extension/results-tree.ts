import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { listRuns, oldRuns, type RunEntry } from "../core/layout.js";
import { siblingAblationFiles } from "../core/runs/ablation-store.js";
import { findSkillRoots, scanSkills } from "../core/skills/index.js";
import { COMMANDS } from "./command-ids.js";
import type { SkillResult } from "./report-view-model.js";
import type { Services } from "./services.js";
import { signed } from "../shared/format.js";
import { lensTitle } from "./verdict-text.js";
import { editLensTitle, type EditEntry } from "./edit-history.js";

/**
 * The Skill Following view (Explorer): the workspace's skills with their last verdict, and the run files by date,
 * model and task set. A skill opens its SKILL.md, a run its report; runs can be deleted (with their ablation files),
 * one at a time or every run but the latest of each skill, task set and model.
 */
export const RESULTS_VIEW = "skillFollowing.results";

type Node =
  | { kind: "group"; id: "skills" | "runs" }
  | { kind: "day"; day: string; runs: RunEntry[] }
  | { kind: "skill"; name: string; file: string; result?: SkillResult }
  | { kind: "run"; run: RunEntry }
  | { kind: "edit"; file: string; index: number; entry: EditEntry }
  | { kind: "editTask"; file: string; index: number; name: string; what: string };

const VERDICT_ICON: Record<SkillResult["flag"], vscode.ThemeIcon> = {
  harmful: new vscode.ThemeIcon("error", new vscode.ThemeColor("problemsErrorIcon.foreground")),
  helpful: new vscode.ThemeIcon("pass", new vscode.ThemeColor("testing.iconPassed")),
  inconclusive: new vscode.ThemeIcon("circle-large-outline"),
  "not-retrieved": new vscode.ThemeIcon("circle-slash"),
};

export class ResultsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private skills: { name: string; file: string }[] = [];

  constructor(private readonly svc: Services) {
    svc.results.onDidChange(() => this.refresh(), this, this.disposables);
    if (svc.edits) this.disposables.push(svc.edits.onDidChange(() => this.refresh()));
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(svc.layout.runsDir), "*.jsonl"));
    this.disposables.push(watcher, watcher.onDidCreate(() => this.refresh()), watcher.onDidDelete(() => this.refresh()));
    const skillWatcher = vscode.workspace.createFileSystemWatcher("**/SKILL.md", false, true, false);
    this.disposables.push(skillWatcher, skillWatcher.onDidCreate(() => this.rescan()), skillWatcher.onDidDelete(() => this.rescan()));
    void this.rescan();
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  private async rescan(): Promise<void> {
    const ws = vscode.workspace.workspaceFolders?.[0];
    const roots = ws ? findSkillRoots(ws.uri.fsPath, this.svc.config.get().skillFolders) : [];
    const scan = roots.length ? await scanSkills(roots) : { skills: [] };
    this.skills = scan.skills.map((s) => ({ name: s.name, file: path.resolve(s.file) }));
    this.refresh();
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "group": {
        const item = new vscode.TreeItem(node.id === "skills" ? "Skills" : "Runs", vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.id}`;
        return item;
      }
      case "day": {
        const item = new vscode.TreeItem(node.day, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `day:${node.day}`;
        item.description = `${node.runs.length} run${node.runs.length === 1 ? "" : "s"}`;
        return item;
      }
      case "skill": {
        const edits = this.svc.edits?.of(node.file).length ?? 0;
        const item = new vscode.TreeItem(node.name, edits ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        const r = node.result;
        item.id = `skill:${node.file}`;
        item.resourceUri = vscode.Uri.file(node.file);
        item.description = r ? `${r.flag} \u00b7 RAE ${signed(r.rae)} \u00b7 ${r.model} on ${r.taskSet}` : "not evaluated";
        item.tooltip = r ? `${lensTitle(r, false)}\nevaluated ${r.evaluatedAt}${r.note ? `\n${r.note}` : ""}` : "Not evaluated yet";
        item.iconPath = r ? VERDICT_ICON[r.flag] : new vscode.ThemeIcon("circle-outline");
        item.contextValue = r ? "skill-evaluated" : "skill";
        item.command = { command: "vscode.open", title: "Open SKILL.md", arguments: [vscode.Uri.file(node.file)] };
        return item;
      }
      case "edit": {
        // One evaluated edit: what it changed, against what, when; its tasks below.
        const d = node.entry.diff;
        const tasks = d.improvedTasks.length + d.regressedTasks.length + d.triggerChanged.gained.length + d.triggerChanged.lost.length;
        const item = new vscode.TreeItem(`${node.entry.beforeLabel} → ${d.after.hash.slice(0, 8)}`, tasks ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `edit:${node.file}:${node.entry.at}`;
        item.description = editLensTitle(d).replace(/^\$\([a-z]+\) /, "").replace(/^this edit: /, "");
        item.tooltip = `${d.skill}: ${d.before.hash.slice(0, 12)} → ${d.after.hash.slice(0, 12)}, evaluated ${node.entry.at} (${d.model} on ${d.taskSet}). Click for the two versions side by side.`;
        item.iconPath = new vscode.ThemeIcon(d.verdict === "regressed" ? "warning" : d.verdict === "improved" ? "pass" : "git-compare");
        item.contextValue = "edit";
        item.command = { command: COMMANDS.showEditDiff.id, title: "Show What This Edit Changed", arguments: [node.file, node.index] };
        return item;
      }
      case "editTask": {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
        item.id = `edit-task:${node.file}:${node.index}:${node.what}:${node.name}`;
        item.description = node.what;
        item.iconPath = new vscode.ThemeIcon(node.what === "regressed" ? "arrow-down" : node.what === "improved" ? "arrow-up" : "debug-disconnect");
        item.command = { command: COMMANDS.showEditDiff.id, title: "Open the transcripts before and after", arguments: [node.file, node.index, node.name] };
        return item;
      }
      case "run": {
        const { run } = node;
        const item = new vscode.TreeItem(run.label, vscode.TreeItemCollapsibleState.None);
        item.id = `run:${run.file}`;
        item.description = `${run.model} \u00b7 ${run.taskSet} \u00b7 ${run.time.toISOString().slice(11, 16)} UTC`;
        item.tooltip = run.file;
        item.iconPath = new vscode.ThemeIcon("graph");
        item.contextValue = "run";
        item.command = { command: COMMANDS.openReport.id, title: "Open Report", arguments: [[run.file]] };
        return item;
      }
    }
  }

  getChildren(node?: Node): Node[] {
    // Nothing at all: the view shows its welcome (Try the Example) instead of two empty groups.
    if (!node) return this.skills.length + this.svc.results.files().length + listRuns(this.svc.layout.runsDir).length === 0 ? [] : [{ kind: "group", id: "skills" }, { kind: "group", id: "runs" }];
    if (node.kind === "group" && node.id === "skills") {
      const byFile = new Map(this.skills.map((s) => [s.file, s]));
      for (const f of this.svc.results.files()) if (!byFile.has(f) && existsSync(f)) byFile.set(f, { name: this.svc.results.get(f)!.name, file: f });
      return [...byFile.values()]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((s) => {
          const result = this.svc.results.get(s.file);
          return { kind: "skill", name: s.name, file: s.file, ...(result ? { result } : {}) };
        });
    }
    if (node.kind === "group") {
      const days = new Map<string, RunEntry[]>();
      for (const r of listRuns(this.svc.layout.runsDir)) {
        const day = r.time.toISOString().slice(0, 10);
        days.set(day, [...(days.get(day) ?? []), r]);
      }
      return [...days.entries()].map(([day, runs]) => ({ kind: "day", day, runs }));
    }
    if (node.kind === "day") return node.runs.map((run) => ({ kind: "run", run }));
    if (node.kind === "skill") return (this.svc.edits?.of(node.file) ?? []).map((entry, index) => ({ kind: "edit", file: node.file, index, entry }));
    if (node.kind === "edit") {
      const d = node.entry.diff;
      const of = (names: string[], what: string): Node[] => names.map((name) => ({ kind: "editTask", file: node.file, index: node.index, name, what }));
      return [...of(d.regressedTasks, "regressed"), ...of(d.improvedTasks, "improved"), ...of(d.triggerChanged.gained, "now loads the skill"), ...of(d.triggerChanged.lost, "no longer loads it")];
    }
    return [];
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** Deletes run files with their ablation files, after the user confirms (unless `confirmed`, for tests). */
async function deleteRuns(svc: Services, runs: RunEntry[], what: string, confirmed: boolean): Promise<number> {
  if (runs.length === 0) {
    void vscode.window.showInformationMessage("No older runs to delete: each skill, task set and model has only its latest run.");
    return 0;
  }
  if (!confirmed) {
    const ok = "Delete";
    const pick = await vscode.window.showWarningMessage(`Delete ${what}?`, { modal: true, detail: "The run files and their ablation files are removed; the caches stay, so evaluating again is free." }, ok);
    if (pick !== ok) return 0;
  }
  for (const r of runs) {
    for (const f of [r.file, ...siblingAblationFiles(r.file)]) await rm(f, { force: true });
    svc.runs.forget(r.file);
  }
  svc.logger.info(`deleted ${runs.length} run file(s): ${runs.map((r) => path.basename(r.file)).join(", ")}`);
  return runs.length;
}

export function deleteRun(svc: Services, node: unknown, confirmed = false): Promise<number> {
  const file = (node as { run?: RunEntry } | undefined)?.run?.file ?? (typeof node === "string" ? node : undefined);
  const run = file ? listRuns(path.dirname(file)).find((r) => r.file === file) : undefined;
  if (!run) return Promise.resolve(0);
  return deleteRuns(svc, [run], path.basename(run.file), confirmed);
}

export function deleteOldRuns(svc: Services, confirmed = false): Promise<number> {
  const old = oldRuns(listRuns(svc.layout.runsDir));
  return deleteRuns(svc, old, `${old.length} older run file${old.length === 1 ? "" : "s"} (the latest run of each skill, task set and model is kept)`, confirmed);
}
