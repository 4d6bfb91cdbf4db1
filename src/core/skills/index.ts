export type { Finding, Skill } from "./types.js";
export { SKILL_FINDING_CODES, type SkillFindingCode } from "./codes.js";
export { normaliseSkillContent, skillContentHash, skillLibraryHash } from "./hash.js";
export { checkSkillName, lintSkillText, parseSkill } from "./parse.js";
export { DEFAULT_SKILL_ROOTS, findSkillRoots, firstInvalidUtf8, readSkillFile, scanSkills } from "./scan.js";
