/**
 * Section ablation (issue 13): re-run the enabled condition of a paired run with one section of one skill deleted
 * from the text `load_skill` returns. The catalog (names and descriptions), the tools, the prompts, the model, its
 * parameters, the sample indexes and every other skill are those of the run, so every request before the skill
 * text reaches the model is byte-identical to the run's and comes from the response cache: only the continuations
 * after the load are new. Records go to a sibling ablation file (ablation-types.ts); resume and cancellation work as
 * for `evaluate()`.
 */
import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { runAgent, DEFAULT_MAX_TURNS, type AgentResult } from "../agent/loop.js";
import { CancelledError, EndpointUnreachableError, InputError, JudgeError, ModelRequestError } from "../errors.js";
import { JUDGE_VERSION, type JudgeConfig } from "../grading/judge.js";
import type { Grader, Verdict } from "../grading/types.js";
import { silentLogger, type Logger } from "../logger.js";
import type { ModelClient, SamplingParams } from "../models/types.js";
import { SkillLibrary } from "../retrieval/library.js";
import { skillContentHash, skillLibraryHash } from "../skills/hash.js";
import { bodyWithout, DESCRIPTION_SECTION_ID, splitSkillSections } from "../skills/sections.js";
import type { Skill } from "../skills/types.js";
import type { Task, TaskSet } from "../tasks/schema.js";
import { TOOL_VERSION } from "../version.js";
import {
  DEFAULT_ABLATE_CONTROL, estimateAblation, fullOutcomes, jobsFor, pairVariants, selectTasks, singleVariants,
  type AblationEstimate, type AblationJob,
} from "./ablation-plan.js";
import { AblationWriter, defaultAblationFile, hasCompleteLine, readAblationFile } from "./ablation-store.js";
import { ABLATION_FORMAT_VERSION, variantSections, type AblationHeader, type AblationRecord, type AblationSection } from "./ablation-types.js";
import type { RunHeader, RunRecord } from "./types.js";
import { boundListeners } from "./pool.js";

export interface AblateOptions {
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
  /** Samples per task and variant (default: the run's; at most the run's, since each pairs with a full-skill sample). */
  samples?: number;
  concurrency: number;
  /** Fraction of the skill's both-pass tasks to include (default 0.25). */
  control?: number;
  seed?: number;
  pairs?: boolean;
  /** Also ablate the frontmatter description (changes the catalog, so its calls are all new). */
  description?: boolean;
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
  const samples = o.samples ?? h.params.samples;
  if (!Number.isInteger(samples) || samples < 1 || samples > h.params.samples) {
    throw new InputError(`samples must be a whole number from 1 to the run's ${h.params.samples} (got ${samples}): each ablated sample pairs with the full skill's sample of the same index`, { hintIds: ["samples"] });
  }
  const q = o.control ?? DEFAULT_ABLATE_CONTROL;
  if (!(q >= 0 && q <= 1)) throw new InputError(`the fraction of both-pass tasks to ablate must be from 0 to 1 (got ${q})`);
  const seed = o.seed ?? h.shuffleSeed ?? 1;

  const split = splitSkillSections(o.skillText);
  const toSection = (s: (typeof split.sections)[number]): AblationSection => ({ id: s.id, heading: s.heading, path: s.path, kind: s.kind, startLine: s.startLine, endLine: s.endLine, contentHash: s.contentHash });
  const sections = [...split.sections.map(toSection), ...(o.description && split.description ? [toSection(split.description)] : [])];
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
    pairs: o.pairs ?? false,
  };
  const file = o.out ?? defaultAblationFile(o.run.file, entry.name);
  let existing: AblationRecord[] = [];
  let effective = header;
  if (existsSync(file) && o.resume && !hasCompleteLine(file)) rmSync(file); // killed while writing its header
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
    throw new InputError(`${file}: cannot resume: ${diffs.join("; ")}`, { file, hint: "Choose another ablation file (unchanged model calls come from the cache for free).", hintIds: ["runFile"] });
  }
}

