/**
 * Section ablation (issue 13): re-run the enabled condition of a paired run with one section of one skill deleted
 * from the text `load_skill` returns. The catalog (names and descriptions), the tools, the prompts, the model, its
 * parameters, the sample indexes and every other skill are those of the run, so every request before the skill
 * text reaches the model is byte-identical to the run's and comes from the response cache: only the continuations
 * after the load are new. Records go to a sibling ablation file (ablation-types.ts); resume and cancellation work as
 * for `evaluate()`.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { DEFAULT_MAX_TURNS } from "../agent/loop.js";
import { InputError, ResumeMismatchError } from "../errors.js";
import { JUDGE_VERSION, type JudgeConfig } from "../grading/judge.js";
import type { Grader } from "../grading/types.js";
import { silentLogger, type Logger } from "../logger.js";
import type { ModelClient } from "../models/types.js";
import { SkillLibrary } from "../retrieval/library.js";
import { parseRunSettings } from "../settings.js";
import { skillContentHash, skillLibraryHash } from "../skills/hash.js";
import { bodyWithout, DESCRIPTION_SECTION_ID, splitSkillSections } from "../skills/sections.js";
import type { Skill } from "../skills/types.js";
import type { Task, TaskSet } from "../tasks/schema.js";
import { TOOL_VERSION } from "../version.js";
import { estimateAblation, fullOutcomes, jobsFor, pairVariants, selectTasks, singleVariants, type AblationEstimate, type AblationJob } from "./ablation-plan.js";
import { parseAblationSettings, type AblationSettings, type AblationSettingsInput } from "./ablation-settings.js";
import { defaultAblationFile, readAblationFile } from "./ablation-store.js";
import { ABLATION_FORMAT_VERSION, variantSections, type AblationHeader, type AblationRecord, type AblationSection } from "./ablation-types.js";
import { judgeConfig } from "./factory.js";
import { prepareHarness } from "./harness.js";
import { executeJob, RunFailures, type JobContext } from "./job.js";
import { boundListeners, runPool } from "./pool.js";
import { holdsNoCompleteLine, RunWriter, type WriterLabel } from "./store.js";
import type { RunHeader, RunRecord } from "./types.js";

/** An ablation: the run it re-runs and what to run it with, plus its settings (ablation-settings.ts). */
export interface AblateOptions extends AblationSettingsInput {
  /** The paired run: its file (named in the header) and contents. */
  run: { file: string; header: RunHeader; records: RunRecord[] };
  /** The library as evaluated: every skill of the run header, with the same content hashes. */
  skills: Skill[];
  skillName: string;
  /** The target SKILL.md's text as evaluated (its content hash must equal the run's). */
  skillText: string;
  taskSet: TaskSet;
  client: ModelClient;
  grader: Grader;
  /** Skill evals with free-text expectations: the judge (the run header's judge model; default the run's model). */
  judge?: { client: ModelClient; model: string };
  out?: string;
  resume: boolean;
  logger?: Logger;
  signal?: AbortSignal;
  onProgress?: (p: { done: number; total: number }) => void;
  onRecord?: (r: AblationRecord) => void;
}

export interface AblationPlan {
  file: string;
  header: AblationHeader;
  existing: AblationRecord[];
  estimate: AblationEstimate;
  /** Runs still to do in the single-section phase (all of them on a fresh file). */
  pending: number;
}

export interface AblationResult {
  file: string;
  header: AblationHeader;
  records: AblationRecord[];
  failedRuns: number;
  lastError?: string;
  stopReason?: "cancelled";
}

/** What planning needs: everything but the means to run. */
export type AblationPlanInput = Omit<AblateOptions, "client" | "grader">;

