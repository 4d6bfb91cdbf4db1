/**
 * Re-running a run with another text of one skill (issue 28, "what did my edit change"). Everything but that text is
 * the run's: its tasks and their order, the model, the sampling parameters, the retrieval mode, the design and the
 * rest of the library. So every request before the edited text reaches the model is byte-identical to the run's and
 * comes from the response cache: an edit to the body costs exactly the continuations after the load, an edit to
 * the description (the catalog) the enabled calls, and an unchanged text nothing.
 */
import { InputError } from "../errors.js";
import { parseSkill } from "../skills/parse.js";
import type { Skill } from "../skills/types.js";
import { parseRunSettings, type RunSettings } from "../settings.js";
import type { RunHeader } from "./types.js";

/**
 * The evaluation options that reproduce `h`'s selection and requests. `extra` sets what a header does not record
 * (concurrency, timeout, the Python runtime…); what the header does record wins over it.
 */
export function settingsFromHeader(h: RunHeader, file: string, extra: Partial<RunSettings> = {}): RunSettings {
  if (h.shard) {
    throw new InputError(`${file}: this run file is shard ${h.shard.index}/${h.shard.count} of a run; merge the shards into one run file and compare that`, { file, hintIds: ["runFile"] });
  }
  const decided = h.stopWhen === "decided";
  // The selection is the first taskIds.length tasks of the (shuffled when decided) set: a limit reproduces it.
  const limit = h.taskIds.length < h.taskSet.size ? h.taskIds.length : undefined;
  return parseRunSettings({
    ...extra,
    mode: h.mode,
    ...(h.search ? { topK: h.search.topK, searchThreshold: h.search.threshold } : {}),
    design: h.design,
    raeOnlyControl: h.control?.q ?? 0,
    samples: h.params.samples,
    temperature: h.params.temperature ?? 0,
    seed: h.params.seed,
    maxTokens: h.params.maxTokens,
    maxTurns: h.params.maxTurns,
    limit,
    stopWhen: h.stopWhen,
    ...(decided && h.shuffleSeed !== undefined ? { shuffleSeed: h.shuffleSeed } : h.control ? { shuffleSeed: h.control.seed } : {}),
    ...(h.judge ? { judgeModel: h.judge.model, judgeRepeats: h.judge.repeats } : {}),
    // Batch pricing is not reproduced: batch requests are the synchronous bodies, so the cache answers either way.
    batch: false,
  });
}

/**
 * The library with skill `name` read from `text` instead (at its own file, so its folder's other files are the ones
 * the agent can read). `origin` names where the text came from in errors (a git ref, a file).
 */
export function withSkillText(library: readonly Skill[], name: string, file: string, text: string, origin: string): Skill[] {
  const parsed = parseSkill(file, text);
  if (!parsed.skill) {
    const first = parsed.findings.find((f) => f.severity === "error") ?? parsed.findings[0];
    throw new InputError(`${origin}: the SKILL.md there does not load${first ? ` (line ${first.line}: ${first.message})` : ""}`, { file: origin });
  }
  if (parsed.skill.name !== name) {
    throw new InputError(`${origin}: that SKILL.md is named '${parsed.skill.name}', not '${name}'; a diff compares two versions of one skill`, { file: origin });
  }
  const at = library.findIndex((s) => s.name === name);
  if (at < 0) return [...library, parsed.skill];
  return library.map((s, i) => (i === at ? parsed.skill! : s));
}
