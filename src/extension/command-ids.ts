/**
 * Every command the extension contributes, without importing `vscode`, so a plain-node unit test can diff this
 * table against `package.json` `contributes.commands` (ids drift otherwise). The handler table in commands.ts is
 * typed `Record<CommandId, …>`, so a command listed here without a handler does not compile.
 */
export const COMMANDS = {
  evaluateSkill: { id: "skillFollowing.evaluateSkill", title: "Evaluate This Skill", palette: true },
  evaluateLibrary: { id: "skillFollowing.evaluateLibrary", title: "Evaluate Skill Library…", palette: true },
  compareModels: { id: "skillFollowing.compareModels", title: "Compare Models…", palette: true },
  openReport: { id: "skillFollowing.openReport", title: "Open Report…", palette: true },
  downloadTaskSet: { id: "skillFollowing.downloadTaskSet", title: "Download Task Set…", palette: true },
  setApiKey: { id: "skillFollowing.setApiKey", title: "Set API Key", palette: true },
  cancelEvaluation: { id: "skillFollowing.cancelEvaluation", title: "Cancel Evaluation", palette: true },
  exportReport: { id: "skillFollowing.exportReport", title: "Export Report", palette: true },
  showLog: { id: "skillFollowing.showLog", title: "Show Log", palette: true },
  /** First run: copies the example skills into a folder, opens the harmful one and evaluates it on a built-in set. */
  tryExample: { id: "skillFollowing.tryExample", title: "Try the Example", palette: true },
  /** Where model calls go: an OpenAI key, Ollama, LM Studio, another OpenAI-compatible URL or a VS Code model. */
  chooseEndpoint: { id: "skillFollowing.chooseEndpoint", title: "Choose Model Endpoint…", palette: true },
  /** Issue 25: the agent that runs the tasks: the built-in loop or a real harness (Codex CLI, Claude Code) found here. */
  chooseAgent: { id: "skillFollowing.chooseAgent", title: "Choose Agent…", palette: true },
  /** The Skill Following view: delete one run file (with its ablation files). */
  deleteRun: { id: "skillFollowing.deleteRun", title: "Delete Run", palette: false },
  /** Delete every run file but the latest of each skill, task set and model. */
  deleteOldRuns: { id: "skillFollowing.deleteOldRuns", title: "Delete Old Runs…", palette: true },
  refreshResults: { id: "skillFollowing.refreshResults", title: "Refresh", palette: false },
  /** The task set evaluations offer first (built-in, downloaded or a file of your own). */
  chooseTaskSet: { id: "skillFollowing.chooseTaskSet", title: "Choose Task Set…", palette: true },
  /** Section ablation of the active SKILL.md (issue 13): which section harms. */
  findWhatHarms: { id: "skillFollowing.findWhatHarms", title: "Find What Harms", palette: true },
  /** The quick fix on a harmful section: delete it, save, re-evaluate incrementally. */
  removeSectionAndReevaluate: { id: "skillFollowing.removeSectionAndReevaluate", title: "Remove This Section and Re-evaluate", palette: false },
  /** Opened from the report, a code action or a test: the enabled/disabled side-by-side of one task. */
  openTaskComparison: { id: "skillFollowing.openTaskComparison", title: "Open Task Comparison", palette: false },
  /** The code action on an evaluated SKILL.md: opens the report of its last run scrolled to the harmed tasks. */
  showHarmedTasks: { id: "skillFollowing.showHarmedTasks", title: "Show Harmed Tasks", palette: false },
  /** Issue 28: evaluates the SKILL.md at HEAD (git extension API) and as saved, and shows what the difference changed. */
  compareWithCommitted: { id: "skillFollowing.compareWithCommitted", title: "Compare with Committed Version", palette: true },
  /** Issue 28: an evaluated edit as the two SKILL.md versions side by side, with its improved and regressed tasks. */
  showEditDiff: { id: "skillFollowing.showEditDiff", title: "Show What This Edit Changed", palette: true },
} as const;

export type CommandKey = keyof typeof COMMANDS;
export type CommandId = (typeof COMMANDS)[CommandKey]["id"];

export const COMMAND_CATEGORY = "Skill Following";

/** The view type of the report panel (also used by the WebviewPanelSerializer and `onWebviewPanel:` activation). */
export const REPORT_VIEW_TYPE = "skillFollowing.report";

/** URI scheme of the read-only transcript documents opened in the diff editor. */
export const TRANSCRIPT_SCHEME = "skill-following-transcript";

/** SecretStorage key of the OpenAI-compatible endpoint's API key. */
export const API_KEY_SECRET = "skillFollowing.apiKey";

/**
 * Walkthrough steps are ticked by these context keys (package.json `completionEvents: onContext:…`), which the
 * extension sets only when the step really happened: `onCommand:` would tick a step when its command is invoked,
 * also when it is refused (untrusted workspace) or stops on an error (HTTP 401) with nothing saved.
 */
export const WALKTHROUGH_CONTEXTS = {
  endpoint: "skillFollowing.walkthrough.endpointChosen",
  example: "skillFollowing.walkthrough.exampleEvaluated",
  taskset: "skillFollowing.walkthrough.taskSetChosen",
  evaluate: "skillFollowing.walkthrough.skillEvaluated",
} as const;

export type WalkthroughStep = keyof typeof WALKTHROUGH_CONTEXTS;

/** Commands whose success completes a step (chooseEndpoint and tryExample complete theirs themselves). */
export const WALKTHROUGH_STEP_OF: Partial<Record<CommandKey, WalkthroughStep>> = { chooseTaskSet: "taskset", downloadTaskSet: "taskset", evaluateSkill: "evaluate" };

/** A command's return value that means it did what it was asked: not undefined/false, not a cancelled evaluation. */
export function succeeded(outcome: unknown): boolean {
  if (outcome === undefined || outcome === null || outcome === false) return false;
  return !(typeof outcome === "object" && (outcome as { cancelled?: unknown }).cancelled === true);
}