/** Checks the inputs against the run and decides the whole single-section phase; nothing is written or asked. */
export async function planAblation(o: AblationPlanInput): Promise<AblationPlan> {
  const h = o.run.header;
  if (h.shard) {
    // A shard holds only some tasks: the harmed and rescued tasks to ablate are those of the whole run.
    throw new InputError(`${o.run.file}: shard ${h.shard.index}/${h.shard.count} of a run; merge the ${h.shard.count} shard files first and ablate the merged run file`, {
      file: o.run.file,
      hint: "Merge the shard files of the run into one run file, then ablate that.",
    });
  }
  const entry = h.skills.find((s) => s.name === o.skillName);
  if (!entry) throw new InputError(`${o.run.file}: the run has no skill named '${o.skillName}' (it has ${h.skills.map((s) => s.name).join(", ") || "none"})`, { file: o.run.file });
  if (skillContentHash(o.skillText) !== entry.contentHash) {
    throw new InputError(`${entry.file}: changed since the run was made (content hash differs); section lines and results must refer to the text evaluated: restore it, or run the paired evaluation again first`, { file: entry.file });
  }
  if (skillLibraryHash(o.skills) !== h.skillLibraryHash) {
    const changed = h.skills.filter((s) => !o.skills.some((x) => x.name === s.name && x.contentHash === s.contentHash)).map((s) => s.name);
    throw new InputError(`${o.run.file}: the skill library differs from the run's (${changed.join(", ") || "skills added"}): the catalog must be the one evaluated`, { file: o.run.file });
  }
  if (o.taskSet.hash !== h.taskSet.hash) throw new InputError(`${o.taskSet.file}: not the task set the run used (hash differs)`, { file: o.taskSet.file });
  const settings = parseAblationSettings(o);
  if (settings.description && h.agent) {
    throw new InputError(`${o.run.file}: the run's agent is the ${h.agent.id} harness, which builds its skill list from the installed SKILL.md files; ablating the description is for runs of the built-in agent`, { file: o.run.file });
  }
  const samples = settings.samples ?? h.params.samples;
  if (!Number.isInteger(samples) || samples < 1 || samples > h.params.samples) {
    throw new InputError(`samples must be a whole number from 1 to the run's ${h.params.samples} (got ${samples}): each ablated sample pairs with the full skill's sample of the same index`, { hintIds: ["samples"] });
  }
  const q = settings.control;
  const seed = settings.seed ?? h.shuffleSeed ?? 1;

  const split = splitSkillSections(o.skillText);
  const toSection = (s: (typeof split.sections)[number]): AblationSection => ({ id: s.id, heading: s.heading, path: s.path, kind: s.kind, startLine: s.startLine, endLine: s.endLine, contentHash: s.contentHash });
  const sections = [...split.sections.map(toSection), ...(settings.description && split.description ? [toSection(split.description)] : [])];
  if (sections.length === 0) throw new InputError(`${entry.file}: the skill has no body sections to ablate`, { file: entry.file });
  const ref = { name: entry.name, contentHash: entry.contentHash };
  const selection = selectTasks(fullOutcomes(h, o.run.records, ref), q, seed);
  const { taskIds, ...sel } = selection;
  if (taskIds.length === 0) {
    throw new InputError(`${o.run.file}: ${o.skillName} was never returned on a task it rescued or harmed (nor on a sampled both-pass task): nothing to ablate`, { file: o.run.file });
  }
  const header: AblationHeader = {
    type: "ablation-header",
    formatVersion: ABLATION_FORMAT_VERSION,
    toolVersion: TOOL_VERSION,
    ablationId: randomUUID(),
    createdAt: new Date().toISOString(),
    parent: { runFile: o.run.file, runId: h.runId, modelId: h.model.id, model: h.model.name, taskSetHash: h.taskSet.hash, mode: h.mode, promptVersion: h.promptVersion },
    skill: { name: entry.name, contentHash: entry.contentHash, file: entry.file },
    sections,
    selection: sel,
    taskIds,
    samples,
    pairs: settings.pairs,
  };
  const file = o.out ?? defaultAblationFile(o.run.file, entry.name);
  let existing: AblationRecord[] = [];
  let effective = header;
  if (existsSync(file) && o.resume && holdsNoCompleteLine(file)) rmSync(file); // killed while writing its header
  if (existsSync(file)) {
    if (!o.resume) throw new InputError(`${file} already exists`, { file, hint: "Resume it, or choose another ablation file.", hintIds: ["resume", "runFile"] });
    const prior = await readAblationFile(file);
    assertSameAblation(prior.header, header, file);
    effective = prior.header;
    existing = prior.records;
  }
  const done = new Set(existing.map((r) => r.key));
  const variants = singleVariants(effective.sections);
  const estimate = estimateAblation(o.run.records, ref, taskIds, samples, variants, effective.pairs);
  return { file, header: effective, existing, estimate, pending: jobsFor(variants, taskIds, samples, done).length };
}

