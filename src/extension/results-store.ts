import * as vscode from "vscode";
import path from "node:path";
import type { SkillResult } from "./report-view-model.js";
import { addResults, migrateTable, otherResults, shownResult, type ResultTable } from "./result-configs.js";

const KEY_V1 = "skillFollowing.results.v1";
const KEY = "skillFollowing.results.v2";
const INCOMPLETE_KEY = "skillFollowing.incompleteRuns.v1";

/**
 * The evaluation results of each SKILL.md in this workspace per configuration (model, task set, alone or in a
 * library; result-configs.ts), kept in workspaceState. `get` is the one the CodeLens and the diagnostics show (the
 * configured model on the author's task set), `others` the rest. Plus the run file of each cancelled evaluation, so
 * the next identical one resumes it.
 */
export class ResultsStore implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string[]>();
  readonly onDidChange = this.emitter.event;

  /** `configuredModel`: the model the settings name (skillFollowing.model), read each time. */
  constructor(
    private readonly memento: vscode.Memento,
    private readonly configuredModel: () => string | undefined = () => undefined,
  ) {}

  private all(): ResultTable {
    return migrateTable(this.memento.get<Record<string, SkillResult>>(KEY_V1), this.memento.get<ResultTable>(KEY));
  }

  /** The result shown for the skill: the configuration its author chose (see shownResult). */
  get(file: string): SkillResult | undefined {
    return shownResult(this.all()[path.resolve(file)], this.configuredModel());
  }

  /** The skill's results of other configurations than the one `get` shows, newest first. */
  others(file: string): SkillResult[] {
    const configs = this.all()[path.resolve(file)];
    return otherResults(configs, shownResult(configs, this.configuredModel()));
  }

  files(): string[] {
    return Object.keys(this.all());
  }

  /** Adds results; each replaces only the result of its own configuration. */
  async set(results: SkillResult[]): Promise<void> {
    await this.memento.update(KEY, addResults(this.all(), results.map((r) => ({ ...r, file: path.resolve(r.file) }))));
    this.emitter.fire(results.map((r) => path.resolve(r.file)));
  }

  async clear(): Promise<void> {
    const files = this.files();
    await this.memento.update(KEY, {});
    await this.memento.update(KEY_V1, undefined);
    this.emitter.fire(files);
  }

  /** The configured model changed: what is shown may change with it. */
  refresh(): void {
    this.emitter.fire(this.files());
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
