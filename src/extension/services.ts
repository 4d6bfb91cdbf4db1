import type * as vscode from "vscode";
import type { WorkspaceLayout } from "../core/layout.js";
import type { ConfigFacade } from "./config.js";
import type { SkillDiagnostics } from "./diagnostics.js";
import type { EvaluationRunner } from "./evaluation.js";
import type { ExtensionLogger } from "./logger.js";
import type { ReportPanels } from "./report-panel.js";
import type { ResultsStore } from "./results-store.js";
import type { RunFiles } from "./run-files.js";
import type { Secrets } from "./secrets.js";
import type { SectionResultsStore } from "./section-results.js";
import type { EditHistory } from "./edit-history.js";

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
  /** Find What Harms results per SKILL.md (issue 13). */
  sections: SectionResultsStore;
  /** Where run files, reports and caches live (`<workspace>/.skill-following/…`, shared with the CLI). */
  layout: WorkspaceLayout;
  /** What each evaluated edit of a skill changed (issue 28). */
  edits?: EditHistory;
  /** The Skill Following view (set once it is registered). */
  tree?: { refresh(): void };
  /** The Testing view (testing.ts; set once it is registered). */
  testing?: import("./testing.js").SkillTests;
}