function assertSameAblation(prior: AblationHeader, now: AblationHeader, file: string): void {
  const diffs: string[] = [];
  if (prior.parent.runId !== now.parent.runId) diffs.push("it belongs to another run");
  if (prior.skill.contentHash !== now.skill.contentHash) diffs.push("the skill changed");
  if (prior.sections.map((s) => s.id).join() !== now.sections.map((s) => s.id).join()) diffs.push("the sections differ (the description ablated or not)");
  if (prior.taskIds.join() !== now.taskIds.join()) diffs.push("the selected tasks differ (the both-pass fraction or the seed changed)");
  if (prior.samples !== now.samples) diffs.push(`the samples changed (${prior.samples} → ${now.samples})`);
  if (prior.pairs !== now.pairs) diffs.push("section pairs were asked for in one and not the other");
  if (diffs.length > 0) {
    throw new ResumeMismatchError(`${file}: cannot resume: ${diffs.join("; ")}`, { file, hint: "Choose another ablation file (unchanged model calls come from the cache for free).", hintIds: ["runFile"] });
  }
}

/** The ablation file's kind and fix, for the engine's writer. */
const ABLATION_FILE: WriterLabel = { what: "ablation file", hint: "Choose another file for it.", hintIds: ["runFile"] };

/**
 * Runs a plan: the single sections, then (with pairs) the pairs among the 3 most harmful. Each run is one job of
 * the engine (job.ts: the run's agent, the built-in loop or its harness, then the grader and judge), in the engine's
 * pool, with its failure rules; only the variant (which sections the served or installed SKILL.md lacks) and the
 * record's type are the ablation's own.
 */
export async function runAblation(plan: AblationPlan, o: AblateOptions): Promise<AblationResult> {
  const settings = parseAblationSettings(o);
  const logger = o.logger ?? silentLogger;
  const h = o.run.header;
  const { header } = plan;
  const tasks = new Map<string, Task>(o.taskSet.tasks.map((t) => [t.id, t]));
  if (h.judge && h.judge.version !== JUDGE_VERSION) {
    logger.warn(`the run was graded by an earlier judge (version ${h.judge.version ?? "1"}, now ${JUDGE_VERSION}): ablated outputs are graded by the current one, so differences may come from the judge; run the evaluation again for a like-for-like comparison`);
  }
  const missing = header.taskIds.filter((id) => !tasks.has(id));
  if (missing.length > 0) throw new InputError(`${o.taskSet.file}: tasks of the run are missing (${missing.slice(0, 3).join(", ")})`, { file: o.taskSet.file });
  const harness = h.agent ? await prepareRunHarness(h, settings, logger) : undefined;
  const writer = existsSync(plan.file) ? RunWriter.append<AblationRecord>(plan.file, ABLATION_FILE) : RunWriter.create<AblationRecord>(plan.file, header, ABLATION_FILE);
  const records: AblationRecord[] = [...plan.existing];
  const done = new Set(records.map((r) => r.key));

  const internal = new AbortController();
  boundListeners(internal.signal, settings.concurrency);
  const onAbort = () => internal.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const failures = new RunFailures(logger);
  let total = records.length + plan.pending;
  const contextFor = variantContexts(o, {
    client: o.client,
    model: h.model.name,
    params: {
      ...(h.params.temperature !== undefined ? { temperature: h.params.temperature } : {}),
      ...(h.params.seed !== undefined ? { seed: h.params.seed } : {}),
      ...(h.params.maxTokens !== undefined ? { maxTokens: h.params.maxTokens } : {}),
    },
    maxTurns: h.params.maxTurns ?? DEFAULT_MAX_TURNS,
    grader: o.grader,
    signal: internal.signal,
    ...judgeOf(o),
    // The run's fixed date: the harness's requests before the load are the run's own, so the cache serves them.
    ...(harness ? { harness: { ...harness.session, fixedDate: h.createdAt.slice(0, 10) } } : {}),
  });

  const runPhase = (jobs: AblationJob[]): Promise<void> =>
    runPool(jobs, {
      concurrency: settings.concurrency,
      signal: internal.signal,
      stopped: () => false,
      run: async (job) => {
        try {
          const run = await executeJob({ key: job.key, task: tasks.get(job.taskId)!, condition: "enabled", sample: job.sample }, contextFor(job.variant));
          const record = ablationRecord(job, run);
          writer.write(record);
          records.push(record);
          done.add(record.key);
          o.onRecord?.(record);
          o.onProgress?.({ done: records.length, total });
        } catch (err) {
          if (failures.book(`ablation run ${job.taskId} without ${job.variant} (sample ${job.sample})`, err, internal.signal.aborted)) internal.abort();
        }
        return [];
      },
    });

  try {
    o.onProgress?.({ done: records.length, total });
    await runPhase(jobsFor(singleVariants(header.sections), header.taskIds, header.samples, done));
    if (header.pairs && !internal.signal.aborted && failures.failedRuns === 0) {
      const full = new Map(fullOutcomes(h, o.run.records, header.skill).map((f) => [f.taskId, f.full]));
      const pairs = pairVariants(header, records, full);
      const pairJobs = jobsFor(pairs, header.taskIds, header.samples, done);
      total += pairJobs.length;
      if (pairs.length > 0) logger.info(`section pairs: ${pairs.length} pairs × ${header.taskIds.length} tasks × ${header.samples} samples (${pairJobs.length} runs to do)`);
      await runPhase(pairJobs);
    }
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    writer.close();
    harness?.dispose();
  }
  if (failures.fatal) throw failures.fatal.error;
  const { failedRuns, lastError } = failures;
  return { file: plan.file, header, records, failedRuns, ...(lastError ? { lastError } : {}), ...(o.signal?.aborted ? { stopReason: "cancelled" as const } : {}) };
}

