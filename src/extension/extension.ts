import * as vscode from "vscode";
import path from "node:path";
import { COMMANDS, REPORT_VIEW_TYPE } from "./command-ids.js";
import { createAgentStatus } from "./agent-picker.js";
import { registerCommands } from "./commands.js";
import { createConfig } from "./config.js";
import { SkillDiagnostics, VerdictCodeActions } from "./diagnostics.js";
import { SkillCodeLenses } from "./codelens.js";
import { SkillFixCodeActions } from "./skill-fixes.js";
import { RESULTS_VIEW, ResultsTree } from "./results-tree.js";
import { SectionCodeActions, SectionCodeLenses } from "./ablation-ui.js";
import { SectionResultsStore } from "./section-results.js";
import { registerEvaluateOnSave } from "./evaluate-flow.js";
import { EvaluationRunner, extensionLayout } from "./evaluation.js";
import { createLogger } from "./logger.js";
import { ReportPanels, type ReportHost } from "./report-panel.js";
import { buildReportModel } from "./report-view-model.js";
import { reportStaleness } from "./report-staleness.js";
import { ResultsStore } from "./results-store.js";
import { RunFiles } from "./run-files.js";
import { createSecrets } from "./secrets.js";
import type { Services } from "./services.js";
import { openTaskComparison, registerTranscripts } from "./transcripts.js";
import { SkillTests } from "./testing.js";
import { EditHistory } from "./edit-history.js";
import { registerSkillVersions } from "./edit-diff.js";

/**
 * The composition root: build the services once, then one register call per feature, each returning disposables
 * owned by the extension. An activation failure is shown to the user, then rethrown so VS Code records it too.
 * The returned API exists for the integration tests (state the UI shows, without scraping it).
 */
export interface SkillFollowingApi {
  readonly services: Services;
}

export async function activate(ext: vscode.ExtensionContext): Promise<SkillFollowingApi> {
  const logger = createLogger("Skill Following");
  ext.subscriptions.push(logger);
  try {
    const config = createConfig(logger);
    const secrets = createSecrets(ext.secrets, logger);
    const results = new ResultsStore(ext.workspaceState, () => config.get().model);
    const runs = new RunFiles();
    const layout = extensionLayout(vscode.workspace.workspaceFolders?.[0], ext.globalStorageUri);
    const runner = new EvaluationRunner(logger, path.join(ext.extensionUri.fsPath, "dist"), layout);
    const host: ReportHost = {
      load: async (files) => {
        const { report, view } = buildReportModel(await Promise.all(files.map((f) => runs.load(f))), config.get().alpha);
        const stale = reportStaleness(report, files, (skill) => results.get(skill)?.runFile);
        return { report, view: stale ? { ...view, stale } : view };
      },
      openTask: (runFile, taskId, sample) => openTaskComparison(runFile, taskId, sample),
      exportReport: async (_panel, format) => {
        await vscode.commands.executeCommand(COMMANDS.exportReport.id, format);
      },
      evaluateAgain: async (skillFile) => {
        await vscode.commands.executeCommand(COMMANDS.evaluateSkill.id, vscode.Uri.file(skillFile));
      },
    };
    const reports = new ReportPanels(ext.extensionUri, host, logger);
    const sections = new SectionResultsStore(ext.workspaceState);
    const diagnostics = new SkillDiagnostics(results, config, sections);
    const edits = new EditHistory(ext.workspaceState);
    const svc: Services = { ext, logger, config, secrets, results, runs, runner, reports, diagnostics, sections, layout, edits };
    const lenses = new SkillCodeLenses(results, edits);
    const tree = new ResultsTree(svc);
    svc.tree = tree;
    const testing = new SkillTests(svc);
    svc.testing = testing;
    const sectionLenses = new SectionCodeLenses(sections, results);
    const skillSelector: vscode.DocumentSelector = { scheme: "file", pattern: "**/SKILL.md" };

    ext.subscriptions.push(
      config,
      secrets,
      results,
      runner,
      reports,
      sections,
      diagnostics,
      lenses,
      ...registerCommands(svc),
      createAgentStatus(svc),
      registerTranscripts(runs),
      registerSkillVersions(svc),
      vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, reports),
      vscode.languages.registerCodeLensProvider(skillSelector, lenses),
      vscode.languages.registerCodeActionsProvider(skillSelector, new VerdictCodeActions(), { providedCodeActionKinds: VerdictCodeActions.kinds }),
      vscode.languages.registerCodeActionsProvider(skillSelector, new SkillFixCodeActions(), { providedCodeActionKinds: SkillFixCodeActions.kinds }),
      sectionLenses,
      vscode.languages.registerCodeLensProvider(skillSelector, sectionLenses),
      vscode.languages.registerCodeActionsProvider(skillSelector, new SectionCodeActions(sections), { providedCodeActionKinds: SectionCodeActions.kinds }),
      registerEvaluateOnSave(svc),
      tree,
      testing,
      vscode.window.createTreeView(RESULTS_VIEW, { treeDataProvider: tree, showCollapseAll: true }),
      // A saved skill, or a new result, can make an open report stale (or current again): its banner follows.
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (path.basename(doc.uri.fsPath) === "SKILL.md") void reports.refreshSkills([doc.uri.fsPath]);
      }),
      results.onDidChange((files) => void reports.refreshSkills(files)),
      // Which configuration the CodeLens and the diagnostics show follows the configured model.
      config.onDidChange(() => results.refresh()),
    );
    void vscode.commands.executeCommand("setContext", "skillFollowing.evaluating", false);
    logger.info(`activated (VS Code ${vscode.version}, workspace data in ${layout.root}, trusted: ${vscode.workspace.isTrusted})`);
    return { services: svc };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    logger.error(e);
    void vscode.window.showErrorMessage(`Skill Following failed to start: ${e.message}`);
    throw e;
  }
}

export function deactivate(): void {
  // Everything is owned by ext.subscriptions and disposed by VS Code.
}
