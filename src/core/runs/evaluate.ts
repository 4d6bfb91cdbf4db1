import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { existsSync, rmSync } from "node:fs";
import { runAgent, DEFAULT_MAX_TURNS } from "../agent/loop.js";
import { PROMPT_VERSION } from "../agent/prompts.js";
import { CancelledError, InputError, ModelRequestError } from "../errors.js";
import type { Grader } from "../grading/types.js";
import { silentLogger, type Logger } from "../logger.js";
// The run file is shared and committed; a key hidden in the base URL (user:key@, ?api-key=) must not reach it.
import { describeEndpoint } from "../models/openai-client.js";
import type { ModelClient, SamplingParams } from "../models/types.js";
import { DEFAULT_SEARCH, SkillLibrary, type SearchOptions } from "../retrieval/library.js";
import { skillLibraryHash } from "../skills/index.js";
import type { Skill } from "../skills/types.js";
import type { Task, TaskSet } from "../tasks/schema.js";
import { TOOL_VERSION } from "../version.js";
import { Planner, seededShuffle, type Design, type Job } from "./plan.js";
import { StopMonitor } from "./stop.js";
import { holdsNoCompleteLine, readRunFile, RunWriter } from "./store.js";
import { RUN_FORMAT_VERSION, type RetrievalMode, type RunHeader, type RunRecord } from "./types.js";

export interface EvaluationProgress {
  /** Runs finished (including those read back on resume). */
  done: number;
  /** Runs the design needs as far as known now. */
  total: number;
  /** Enabled runs that retrieved at least one skill. */
  retrievals: number;
  /** RAE over the retrieved tasks whose pair is complete (sample 0), or null before any. */
  runningRae: number | null;
}

export interface EvaluateOptions {
  skills: Skill[];
  taskSet: TaskSet;
  client: ModelClient;
  /** The model name sent in requests. */
  model: string;
  baseUrl?: string;
  grader: Grader;
  mode: RetrievalMode;
  design: Design;
  samples: number;
  params: SamplingParams;
  maxTurns?: number;
  concurrency: number;
  limit?: number;
  search?: SearchOptions;
  runFile: string;
  resume: boolean;
  /** `decided`: tasks in a seeded random order; stop once the sign of RAE is decided (anytime-valid). */
  stopWhen?: "never" | "decided";
  shuffleSeed?: number;
  /** RAE-only design: also run the disabled condition on a seeded random fraction q of tasks (stats-spec §8). */
  control?: { q: number; seed?: number };
  alpha?: number;
  isolation: RunHeader["sandbox"];
  logger?: Logger;
  signal?: AbortSignal;
  onProgress?: (progress: EvaluationProgress) => void;
  onRecord?: (record: RunRecord) => void;
}

export interface EvaluationResult {
  runFile: string;
  header: RunHeader;
  records: RunRecord[];
  /** Why the run ended early: "cancelled", or the stopping rule's reason. Absent when every planned run finished. */
  stopReason?: string;
  /** Runs that failed for good (model errors after retries); `--resume` retries them. */
  failedRuns: number;
  lastError?: string;
}

/** Errors that make every further call pointless: stop the whole evaluation at once. */
function isFatal(err: unknown): boolean {
  return err instanceof ModelRequestError && (err.status === 401 || err.status === 403 || err.status === 404);
}

