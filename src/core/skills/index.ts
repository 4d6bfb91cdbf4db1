export type { Finding, Skill, SkillScan } from "./types.js";
export { SKILL_FINDING_CODES, type SkillFindingCode } from "./codes.js";
export { normaliseSkillContent, sha256Hex, skillContentHash, skillLibraryHash } from "./hash.js";
export {
  BODY_LINES_ADVICE,
  BODY_WORDS_ADVICE,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SKILL_FILE_BYTES,
  checkSkillName,
  lintSkillText,
  parseSkill,
  suggestSkillName,
} from "./parse.js";
export { DEFAULT_SKILL_ROOTS, findSkillRoots, firstInvalidUtf8, readSkillFile, scanSkills } from "./scan.js";