/**
 * The harness of a run made by one (its header's agent), prepared as for an evaluation. It must be the run's own
 * binary: the full-skill outcomes the variants are compared with are that harness's, and its requests before the
 * load must be the run's for the cache to serve them.
 */
async function prepareRunHarness(h: RunHeader, settings: AblationSettings, logger: Logger): Promise<Awaited<ReturnType<typeof prepareHarness>>> {
  const agent = h.agent!;
  const harness = await prepareHarness(parseRunSettings({ agent: agent.id, agentUnconfined: settings.agentUnconfined, maxTurns: h.params.maxTurns ?? DEFAULT_MAX_TURNS }), false, logger);
  if (harness.info.version !== agent.version || harness.info.sha256 !== agent.sha256) {
    harness.dispose();
    throw new InputError(
      `the run was made with ${agent.id} ${agent.version} (sha256 ${agent.sha256.slice(0, 12)}), but ${harness.info.id} ${harness.info.version} (sha256 ${harness.info.sha256.slice(0, 12)}) is installed: ablated runs would not be comparable with the run's`,
      { hint: "Install the harness version the run used, or evaluate again with this one and ablate that run.", hintIds: ["agent"] },
    );
  }
  return harness;
}

/**
 * One job context per variant: the run's library serving the target skill's body without the variant's sections
 * (the built-in loop's load_skill returns it), the same body for a harness to install as the SKILL.md, and a
 * run group of the variant's own (a harness run's folder is per task × condition × sample, and variants of one task
 * run side by side; a group keeps the folder one level under the work root, where a nested folder per variant made
 * the proxy's socket path too long for a Unix socket under a deep temporary folder).
 */
function variantContexts(o: AblateOptions, base: Omit<JobContext, "library">): (variant: string) => JobContext {
  const h = o.run.header;
  const contexts = new Map<string, JobContext>();
  return (variant) => {
    let ctx = contexts.get(variant);
    if (ctx) return ctx;
    const ids = variantSections(variant);
    const body = bodyWithout(o.skillText, ids.filter((id) => id !== DESCRIPTION_SECTION_ID));
    const servedBody = (s: Skill) => (s.name === o.skillName ? body : s.body);
    const skills = ids.includes(DESCRIPTION_SECTION_ID) ? o.skills.map((s) => (s.name === o.skillName ? { ...s, description: "" } : s)) : o.skills;
    const variantDir = createHash("sha256").update(variant).digest("hex").slice(0, 16);
    ctx = {
      ...base,
      library: new SkillLibrary(skills, h.mode, h.search, servedBody),
      ...(base.harness ? { harness: { ...base.harness, runGroup: variantDir }, servedBody } : {}),
    };
    contexts.set(variant, ctx);
    return ctx;
  };
}

/** The ablation file's record of one run: the engine's run record, keyed by variant instead of condition. */
function ablationRecord(job: AblationJob, run: RunRecord): AblationRecord {
  const { type: _type, key: _key, taskId, condition: _condition, sample, ...rest } = run;
  return { type: "ablation-run", key: job.key, taskId, variant: job.variant, sample, ...rest };
}

/** The judge of an ablation: the run's, at the repeats and completion cap the run graded with. */
function judgeOf(o: AblateOptions): { judge?: JudgeConfig } {
  const h = o.run.header.judge;
  if (!h) return {};
  return { judge: judgeConfig(o.judge ?? { client: o.client, model: h.model }, { repeats: h.repeats, maxTokens: o.run.header.params.maxTokens }) };
}
