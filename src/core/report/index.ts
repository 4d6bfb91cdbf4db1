/** The plain-data report model and its renderers. No I/O, no vscode: CLI, extension and webview share it. */
export * from "./schema.js";
export { buildReport } from "./build.js";
export * from "./sections-schema.js";
export * from "./skill-evals-schema.js";
export { failOn } from "./fail-on.js";
export { renderJson } from "./render-json.js";
export { renderText } from "./render-text.js";
export { renderMarkdown } from "./render-markdown.js";
export { renderJUnit } from "./render-junit.js";
export { renderCsv } from "./render-csv.js";
export { renderHtml } from "./render-html.js";
export { renderSarif } from "./render-sarif.js";
export { skillCreatorExport } from "./skill-creator.js";
export { changedSkillDiffs, diffSkill, diffRegressed, type SkillDiff, type DiffInput } from "./diff.js";
export { inspectExport, INSPECT_SCORER } from "./inspect.js";
export { renderDiffJson, renderDiffMarkdown, renderDiffText } from "./render-diff.js";
