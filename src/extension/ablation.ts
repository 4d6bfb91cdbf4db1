import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ResumeMismatchError } from "../core/errors.js";
import { pythonRuntimeOf } from "../core/grading/index.js";
import { planAblation, type AblationPlan, type AblationPlanInput, type AblationResult } from "../core/runs/ablate.js";
import type { StartAblation } from "../core/runs/engine-protocol.js";
import { defaultAblationFile } from "../core/runs/ablation-store.js";
import { describeEstimate } from "../core/runs/ablation-plan.js";
import { scanSkills } from "../core/skills/index.js";
import { skillContentHash } from "../core/skills/hash.js";
import { sectionDeletionRange } from "../core/skills/sections.js";
import { loadSkillEvals, loadTaskSet } from "../core/tasks/index.js";
import { COMMANDS } from "./command-ids.js";
import { runSettingsFromConfig } from "./config-schema.js";
import { needs } from "./errors-ui.js";
import { evaluateSkill, requireTrust, type EvaluateOutcome } from "./evaluate-flow.js";
import { runAblationInEngineProcess } from "./engine-process.js";
import { resolveModel, type ResolvedModel } from "./models/client.js";
import { assertRunWeights, isLocalModelName, runLocalModelName } from "../core/models/local/catalog.js";
import { buildReportModel } from "./report-view-model.js";
import { toStored, type SkillSectionResults } from "./section-results.js";
import type { Services } from "./services.js";
import { isSkillDocument } from "./skill-documents.js";

/** Options tests (and other commands) may fix. */
export interface FindWhatHarmsOptions {
  /** false: skip the cost confirmation (tests; the CLI prints instead). */
  confirm?: boolean;
  /** Fraction of the skill's both-pass tasks to include (default 0.25). */
  control?: number;
  pairs?: boolean;
}

export interface FindWhatHarmsOutcome {
  ablationFile: string;
  cancelled: boolean;
  result?: SkillSectionResults;
}

function targetUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const doc = vscode.window.activeTextEditor?.document;
  return doc && isSkillDocument(doc) ? doc.uri : undefined;
}

/**
 * Find What Harms on a SKILL.md: the section ablation of its last evaluation. Checks the skill is the text that was
 * evaluated, shows the costs and asks, runs as the window's one evaluation (cancellable, resumable), then stores the
 * per-section results for the diagnostics and CodeLenses and opens the report with its sections table.
 */
export async function findWhatHarms(svc: Services, uriArg?: unknown, opts: FindWhatHarmsOptions = {}): Promise<FindWhatHarmsOutcome | undefined> {
  if (!(await requireTrust())) return undefined;
  const uri = targetUri(uriArg);
  if (!uri) {
    await needs("Open a SKILL.md to find what harms in it.", "Open a SKILL.md", () => vscode.commands.executeCommand("workbench.action.quickOpen", "SKILL.md"));
    return undefined;
  }
  if (svc.runner.running) {
    await needs("An evaluation is already running.", "Cancel It", () => vscode.commands.executeCommand(COMMANDS.cancelEvaluation.id));
    return undefined;
  }
  const last = svc.results.get(uri.fsPath);
  if (!last || !existsSync(last.runFile)) {
    await needs("Find What Harms compares the skill with and without each section on the tasks of its last evaluation: evaluate it first.", "Evaluate This Skill", () =>
      vscode.commands.executeCommand(COMMANDS.evaluateSkill.id, uri),
    );
    return undefined;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) await open.save();
  const skillText = await readFile(uri.fsPath, "utf8");
  if (skillContentHash(skillText) !== last.contentHash) {
    await needs(`${last.name} changed since its last evaluation; re-evaluate it first so that the sections refer to the text evaluated.`, "Re-evaluate", () =>
      vscode.commands.executeCommand(COMMANDS.evaluateSkill.id, uri),
    );
    return undefined;
  }
  const run = await svc.runs.load(last.runFile);
  const h = run.header;
  const scan = await scanSkills(h.skills.map((s) => s.file));
  // A run on the skills' own evals reads them again from the library (the header names their folder, not a file).
  const taskSet = h.taskSet.format === "skill-evals" ? loadSkillEvals(scan.skills) : await loadTaskSet(h.taskSet.file);
  const settings = runSettingsFromConfig(svc.config.get());
  // A local run re-runs its own GGUF (checked by sha256); `dispose` frees it afterwards. Section ablation calls
  // the model one request at a time, whatever the batch setting.
  const local = isLocalModelName(h.model.name);
  const model = await resolveModel(svc, local ? runLocalModelName(h.model) : h.model.name, { ...settings, batch: false });
  if (local && model.host?.weights) assertRunWeights(h.model, model.host.weights);
  const options: StartAblation["options"] = {
    run: { file: run.file, header: h, records: run.records },
    skills: scan.skills,
    skillName: last.name,
    skillText,
    taskSet,
    concurrency: settings.concurrency,
    // A harness run's ablation is confined as the run was, or unconfined only when the setting allows it.
    agentUnconfined: settings.agentUnconfined,
    resume: true,
    ...(opts.control !== undefined ? { control: opts.control } : {}),
    ...(opts.pairs ? { pairs: true } : {}),
  };
  const base: AblationPlanInput = { ...options, logger: svc.logger };
  const plan = await planOrFresh(base);
  const e = plan.estimate;
  svc.logger.info(`Find What Harms: ${describeEstimate(e, last.name)} → ${plan.file}`);
  if (opts.confirm !== false && plan.pending > 0) {
    const detail = `${e.variants} sections × ${e.tasks} tasks (${plan.header.selection.harmed.length} harmed, ${plan.header.selection.rescued.length} rescued, ${plan.header.selection.bothPassSampled.length} both-pass) × ${e.samples} sample${e.samples === 1 ? "" : "s"} = ${e.runs} runs${e.pairRuns ? ` + ${e.pairRuns} for pairs` : ""}${plan.existing.length ? ` (${plan.existing.length} already done)` : ""}. About ${e.newCalls} new model calls to ${h.model.name} (the turns after load_skill); the ${e.cachedCalls} earlier calls come from the response cache.`;
    const go = await vscode.window.showWarningMessage(`Find what harms in ${last.name}?`, { modal: true, detail }, "Run");
    if (go !== "Run") return undefined;
  }
  // The run's own sandbox runtime: its verdicts are what the variants are compared with.
  const result = await ablateInEngine(svc, `Find What Harms: ${last.name}`, `Finding what harms in ${last.name}`, {
    plan,
    options,
    client: model.spec,
    // The run's own sandbox runtime: its verdicts are what the variants are compared with.
    python: pythonRuntimeOf(h.sandbox),
    responseCache: settings.responseCache,
    dirs: { responsesDir: svc.layout.responsesDir, expectedDir: svc.layout.expectedDir, verdictsDir: svc.layout.verdictsDir },
    distDir: svc.runner.distDir,
  }, model);
  if (result.stopReason === "cancelled") {
    void vscode.window.showInformationMessage(`Find What Harms in ${last.name} cancelled after ${result.records.length} runs. Finished runs are kept; running it again resumes.`);
    return { ablationFile: result.file, cancelled: true };
  }
  if (result.failedRuns > 0) void vscode.window.showWarningMessage(`${result.failedRuns} ablation runs failed (${result.lastError ?? "model errors"}); running Find What Harms again retries them.`);
  svc.runs.forget(run.file);
  const reloaded = await svc.runs.load(run.file);
  const { report } = buildReportModel([reloaded], svc.config.get().alpha);
  const skill = report.evaluations.flatMap((ev) => ev.skills).find((s) => s.name === last.name && s.contentHash === last.contentHash);
  const stored: SkillSectionResults = {
    file: uri.fsPath,
    skill: last.name,
    contentHash: last.contentHash,
    runFile: run.file,
    ablationFile: result.file,
    model: last.model,
    taskSet: last.taskSet,
    evaluatedAt: new Date().toISOString(),
    sections: (skill?.sections ?? []).map(toStored),
  };
  await svc.sections.set(stored);
  await svc.reports.open([run.file]);
  return { ablationFile: result.file, cancelled: false, result: stored };
}