export async function evaluate(options: EvaluateOptions): Promise<EvaluationResult> {
  const logger = options.logger ?? silentLogger;
  if (options.samples < 1 || !Number.isInteger(options.samples)) throw new InputError(`--samples must be a positive integer (got ${options.samples})`);
  if (options.concurrency < 1 || !Number.isInteger(options.concurrency)) throw new InputError(`--concurrency must be a positive integer (got ${options.concurrency})`);
  const stopWhen = options.stopWhen ?? "never";
  const search = options.mode === "search" ? (options.search ?? DEFAULT_SEARCH) : undefined;
  if (options.control && options.design !== "rae-only") throw new InputError("a control sample (--rae-only-control) needs the RAE-only design (--rae-only)");
  if (options.control && !(options.control.q > 0 && options.control.q <= 1)) throw new InputError(`--rae-only-control must be a fraction in (0, 1] (got ${options.control.q})`);
  const control = options.control ? { q: options.control.q, seed: options.control.seed ?? 1 } : undefined;

  let tasks: Task[] = options.taskSet.tasks;
  const shuffleSeed = stopWhen === "decided" ? (options.shuffleSeed ?? 1) : undefined;
  if (shuffleSeed !== undefined) tasks = seededShuffle(tasks, shuffleSeed);
  if (options.limit !== undefined) tasks = tasks.slice(0, options.limit);
  if (tasks.length === 0) throw new InputError(`${options.taskSet.file}: no tasks to run`);

  const header: RunHeader = {
    type: "header",
    formatVersion: RUN_FORMAT_VERSION,
    toolVersion: TOOL_VERSION,
    runId: randomUUID(),
    createdAt: new Date().toISOString(),
    model: { id: options.client.id, name: options.model, ...(options.baseUrl ? { baseUrl: describeEndpoint(options.baseUrl) } : {}) },
    params: { ...options.params, samples: options.samples, maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS },
    taskSet: { name: options.taskSet.name, format: options.taskSet.format, file: options.taskSet.file, hash: options.taskSet.hash, size: options.taskSet.tasks.length },
    taskIds: tasks.map((t) => t.id),
    skills: options.skills.map((s) => ({ name: s.name, contentHash: s.contentHash, file: s.file, description: s.description })),
    skillLibraryHash: skillLibraryHash(options.skills),
    mode: options.mode,
    design: options.design,
    ...(search ? { search } : {}),
    promptVersion: PROMPT_VERSION,
    sandbox: options.isolation,
    stopWhen,
    ...(shuffleSeed !== undefined ? { shuffleSeed } : {}),
    ...(control ? { control } : {}),
  };

  let existing: RunRecord[] = [];
  let writer: RunWriter;
  let effectiveHeader = header;
  if (options.resume && existsSync(options.runFile) && holdsNoCompleteLine(options.runFile)) {
    logger.warn(`${options.runFile} holds no complete line (interrupted while its header was written); starting it afresh`);
    rmSync(options.runFile);
  }
  if (options.resume && existsSync(options.runFile)) {
    const prior = await readRunFile(options.runFile);
    for (const w of prior.warnings) logger.warn(w);
    assertResumable(prior.header, header, options.runFile);
    effectiveHeader = prior.header;
    const byId = new Map(options.taskSet.tasks.map((t) => [t.id, t]));
    tasks = prior.header.taskIds.map((id) => byId.get(id)).filter((t): t is Task => t !== undefined);
    existing = prior.records.filter((r) => byId.has(r.taskId));
    writer = RunWriter.append(options.runFile);
    logger.info(`resuming ${options.runFile}: ${existing.length} runs already done`);
  } else {
    if (existsSync(options.runFile)) {
      throw new InputError(`${options.runFile} already exists; pass --resume to continue it, or choose another --out`, { file: options.runFile });
    }
    writer = RunWriter.create(options.runFile, header);
  }

  const library = new SkillLibrary(options.skills, options.mode, search);
  const planner = new Planner(tasks, options.samples, options.design, existing, effectiveHeader.control);
  const records: RunRecord[] = [...existing];
  const monitor = new StopMonitor(tasks.map((t) => t.id), options.design, options.alpha ?? 0.05);
  for (const r of existing) monitor.add(r);

  const queue: Job[] = planner.initialJobs();
  let stopReason: string | undefined = stopWhen === "decided" ? monitor.decision() : undefined;
  let failedRuns = 0;
  let lastError: string | undefined;
  let fatal: unknown;
  const internal = new AbortController();
  // Every in-flight model call and grading listens on this signal; with high concurrency that is many listeners.
  setMaxListeners(0, internal.signal);
  const onAbort = () => internal.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const retrieving = (r: RunRecord) => r.condition === "enabled" && r.retrieved.length > 0;
  let retrievals = records.filter(retrieving).length;
  const progress = () =>
    options.onProgress?.({
      done: records.length,
      total: planner.plannedTotal(),
      retrievals,
      runningRae: monitor.runningRae(),
    });
  progress();

  const runJob = async (job: Job): Promise<void> => {
    const agent = await runAgent({
      task: job.task,
      condition: job.condition,
      library,
      client: options.client,
      model: options.model,
      params: options.params,
      sampleIndex: job.sample,
      maxTurns: options.maxTurns,
      signal: internal.signal,
    }).catch((err: unknown) => {
      if (err instanceof CancelledError || internal.signal.aborted) throw new CancelledError();
      throw new ModelFailure(err);
    });
    if (internal.signal.aborted) throw new CancelledError();
    const verdict = await options.grader.grade(job.task, agent.answer, { signal: internal.signal });
    if (internal.signal.aborted) throw new CancelledError();
    const record: RunRecord = {
      type: "run",
      key: job.key,
      taskId: job.task.id,
      condition: job.condition,
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
    writer.write(record);
    records.push(record);
    if (retrieving(record)) retrievals++;
    options.onRecord?.(record);
    queue.push(...planner.onFinished(record));
    monitor.add(record);
    if (stopWhen === "decided" && !stopReason) {
      const decided = monitor.decision();
      if (decided) {
        stopReason = decided;
        writer.write({ type: "stop", reason: decided, at: new Date().toISOString(), tasksDone: monitor.pairsDone() });
        logger.info(`stopping early: ${decided}`);
      }
    }
    progress();
  };

  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };
  const changed = () => new Promise<void>((resolve) => waiters.push(resolve));

  const worker = async (): Promise<void> => {
    for (;;) {
      if (internal.signal.aborted || stopReason) return;
      const job = queue.shift();
      if (!job) {
        // RAE-only: a run in flight may still unlock disabled runs, so wait for it before giving up.
        if (inFlight === 0) return;
        await changed();
        continue;
      }
      inFlight++;
      try {
        await runJob(job);
      } catch (err) {
        if (internal.signal.aborted || err instanceof CancelledError) continue;
        if (!(err instanceof ModelFailure) || isFatal(err.cause)) {
          // Grader/sandbox failures and auth/model-name errors make every further run pointless.
          fatal ??= err instanceof ModelFailure ? err.cause : err;
          internal.abort();
          continue;
        }
        failedRuns++;
        lastError = err.message;
        logger.warn(`run ${job.task.id} (${job.condition}, sample ${job.sample}) failed: ${lastError}`);
      } finally {
        inFlight--;
        notify();
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    notify();
    writer.close();
  }
  if (fatal) throw fatal;
  if (options.signal?.aborted) stopReason = "cancelled";
  return { runFile: options.runFile, header: effectiveHeader, records, failedRuns, ...(stopReason ? { stopReason } : {}), ...(lastError ? { lastError } : {}) };
}

/** A run lost to the model endpoint (after the client's retries): not graded, retried by `--resume`. */
class ModelFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

function assertResumable(prior: RunHeader, now: RunHeader, file: string): void {
  const diffs: string[] = [];
  if (prior.taskSet.hash !== now.taskSet.hash) diffs.push("the task set changed");
  if (prior.model.name !== now.model.name) diffs.push(`the model changed (${prior.model.name} → ${now.model.name})`);
  if (prior.mode !== now.mode) diffs.push(`the retrieval mode changed (${prior.mode} → ${now.mode})`);
  if (prior.design !== now.design) diffs.push(`the design changed (${prior.design} → ${now.design})`);
  if (JSON.stringify(prior.control ?? null) !== JSON.stringify(now.control ?? null)) diffs.push("the control sample changed (--rae-only-control)");
  if (prior.params.samples !== now.params.samples) diffs.push(`--samples changed (${prior.params.samples} → ${now.params.samples})`);
  if (prior.params.temperature !== now.params.temperature) diffs.push("--temperature changed");
  if (prior.skillLibraryHash !== now.skillLibraryHash) diffs.push("the skill library changed");
  if (diffs.length > 0) {
    throw new InputError(`${file}: cannot resume: ${diffs.join("; ")}. Start a new run (unchanged model calls come from the cache for free).`, { file });
  }
}
