/** The plain-data report model and its renderers. No I/O, no vscode: CLI, extension and webview share it. */
export * from "./schema.js";
export { buildReport, type BuildOptions, type RunInput } from "./build.js";
export * from "./sections-schema.js";
export * from "./skill-evals-schema.js";
export { attachSections, sectionsByHarm, INTERACTIONS_NOTE, type AblationInput } from "./sections.js";
export { failOn, type FailOnMode } from "./fail-on.js";
export { renderJson } from "./render-json.js";
export { renderText } from "./render-text.js";
export { renderMarkdown } from "./render-markdown.js";
export { renderJUnit } from "./render-junit.js";
export { renderCsv } from "./render-csv.js";
export { renderHtml } from "./render-html.js";
export { renderSarif, REPORT_SARIF_RULES, type SarifOptions } from "./render-sarif.js";
export { escapeHtml, escapeMarkdown, escapeXml } from "./format.js";
export { skillCreatorExport, type ExportFile } from "./skill-creator.js";
export { changedSkillDiffs, diffSkill, diffRegressed, SkillDiffSchema, type SkillDiff, type DiffInput } from "./diff.js";
export { inspectExport, INSPECT_SCORER, type InspectExport } from "./inspect.js";
export { renderDiffJson, renderDiffMarkdown, renderDiffText } from "./render-diff.js";
