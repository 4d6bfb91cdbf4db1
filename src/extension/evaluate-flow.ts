import * as vscode from "vscode";
import path from "node:path";
import { readSkillFile } from "../core/skills/index.js";
import type { Skill } from "../core/skills/types.js";
import { EVALS_FILE, SKILL_EVALS, loadSkillEvals, loadTaskSet } from "../core/tasks/index.js";
import type { TaskSet } from "../core/tasks/schema.js";
import { sha256Hex, skillContentHash } from "../core/skills/hash.js";
import { keepSkillVersion, recordEdit } from "./edit-history.js";
import { COMMANDS } from "./command-ids.js";
import { needs } from "./errors-ui.js";
import { freshRunFile } from "../core/layout.js";
import { runSettingsFromConfig } from "./config-schema.js";
import { resolveJudge, resolveModel } from "./models/client.js";
import { pickModels, pickTaskSet, rememberModel, rememberTaskSet } from "./pickers.js";
import { buildReportView, skillResults } from "./report-view-model.js";
import type { Services } from "./services.js";
import { isSkillDocument } from "./skill-documents.js";
import { existsSync, readFileSync } from "node:fs";
import type { ReportView } from "../shared/report-view.js";

/** Options a caller (CodeLens, evaluate-on-save, tests, Compare Models) may fix so no picker is shown. */
export interface EvaluateOptions {
  taskSet?: string;
  model?: string;
  /** Do not open or reveal the report panel (evaluate-on-save refreshes open panels instead). */
  background?: boolean;
  /** The skill has its own evals: the task-set picker offers them first. */
  ownEvals?: { skill: string; cases: number };
  /** Compare Models: which of the models this is ("model 2 of 3 (name)"). */
  ordinal?: string;
  /**
   * Another text than the skill's file (Compare with Committed Version evaluates the SKILL.md at HEAD): the run is
   * made, but it is not the skill's result (CodeLens, diagnostics, open reports) and records no edit.
   */
  detached?: boolean;
}

export interface EvaluateOutcome {
  runFile: string;
  cancelled: boolean;
  view?: ReportView;
}

/**
 * Restricted Mode (untrustedWorkspaces: limited): SKILL.md checks and reports work; an evaluation explains why it
 * needs trust and offers to grant it.
 */
export async function requireTrust(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  await needs(
    "Evaluations run model-generated code and call the model endpoint this workspace's settings name, so they need a trusted workspace. SKILL.md checks and reports work without it.",
    "Trust This Workspace…",
    () => vscode.commands.executeCommand("workbench.trust.manage"),
  );
  return false;
}

