export * from "./schema.js";
export { ACCEPTED_FORMATS, gsm8kFinalAnswer, gsm8kImporter, math500Importer, nativeImporter, zodReason } from "./importers.js";
export { TASK_IMPORTERS, baseName, hashFile, loadTaskSet, type LoadTaskSetOptions } from "./load.js";
export { isGzipFile, readLines, type LineReaderOptions, type RawLine } from "../line-reader.js";
export { EVALS_FILE, SKILL_EVALS, loadSkillEvals, loadTriggerEvals, taskSetOf, withTriggerTasks, type SkillEvalsOptions } from "./skill-evals.js";
export { EvalsFileSchema, TriggerSetSchema, evalsJsonSchema } from "./evals-file.js";
export { skillEvalMessage } from "./skill-eval-message.js";