/**
 * Runs the ablation as this window's one evaluation, in an engine process (engine-process.ts), with a cancellable
 * progress notification; frees the model's resources (a local model's weights) when it ends.
 */
async function ablateInEngine(svc: Services, label: string, title: string, start: Omit<StartAblation, "type">, model: ResolvedModel): Promise<AblationResult> {
  return svc.runner.exclusive(label, async (signal) =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      const sub = token.onCancellationRequested(onAbort);
      let reported = 0;
      try {
        return await runAblationInEngineProcess({
          start,
          hosts: model.host ? { model: model.host } : {},
          logger: svc.logger,
          signal: controller.signal,
          onProgress: (p) => {
            const pct = p.total > 0 ? (100 * p.done) / p.total : 0;
            progress.report({ increment: Math.max(0, pct - reported), message: `${p.done}/${p.total} runs without one section` });
            reported = Math.max(reported, pct);
          },
        });
      } finally {
        sub.dispose();
        signal.removeEventListener("abort", onAbort);
        await model.dispose?.();
      }
    }),
  );
}

/** Resume the default ablation file when it is this ablation's; otherwise start a new one beside it. */
async function planOrFresh(base: AblationPlanInput): Promise<AblationPlan> {
  try {
    return await planAblation(base);
  } catch (err) {
    if (!(err instanceof ResumeMismatchError)) throw err;
    const first = defaultAblationFile(base.run.file, base.skillName);
    let out = first;
    for (let i = 2; existsSync(out); i++) out = first.replace(/\.jsonl$/, `-${i}.jsonl`);
    return planAblation({ ...base, out });
  }
}

/**
 * The quick fix on a harmful section: delete exactly the lines the ablation removed (the section and the blank lines
 * after it), save, and re-evaluate with the last task set and model. The response cache makes that incremental: only
 * the requests after load_skill are new; the disabled runs and everything before the load are reused.
 */
export async function removeSectionAndReevaluate(svc: Services, uriArg?: unknown, sectionId?: unknown): Promise<EvaluateOutcome | undefined> {
  const uri = targetUri(uriArg);
  if (!uri || typeof sectionId !== "string") return undefined;
  const doc = await vscode.workspace.openTextDocument(uri);
  const lines = sectionDeletionRange(doc.getText(), sectionId);
  if (!lines) {
    void vscode.window.showInformationMessage("That section changed or is gone since Find What Harms ran; nothing was removed.");
    return undefined;
  }
  const end = lines.endLine < doc.lineCount ? new vscode.Position(lines.endLine, 0) : doc.lineAt(doc.lineCount - 1).range.end;
  const edit = new vscode.WorkspaceEdit();
  edit.delete(uri, new vscode.Range(new vscode.Position(lines.startLine - 1, 0), end));
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not edit ${path.basename(uri.fsPath)}`);
  await doc.save();
  svc.logger.info(`removed lines ${lines.startLine}–${lines.endLine} of ${uri.fsPath}; re-evaluating (only the calls after load_skill are new)`);
  return evaluateSkill(svc, uri);
}
