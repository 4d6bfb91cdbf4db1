import type { SkillResult } from "./report-view-model.js";

/**
 * A skill's results kept per configuration (issue 24): a library run or Compare Models adds results of other
 * configurations next to the skill's own verdict instead of overwriting it. No `vscode` import: the store
 * (results-store.ts) keeps this table in workspaceState, and unit tests drive it under plain node.
 *
 * A configuration is (skill content hash, model, task set, scope): the scope is `skill` for an evaluation of the
 * skill alone, else the library it was retrieved from (its verdict depends on the other skills and on the family
 * Holm corrects over).
 */

/** One skill's results: every configuration's latest, and the task set the author last evaluated it on alone. */
export interface SkillConfigs {
  results: Record<string, SkillResult>;
  /** The task-set file of the skill's last evaluation on its own (the configuration its author chose). */
  chosenTaskSet?: string;
}

export type ResultTable = Record<string, SkillConfigs>;

/** `skill` when the run evaluated this skill alone, else `library of <n> skills`. */
export function scopeOf(result: Pick<SkillResult, "libraryHash" | "librarySize">): string {
  return result.librarySize === undefined || result.librarySize <= 1 ? "skill" : `library:${result.libraryHash ?? result.librarySize}`;
}

/** What a result is about, without the content hash: a newer result of the same configuration replaces the older. */
function sameConfig(a: SkillResult, b: SkillResult): boolean {
  return a.model === b.model && a.taskSetFile === b.taskSetFile && scopeOf(a) === scopeOf(b) && (a.mode ?? "") === (b.mode ?? "");
}

export function configKey(r: SkillResult): string {
  return JSON.stringify([r.contentHash, r.model, r.taskSetFile, scopeOf(r), r.mode ?? ""]);
}

/**
 * Adds results to the table (a new object; the input is not changed). A result replaces only its own configuration
 * (and that configuration's result for an older content of the skill); an evaluation of the skill alone also records
 * its task set as the one the author chose.
 */
export function addResults(table: ResultTable, results: readonly SkillResult[]): ResultTable {
  const out: ResultTable = { ...table };
  for (const r of results) {
    const prev = out[r.file] ?? { results: {} };
    const kept = Object.fromEntries(Object.entries(prev.results).filter(([, old]) => !sameConfig(old, r)));
    kept[configKey(r)] = r;
    out[r.file] = { ...prev, results: kept, ...(scopeOf(r) === "skill" ? { chosenTaskSet: r.taskSetFile } : {}) };
  }
  return out;
}

function newest(rs: SkillResult[]): SkillResult | undefined {
  return [...rs].sort((a, b) => b.evaluatedAt.localeCompare(a.evaluatedAt))[0];
}

/**
 * The result the CodeLens and the diagnostic show: the configured model on the task set the author last evaluated
 * the skill on alone, the skill's own evaluation before a library run, the newest among equals. Without a result of
 * the configured model, the skill's newest own evaluation, else the newest result.
 */
export function shownResult(configs: SkillConfigs | undefined, configuredModel: string | undefined): SkillResult | undefined {
  if (!configs) return undefined;
  const all = Object.values(configs.results);
  if (all.length === 0) return undefined;
  const rank = (r: SkillResult) => (r.model === configuredModel ? 4 : 0) + (configs.chosenTaskSet !== undefined && r.taskSetFile === configs.chosenTaskSet ? 2 : 0) + (scopeOf(r) === "skill" ? 1 : 0);
  const best = Math.max(...all.map(rank));
  return newest(all.filter((r) => rank(r) === best));
}

/** The other configurations' results of the skill (not the one shown), newest first, one per configuration. */
export function otherResults(configs: SkillConfigs | undefined, shown: SkillResult | undefined): SkillResult[] {
  if (!configs) return [];
  const rest = Object.values(configs.results).filter((r) => r !== shown && !(shown && configKey(r) === configKey(shown)));
  return rest.sort((a, b) => b.evaluatedAt.localeCompare(a.evaluatedAt));
}

/** Reads the table as stored, also from the first format (one result per file, issue 24 before). */
export function migrateTable(v1: Record<string, SkillResult> | undefined, v2: ResultTable | undefined): ResultTable {
  if (v2) return v2;
  return addResults({}, Object.values(v1 ?? {}));
}