/** A run lost to the model endpoint: not recorded, retried by `--resume`. */
class ModelFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Runs a plan: the single sections, then (with pairs) the pairs among the 3 most harmful. */
export async function runAblation(plan: AblationPlan, o: AblateOptions): Promise<AblationResult> {
  const logger = o.logger ?? silentLogger;
  const h = o.run.header;
  const { header } = plan;
  const writer = existsSync(plan.file) ? AblationWriter.append(plan.file) : AblationWriter.create(plan.file, header);
  const records: AblationRecord[] = [...plan.existing];
  const done = new Set(records.map((r) => r.key));
  const tasks = new Map<string, Task>(o.taskSet.tasks.map((t) => [t.id, t]));
  if (h.judge && h.judge.version !== JUDGE_VERSION) {
    logger.warn(`the run was graded by an earlier judge (version ${h.judge.version ?? "1"}, now ${JUDGE_VERSION}): ablated outputs are graded by the current one, so differences may come from the judge; run the evaluation again for a like-for-like comparison`);
  }
  const missing = header.taskIds.filter((id) => !tasks.has(id));
  if (missing.length > 0) throw new InputError(`${o.taskSet.file}: tasks of the run are missing (${missing.slice(0, 3).join(", ")})`, { file: o.taskSet.file });
  const params: SamplingParams = {
    ...(h.params.temperature !== undefined ? { temperature: h.params.temperature } : {}),
    ...(h.params.seed !== undefined ? { seed: h.params.seed } : {}),
    ...(h.params.maxTokens !== undefined ? { maxTokens: h.params.maxTokens } : {}),
  };
  const libraryFor = variantLibraries(o);

  const internal = new AbortController();
  boundListeners(internal.signal, Math.max(1, o.concurrency));
  const onAbort = () => internal.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  let failedRuns = 0;
  let lastError: string | undefined;
  let fatal: unknown;
  let total = records.length + plan.pending;

  const runJob = async (job: AblationJob): Promise<void> => {
    const task = tasks.get(job.taskId)!;
    const agent = await runAgent({
      task,
      condition: "enabled",
      library: libraryFor(job.variant),
      client: o.client,
      model: h.model.name,
      params,
      sampleIndex: job.sample,
      maxTurns: h.params.maxTurns ?? DEFAULT_MAX_TURNS,
      signal: internal.signal,
    }).catch((err: unknown) => {
      if (err instanceof CancelledError || internal.signal.aborted) throw new CancelledError();
      throw new ModelFailure(err);
    });
    if (internal.signal.aborted) throw new CancelledError();
    const verdict = await o.grader.grade(task, agent.answer, { signal: internal.signal, ...judgeOf(o) }).catch((err: unknown) => {
      // A judge that cannot grade leaves the run to a resume, as in evaluate().
      if (err instanceof JudgeError) throw new ModelFailure(err);
      throw err;
    });
    if (internal.signal.aborted) throw new CancelledError();
    const record = ablationRecord(job, agent, verdict);
    writer.write(record);
    records.push(record);
    done.add(record.key);
    o.onRecord?.(record);
    o.onProgress?.({ done: records.length, total });
  };

  const runPhase = async (jobs: AblationJob[]): Promise<void> => {
    const queue = [...jobs];
    const worker = async (): Promise<void> => {
      for (let job = queue.shift(); job && !internal.signal.aborted; job = queue.shift()) {
        try {
          await runJob(job);
        } catch (err) {
          if (internal.signal.aborted || err instanceof CancelledError) return;
          if (!(err instanceof ModelFailure) || isFatal(err.cause)) {
            fatal ??= err instanceof ModelFailure ? err.cause : err;
            internal.abort();
            return;
          }
          failedRuns++;
          lastError = err.message;
          logger.warn(`ablation run ${job.taskId} without ${job.variant} (sample ${job.sample}) failed: ${lastError}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, () => worker()));
  };

  try {
    o.onProgress?.({ done: records.length, total });
    await runPhase(jobsFor(singleVariants(header.sections), header.taskIds, header.samples, done));
    if (header.pairs && !internal.signal.aborted && failedRuns === 0) {
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
  }
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what the failing run threw, unchanged
  if (fatal) throw fatal;
  return { file: plan.file, header, records, failedRuns, ...(lastError ? { lastError } : {}), ...(o.signal?.aborted ? { stopReason: "cancelled" as const } : {}) };
}

/** One library per variant: the run's library, serving the target skill's body without the variant's sections. */
function variantLibraries(o: AblateOptions): (variant: string) => SkillLibrary {
  const h = o.run.header;
  const libraries = new Map<string, SkillLibrary>();
  return (variant) => {
    let lib = libraries.get(variant);
    if (lib) return lib;
    const ids = variantSections(variant);
    const body = bodyWithout(o.skillText, ids.filter((id) => id !== DESCRIPTION_SECTION_ID));
    const skills = ids.includes(DESCRIPTION_SECTION_ID) ? o.skills.map((s) => (s.name === o.skillName ? { ...s, description: "" } : s)) : o.skills;
    lib = new SkillLibrary(skills, h.mode, h.search, (s) => (s.name === o.skillName ? body : s.body));
    libraries.set(variant, lib);
    return lib;
  };
}

function ablationRecord(job: AblationJob, agent: AgentResult, verdict: Verdict): AblationRecord {
  return {
    type: "ablation-run",
    key: job.key,
    taskId: job.taskId,
    variant: job.variant,
    sample: job.sample,
    retrieved: agent.retrieved,
    toolCalls: agent.toolCalls,
    answer: agent.answer,
    verdict: agent.error && !verdict.pass ? { ...verdict, reason: `${agent.error}; ${verdict.reason}` } : verdict,
    tokens: agent.tokens,
    latencyMs: agent.latencyMs,
    modelCalls: agent.modelCalls,
    cachedCalls: agent.cachedCalls,
    turns: agent.turns,
    ...(agent.error ? { error: agent.error } : {}),
    transcript: agent.transcript.map((m) =>
      m.role === "assistant"
        ? { role: m.role, content: m.content, ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}) }
        : m.role === "tool"
          ? { role: m.role, content: m.content, toolCallId: m.toolCallId }
          : { role: m.role, content: m.content },
    ),
    finishedAt: new Date().toISOString(),
  };
}

function isFatal(err: unknown): boolean {
  if (err instanceof EndpointUnreachableError) return true;
  return err instanceof ModelRequestError && (err.status === 401 || err.status === 403 || err.status === 404);
}

/** The judge of an ablation: the run's, at the repeats the run graded with. */
function judgeOf(o: AblateOptions): { judge?: JudgeConfig } {
  const h = o.run.header.judge;
  if (!h) return {};
  const endpoint = o.judge ?? { client: o.client, model: h.model };
  return { judge: { client: endpoint.client, model: endpoint.model, repeats: h.repeats } };
}
