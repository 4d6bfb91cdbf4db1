export * from "./schema.js";
export { loadTaskSet } from "./load.js";
export { readLines, type RawLine } from "../line-reader.js";
export { EVALS_FILE, SKILL_EVALS, loadSkillEvals, loadTriggerEvals, withTriggerTasks } from "./skill-evals.js";
