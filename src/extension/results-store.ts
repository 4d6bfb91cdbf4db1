import * as vscode from "vscode";
import path from "node:path";
import type { SkillResult } from "./report-view-model.js";

const KEY = "skillFollowing.results.v1";
const INCOMPLETE_KEY = "skillFollowing.incompleteRuns.v1";

/**
 * The last evaluation result of each SKILL.md in this workspace (kept in workspaceState), read by the CodeLens and
 * the diagnostics; plus the run file of each cancelled evaluation, so the next identical one resumes it.
 */
export class ResultsStore implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string[]>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly memento: vscode.Memento) {}

  private all(): Record<string, SkillResult> {
    return this.memento.get<Record<string, SkillResult>>(KEY, {});
  }

  get(file: string): SkillResult | undefined {
    return this.all()[path.resolve(file)];
  }

  files(): string[] {
    return Object.keys(this.all());
  }

  async set(results: SkillResult[]): Promise<void> {
    const all = { ...this.all() };
    for (const r of results) all[path.resolve(r.file)] = r;
    await this.memento.update(KEY, all);
    this.emitter.fire(results.map((r) => path.resolve(r.file)));
  }

  async clear(): Promise<void> {
    const files = this.files();
    await this.memento.update(KEY, {});
    this.emitter.fire(files);
  }

  incompleteRun(configKey: string): string | undefined {
    return this.memento.get<Record<string, string>>(INCOMPLETE_KEY, {})[configKey];
  }

  async setIncompleteRun(configKey: string, runFile: string | undefined): Promise<void> {
    const all = { ...this.memento.get<Record<string, string>>(INCOMPLETE_KEY, {}) };
    if (runFile) all[configKey] = runFile;
    else delete all[configKey];
    await this.memento.update(INCOMPLETE_KEY, all);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
