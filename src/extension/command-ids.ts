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