/** Evaluates `skills` as the library on one task set with one model; returns the run file (undefined if the user backed out). */
export async function runEvaluation(svc: Services, skills: Skill[], label: string, opts: EvaluateOptions = {}): Promise<EvaluateOutcome | undefined> {
  if (!(await requireTrust())) return undefined;
  if (svc.runner.running) {
    await needs("An evaluation is already running.", "Cancel It", () => vscode.commands.executeCommand(COMMANDS.cancelEvaluation.id));
    return undefined;
  }
  const taskSetFile = opts.taskSet ?? (await pickTaskSet(svc, opts.ownEvals));
  if (!taskSetFile) return undefined;
  const modelName = opts.model ?? (await pickModels(svc, false))?.[0];
  if (!modelName) return undefined;
  if (opts.taskSet && opts.taskSet !== SKILL_EVALS) await rememberTaskSet(svc, opts.taskSet);
  if (opts.model) await rememberModel(svc, opts.model);

  // One skill evaluated from its file: its text is kept and, once the run is done, compared with the previous run.
  const single = skills.length === 1 && !opts.detached ? skills[0] : undefined;
  if (single) keepEvaluatedText(svc, single);
  const cfg = svc.config.get();
  const settings = runSettingsFromConfig(cfg);
  // A local model loads on its first call; `dispose` frees it once the evaluation is over.
  const model = await resolveModel(svc, modelName, settings);
  const { modelName: resolvedModel, baseUrl, dispose } = model;
  const judge = await resolveJudge(svc, settings, { modelName: resolvedModel, ...(baseUrl ? { baseUrl } : {}) });
  // The whole set: the engine applies the limit itself, after the seeded shuffle when stopping early.
  const taskSet: TaskSet = taskSetFile === SKILL_EVALS ? loadSkillEvals(skills) : await loadTaskSet(taskSetFile);
  for (const issue of taskSet.issues.slice(0, 20)) svc.logger.warn(`${issue.file}:${issue.line}${issue.column !== undefined ? `:${issue.column}` : ""}: ${issue.message}`);
  if (taskSet.issues.length > 20) svc.logger.warn(`… and ${taskSet.issues.length - 20} more problems in ${taskSetFile}`);

  // A cancelled evaluation with the same inputs is resumed rather than started over. How fast it runs (concurrency,
  // timeout, caching) does not make it another evaluation.
  const { concurrency: _c, timeoutSeconds: _t, responseCache: _r, ...identity } = settings;
  const configKey = sha256Hex(JSON.stringify([skills.map((s) => `${s.name}:${s.contentHash}`).sort(), taskSet.hash, resolvedModel, baseUrl, identity]));
  const pending = svc.results.incompleteRun(configKey);
  const resume = pending !== undefined && existsSync(pending);
  const runFile = resume ? pending : freshRunFile(svc.layout, { label, taskSet: taskSet.name, model: resolvedModel });
  svc.logger.info(`${resume ? "resuming" : "starting"} evaluation of ${label} on ${taskSet.name} (${taskSet.tasks.length} tasks) with ${resolvedModel} → ${runFile}`);

  const outcome = await svc.runner
    .run({ skills, taskSet, model, ...(judge ? { judge } : {}), settings, label, runFile, resume, ...(opts.ordinal ? { ordinal: opts.ordinal } : {}) })
    .catch(async (err: unknown) => {
      // A failed evaluation (bad key, endpoint down) keeps its finished runs: the next identical one resumes it.
      if (existsSync(runFile)) await svc.results.setIncompleteRun(configKey, runFile);
      throw err;
    })
    .finally(() => dispose?.());
  if (outcome.cancelled) {
    await svc.results.setIncompleteRun(configKey, runFile);
    const done = outcome.result?.records.length;
    void vscode.window
      .showInformationMessage(`Evaluation of ${label} cancelled${done !== undefined ? ` after ${done} runs` : ""}. Finished runs are kept; evaluating again resumes.`, "Open Report")
      .then((pick) => (pick ? svc.reports.open([runFile]) : undefined));
    return { runFile, cancelled: true };
  }
  await svc.results.setIncompleteRun(configKey, undefined);
  if (outcome.result && outcome.result.failedRuns > 0) {
    void vscode.window.showWarningMessage(`${outcome.result.failedRuns} runs failed (${outcome.result.lastError ?? "model errors"}); evaluating again retries them.`, "Show Log").then((p) => {
      if (p) svc.logger.show();
    });
  }
  svc.runs.forget(runFile);
  const run = await svc.runs.load(runFile);
  const view = buildReportView([run], cfg.alpha);
  if (opts.detached) return { runFile, cancelled: false, view };
  const previous = single ? svc.results.get(single.file) : undefined;
  const now = skillResults(run, view);
  await svc.results.set(now);
  const mine = single && now.find((r) => r.name === single.name);
  if (single && svc.edits && previous && mine && previous.model === mine.model && previous.taskSetFile === mine.taskSetFile) {
    await recordEdit(svc, svc.edits, single.name, single.file, previous.runFile, runFile);
  }
  if (opts.background) {
    // The report of this skill the user has open now shows the new run (or its stale banner, if the skill changed again).
    if (!opts.ordinal) await svc.reports.retargetSkills(skills.map((s) => s.file), runFile);
    await svc.reports.refreshRun(runFile);
    const h = view.headline;
    vscode.window.setStatusBarMessage(`Skill Following: ${label} re-evaluated · ${h.rescued} rescued · ${h.harmed} harmed where retrieved`, 10_000);
  } else await svc.reports.openEvaluation(skills.map((s) => s.file), runFile);
  return { runFile, cancelled: false, view };
}

