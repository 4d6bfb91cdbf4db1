import type * as vscode from "vscode";
import type { ConfigFacade } from "./config.js";
import type { SkillDiagnostics } from "./diagnostics.js";
import type { EvaluationRunner } from "./evaluation.js";
import type { ExtensionLogger } from "./logger.js";
import type { ReportPanels } from "./report-panel.js";
import type { ResultsStore } from "./results-store.js";
import type { RunFiles } from "./run-files.js";
import type { Secrets } from "./secrets.js";

/** What activate() builds once and hands to every feature. No module-level mutable state anywhere else. */
export interface Services {
  ext: vscode.ExtensionContext;
  logger: ExtensionLogger;
  config: ConfigFacade;
  secrets: Secrets;
  results: ResultsStore;
  runs: RunFiles;
  runner: EvaluationRunner;
  reports: ReportPanels;
  diagnostics: SkillDiagnostics;
  /** `<workspace>/.skill-following` (run files, response cache). */
  dataDir: string;
}
