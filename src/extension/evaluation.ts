import * as vscode from "vscode";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { CancelledError } from "../core/errors.js";
import { dataDirOf, ensureDataDir, workspaceLayout, type WorkspaceLayout } from "../core/layout.js";
import type { EvaluationProgress, EvaluationResult } from "../core/runs/evaluate.js";
import type { RunSettings } from "../core/settings.js";
import type { Skill } from "../core/skills/types.js";
import type { TaskSet } from "../core/tasks/schema.js";
import type { ExtensionLogger } from "./logger.js";
import { progressLine, progressPercent, progressShort } from "../shared/progress.js";
import { COMMANDS } from "./command-ids.js";
import { runInEngineProcess } from "./engine-process.js";
import type { ResolvedJudge, ResolvedModel } from "./models/client.js";

/**
 * Owns the one evaluation that may run at a time in this window: its progress notification, its cancellation and
 * the disposables of its lifetime. Cancelling keeps every finished run in the run file; the next identical
 * evaluation resumes it.
 */
export interface EvaluationRequest {
  skills: Skill[];
  taskSet: TaskSet;
  /** The evaluated model: what the engine process builds, and the host's client when it answers the requests. */
  model: ResolvedModel;
  /** Skill evals: the judge when it is not the evaluated model. */
  judge?: ResolvedJudge;
  settings: RunSettings;
  /** Label for the notification, e.g. the skill name. */
  label: string;
  /** In Compare Models: "model 2 of 3 (name)", shown in the notification and the status bar. */
  ordinal?: string;
  runFile: string;
  resume: boolean;
  onProgress?: (p: EvaluationProgress) => void;
}

export interface EvaluationOutcome {
  result?: EvaluationResult;
  cancelled: boolean;
}

/** The shared layout (src/core/layout.ts) under the first workspace folder, or under global storage without one. */
export function extensionLayout(folder: vscode.WorkspaceFolder | undefined, globalStorage: vscode.Uri): WorkspaceLayout {
  return workspaceLayout(folder ? dataDirOf(folder.uri.fsPath) : path.join(globalStorage.fsPath, "workspace"));
}

export class EvaluationRunner implements vscode.Disposable {
  private current: { controller: AbortController; label: string } | undefined;
  private readonly finishedEmitter = new vscode.EventEmitter<EvaluationOutcome>();
  readonly onDidFinish = this.finishedEmitter.event;

  constructor(
    private readonly logger: ExtensionLogger,
    /** The extension's dist/ folder: the engine process (engine-host.js) and the sandbox worker beside it. */
    readonly distDir: string,
    private readonly layout: WorkspaceLayout,
  ) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  cancel(): boolean {
    if (!this.current) return false;
    this.logger.info(`cancelling evaluation of ${this.current.label}`);
    this.current.controller.abort();
    return true;
  }

  async run(request: EvaluationRequest): Promise<EvaluationOutcome> {
    if (this.current) throw new Error(`an evaluation (${this.current.label}) is already running; cancel it first`);
    // Before any run file or cache entry: the data folder's `.gitignore`, so Source Control never lists them.
    ensureDataDir(this.layout);
    const controller = new AbortController();
    this.current = { controller, label: request.label };
    await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", true);
    try {
      await mkdir(path.dirname(request.runFile), { recursive: true });
      // A status-bar item for as long as the run goes, so it is visible after the notification is hidden.
      const status = vscode.window.createStatusBarItem("skillFollowing.progress", vscode.StatusBarAlignment.Left, 10);
      status.name = "Skill Following evaluation";
      status.text = `$(sync~spin) ${request.label}: starting`;
      status.command = COMMANDS.showLog.id;
      status.show();
      const title = `Evaluating ${request.label}${request.ordinal ? ` · ${request.ordinal}` : ""}`;
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => controller.abort());
          let reported = 0;
          let lastMessage = "";
          try {
            // The engine runs in a process of its own (engine-process.ts): model calls, the sandbox and grading never
            // hold this host's event loop. It builds the client, the grader and the judge from these specs.
            const { layout } = this;
            const { result, cancelled } = await runInEngineProcess({
              start: {
                settings: request.settings,
                skills: request.skills,
                taskSet: request.taskSet,
                client: request.model.spec,
                model: request.model.modelName,
                ...(request.model.baseUrl ? { baseUrl: request.model.baseUrl } : {}),
                ...(request.judge ? { judge: request.judge.spec } : {}),
                runFile: request.runFile,
                resume: request.resume,
                dirs: { responsesDir: layout.responsesDir, expectedDir: layout.expectedDir, verdictsDir: layout.verdictsDir },
                distDir: this.distDir,
                harnessSearchFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
              },
              hosts: { ...(request.model.host ? { model: request.model.host } : {}), ...(request.judge?.host ? { judge: request.judge.host } : {}) },
              logger: this.logger,
              signal: controller.signal,
              onProgress: (p) => {
                const pct = progressPercent(p);
                const message = progressLine(p);
                if (message !== lastMessage || pct > reported) progress.report({ increment: Math.max(0, pct - reported), message });
                lastMessage = message;
                reported = Math.max(reported, pct);
                status.text = `$(sync~spin) ${request.label}${request.ordinal ? ` (${request.ordinal})` : ""}: ${progressShort(p)}`;
                status.tooltip = `${title}\n${message}\nClick for the log; Skill Following: Cancel Evaluation stops it (finished runs are kept).`;
                request.onProgress?.(p);
              },
            });
            return { result, cancelled: cancelled || controller.signal.aborted };
          } catch (err) {
            if (err instanceof CancelledError || controller.signal.aborted) return { cancelled: true };
            throw err;
          } finally {
            sub.dispose();
            status.dispose();
          }
        },
      );
      this.finishedEmitter.fire(outcome);
      return outcome;
    } finally {
      this.current = undefined;
      await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", false);
    }
  }

  /**
   * Runs other work as this window's one evaluation (Find What Harms): the same lock, `skillFollowing.evaluating`
   * context and Cancel Evaluation command as run(); the body gets the cancel signal (and runs its engine process).
   */
  async exclusive<T>(label: string, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.current) throw new Error(`an evaluation (${this.current.label}) is already running; cancel it first`);
    ensureDataDir(this.layout);
    const controller = new AbortController();
    this.current = { controller, label };
    await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", true);
    try {
      return await body(controller.signal);
    } finally {
      this.current = undefined;
      await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", false);
    }
  }

  dispose(): void {
    this.current?.controller.abort();
    this.finishedEmitter.dispose();
  }
}