/** The SKILL.md text as evaluated, kept by hash (when the file still holds the text that was parsed). */
function keepEvaluatedText(svc: Services, skill: Skill): void {
  try {
    const text = readFileSync(skill.file, "utf8");
    if (skillContentHash(text) === skill.contentHash) keepSkillVersion(svc.layout, skill.contentHash, text);
  } catch (err) {
    svc.logger.warn(`${skill.file}: its text could not be kept for edit diffs: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function targetUri(uri: unknown): vscode.Uri | undefined {
  if (uri instanceof vscode.Uri) return uri;
  const doc = vscode.window.activeTextEditor?.document;
  return doc && isSkillDocument(doc) ? doc.uri : undefined;
}

export async function evaluateSkill(svc: Services, uriArg?: unknown, opts: EvaluateOptions = {}): Promise<EvaluateOutcome | undefined> {
  const uri = targetUri(uriArg);
  if (!uri || path.basename(uri.fsPath) !== "SKILL.md") {
    await needs("Open a SKILL.md to evaluate it.", "Open a SKILL.md", () => vscode.commands.executeCommand("workbench.action.quickOpen", "SKILL.md"));
    return undefined;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) await open.save();
  const { skill, findings } = await readSkillFile(uri.fsPath);
  if (!skill) {
    const first = findings.find((f) => f.severity === "error") ?? findings[0];
    await needs(`${path.basename(path.dirname(uri.fsPath))}/SKILL.md cannot be evaluated: ${first?.message ?? "it does not parse"} (line ${first?.line ?? 1}).`, "Show Problems", () =>
      vscode.commands.executeCommand("workbench.actions.view.problems"),
    );
    return undefined;
  }
  const last = svc.results.get(uri.fsPath);
  // Re-evaluating from the CodeLens or a quick fix reuses the last task set and model: one click, no pickers.
  const reuse = last && uriArg instanceof vscode.Uri ? { taskSet: last.taskSetFile, model: last.model } : {};
  return runEvaluation(svc, [skill], skill.name, { ...reuse, ...ownEvalsOf(skill), ...opts });
}

/** A skill with evals/evals.json is offered its own evals first (the count is what a quick read finds). */
function ownEvalsOf(skill: Skill): Pick<EvaluateOptions, "ownEvals"> {
  const file = path.join(skill.dir, EVALS_FILE);
  if (!existsSync(file)) return {};
  let cases = 0;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { evals?: unknown };
    cases = Array.isArray(parsed.evals) ? parsed.evals.length : 0;
  } catch {
    // A broken file is still offered: evaluating it names the line and column of the problem.
  }
  return { ownEvals: { skill: skill.name, cases } };
}

/** With skillFollowing.evaluateOnSave, saving an evaluated SKILL.md re-evaluates it (cache makes it incremental). */
export function registerEvaluateOnSave(svc: Services): vscode.Disposable {
  return vscode.workspace.onDidSaveTextDocument(async (doc) => {
    if (!isSkillDocument(doc) || !svc.config.get().evaluateOnSave) return;
    // Said in the log, so a save that did not re-evaluate is not a mystery.
    if (svc.runner.running) {
      svc.logger.info(`${doc.uri.fsPath} saved: not re-evaluated, an evaluation is running (evaluate again when it ends)`);
      return;
    }
    const last = svc.results.get(doc.uri.fsPath);
    if (!last) {
      svc.logger.info(`${doc.uri.fsPath} saved: not re-evaluated, it has no evaluation yet to repeat (evaluate it once first)`);
      return;
    }
    svc.logger.info(`${doc.uri.fsPath} saved: re-evaluating (only changed model calls are re-issued)`);
    try {
      await evaluateSkill(svc, doc.uri, { taskSet: last.taskSetFile, model: last.model, background: true });
    } catch (err) {
      svc.logger.error(err instanceof Error ? err : String(err));
    }
  });
}
