import * as vscode from "vscode";
import { mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { CancelledError } from "../core/errors.js";
import { createGrader } from "../core/grading/index.js";
import type { ModelClient } from "../core/models/types.js";
import { evaluate, type EvaluationProgress, type EvaluationResult } from "../core/runs/evaluate.js";
import type { Skill } from "../core/skills/types.js";
import type { TaskSet } from "../core/tasks/schema.js";
import type { Config } from "./config-schema.js";
import type { ExtensionLogger } from "./logger.js";
import { signed } from "../shared/format.js";

/**
 * Owns the one evaluation that may run at a time in this window: its progress notification, its cancellation and
 * the disposables of its lifetime. Cancelling keeps every finished run in the run file; the next identical
 * evaluation resumes it.
 */
export interface EvaluationRequest {
  skills: Skill[];
  taskSet: TaskSet;
  client: ModelClient;
  modelName: string;
  baseUrl?: string;
  config: Config;
  /** Label for the notification, e.g. the skill name. */
  label: string;
  runFile: string;
  resume: boolean;
  onProgress?: (p: EvaluationProgress) => void;
}

export interface EvaluationOutcome {
  result?: EvaluationResult;
  cancelled: boolean;
}

export function workspaceDataDir(folder: vscode.WorkspaceFolder | undefined, globalStorage: vscode.Uri): string {
  return folder ? path.join(folder.uri.fsPath, ".skill-following") : path.join(globalStorage.fsPath, "workspace");
}

export function runFileName(label: string, taskSet: string, model: string, now = new Date()): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "x";
  const stamp = now.toISOString().replace(/[:.]/g, "").replace("Z", "").replace("T", "-");
  return `${clean(label)}--${clean(taskSet)}--${clean(model)}--${stamp}.jsonl`;
}

export class EvaluationRunner implements vscode.Disposable {
  private current: { controller: AbortController; label: string } | undefined;
  private readonly finishedEmitter = new vscode.EventEmitter<EvaluationOutcome>();
  readonly onDidFinish = this.finishedEmitter.event;

  constructor(
    private readonly logger: ExtensionLogger,
    private readonly distDir: string,
    private readonly cacheDir: string,
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
    const controller = new AbortController();
    this.current = { controller, label: request.label };
    await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", true);
    const grader = createGrader({ logger: this.logger, distDir: this.distDir, cacheDir: path.join(this.cacheDir, "expected"), verdictCacheDir: path.join(this.cacheDir, "verdicts") });
    try {
      await mkdir(path.dirname(request.runFile), { recursive: true });
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Evaluating ${request.label}`, cancellable: true },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => controller.abort());
          let reported = 0;
          try {
            const c = request.config;
            const result = await evaluate({
              skills: request.skills,
              taskSet: request.taskSet,
              client: request.client,
              model: request.modelName,
              ...(request.baseUrl ? { baseUrl: request.baseUrl } : {}),
              grader,
              mode: c.retrievalMode,
              design: c.design,
              ...(c.design === "rae-only" && c.raeOnlyControl > 0 ? { control: { q: c.raeOnlyControl } } : {}),
              samples: c.samples,
              params: {
                temperature: c.temperature,
                ...(c.seed !== undefined ? { seed: c.seed } : {}),
                ...(c.maxTokens !== undefined ? { maxTokens: c.maxTokens } : {}),
              },
              maxTurns: c.maxTurns,
              concurrency: c.concurrency,
              ...(c.taskLimit !== undefined ? { limit: c.taskLimit } : {}),
              runFile: request.runFile,
              resume: request.resume,
              alpha: c.alpha,
              isolation: grader.prepare(c.taskLimit !== undefined ? request.taskSet.tasks.slice(0, c.taskLimit) : request.taskSet.tasks),
              logger: this.logger,
              signal: controller.signal,
              onProgress: (p) => {
                const pct = p.total > 0 ? (p.done / p.total) * 100 : 0;
                progress.report({
                  increment: Math.max(0, pct - reported),
                  message: `${p.done}/${p.total} runs · ${p.retrievals} retrievals · running RAE ${signed(p.runningRae)}`,
                });
                reported = Math.max(reported, pct);
                request.onProgress?.(p);
              },
            });
            return { result, cancelled: result.stopReason === "cancelled" || controller.signal.aborted };
          } catch (err) {
            if (err instanceof CancelledError || controller.signal.aborted) return { cancelled: true } as EvaluationOutcome;
            throw err;
          } finally {
            sub.dispose();
          }
        },
      );
      this.finishedEmitter.fire(outcome);
      return outcome;
    } finally {
      this.current = undefined;
      await grader.dispose().catch((err: unknown) => this.logger.warn(`grader dispose: ${String(err)}`));
      await vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", false);
    }
  }

  dispose(): void {
    this.current?.controller.abort();
    this.finishedEmitter.dispose();
  }
}

/** A run file path that does not exist yet (two evaluations may start within the same millisecond). */
export function freshRunFile(dir: string, label: string, taskSet: string, model: string): string {
  const base = path.join(dir, runFileName(label, taskSet, model));
  let file = base;
  for (let i = 2; existsSync(file); i++) file = base.replace(/\.jsonl$/, `-${i}.jsonl`);
  return file;
}
