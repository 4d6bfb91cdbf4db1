import { ModelConfigError } from "../errors.js";
import { batchJournalFile } from "../layout.js";
import { MAX_BATCH_REQUESTS } from "../models/batch-client.js";
import type { EngineGrader } from "../grading/index.js";
import { silentLogger, type Logger } from "../logger.js";
import type { BatchStatus, ModelClient } from "../models/types.js";
import { SkillLibrary } from "../retrieval/library.js";
import { parseRunSettings, type RunSettings, type RunSettingsInput } from "../settings.js";
import type { Skill } from "../skills/types.js";
import type { TaskSet } from "../tasks/schema.js";
import { executeJob, RunFailures, type JobContext } from "./job.js";
import { prepareHarness } from "./harness.js";
import { openRun, type OpenedRun } from "./open.js";
import { Planner, type Job } from "./plan.js";
import { boundListeners, runPool } from "./pool.js";
import type { ShardSpec } from "./shard.js";
import { ProgressTracker, type EvaluationProgress } from "./progress.js";
import { StopMonitor } from "./stop.js";
import { summarizeRun, type RunHeader, type RunRecord, type RunSummary } from "./types.js";

export type { EvaluationProgress } from "./progress.js";

/** What an evaluation runs on and reports to; the how is in RunSettings. */
export interface EvaluationDeps {
  skills: Skill[];
  taskSet: TaskSet;
  client: ModelClient;
  /** The model name sent in requests. */
  model: string;
  baseUrl?: string;
  /** Skill evals: the judge's endpoint and model name. Default: the evaluated model's client and name. */
  judge?: { client: ModelClient; model: string };
  /** Grades answers; `prepare` starts what the final task list needs and says how code is isolated; `status` feeds the progress line. */
  grader: Pick<EngineGrader, "grade" | "prepare"> & Partial<Pick<EngineGrader, "status">>;
  runFile: string;
  /** Continue `runFile` if it exists (finished runs are kept, the rest are run). */
  resume: boolean;
  logger?: Logger;
  signal?: AbortSignal;
  /** Called as the run moves: each run finished, each model call, each check, and once a second while running. */
  onProgress?: (progress: EvaluationProgress) => void;
  onRecord?: (record: RunRecord) => void;
  /** The clock of elapsed time and the ETA (ms; default performance.now): tests inject one. */
  now?: () => number;
  /** Interval of the progress heartbeat that keeps elapsed time moving (default 1000 ms; 0: none). */
  progressIntervalMs?: number;
  /** The new run's id and creation time (tests pin them; otherwise a random UUID and now). */
  stamp?: { runId: string; createdAt: string };
  /** Run one shard of the tasks (shard.ts); the header records it and `merge` joins the shards. */
  shard?: ShardSpec;
  /**
   * false: keep no summary per finished run (the result's `records` is then empty; read the run file back with
   * readRunSummaries), so memory does not grow with the number of runs. Default true.
   */
  keepRecords?: boolean;
  /** A harness agent's npm package is looked for under these folders first (default: the working folder); VS Code passes the workspace's. */
  harnessSearchFolders?: readonly string[];
}

export interface EvaluationResult {
  runFile: string;
  header: RunHeader;
  /**
   * Every finished run (resumed ones included) as a summary; the whole records, transcripts and all, are in the run
   * file. Empty with `keepRecords: false`.
   */
  records: RunSummary[];
  /** Why the run ended early: "cancelled", or the stopping rule's reason. Absent when every planned run finished. */
  stopReason?: string;
  /** Runs that failed for good (model errors after retries); resuming retries them. */
  failedRuns: number;
  lastError?: string;
}

/**
 * Runs an evaluation: validates the settings, derives everything from them (task order and limit, the sandbox the
 * final task list needs, the header), opens or resumes the run file, and runs the planned jobs.
 */
export async function evaluate(input: RunSettingsInput, deps: EvaluationDeps): Promise<EvaluationResult> {
  const settings = parseRunSettings(input);
  const logger = deps.logger ?? silentLogger;
  const gate = deps.client.batch;
  if (settings.batch && !gate) {
    throw new ModelConfigError(`Batch mode needs a model endpoint with a batch API (OpenAI's /v1/files and /v1/batches); ${deps.client.id} answers one request at a time.`, {
      hint: "Turn batch mode off for this model, or evaluate a model served by an endpoint with a batch API.",
      hintIds: ["batch", "modelProvider"],
    });
  }
  const harness = settings.agent === "builtin" ? undefined : await prepareHarness(settings, gate !== undefined, logger, deps.harnessSearchFolders);
  let run: OpenedRun;
  try {
    run = await openRun(settings, { ...deps, batch: gate !== undefined, ...(harness ? { agent: harness.info } : {}) }, logger);
  } catch (err) {
    harness?.dispose();
    throw err;
  }
  if (gate && settings.stopWhen === "decided") logger.warn("batch mode sends the first turn of every run at once, so stopping early saves few calls");
  const state = new RunState(settings, deps, run, logger);
  const internal = new AbortController();
  // Every job in flight listens on this signal: allow what the jobs in flight hold, no more (a leak then warns).
  boundListeners(internal.signal, gate ? MAX_BATCH_REQUESTS : settings.concurrency);
  const onAbort = () => internal.abort();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  const changed = () => state.progress();
  const ctx: JobContext = {
    library: new SkillLibrary(deps.skills, settings.mode, { topK: settings.topK, threshold: settings.searchThreshold }),
    client: state.tracker.wrapClient(deps.client, changed),
    model: deps.model,
    params: {
      temperature: settings.temperature,
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    },
    maxTurns: settings.maxTurns,
    grader: { grade: (task, answer, options) => state.tracker.checked(() => deps.grader.grade(task, answer, options), changed) },
    ...(run.judge ? { judge: run.judge } : {}),
    signal: internal.signal,
    ...(gate ? { batch: gate } : {}),
    // The harness's fixed date is the run's: a resumed run (whose header is the prior one) asks the same requests.
    ...(harness ? { harness: { ...harness.session, fixedDate: run.header.createdAt.slice(0, 10) } } : {}),
  };
  state.progress();
  const heartbeatMs = deps.progressIntervalMs ?? 1000;
  const heartbeat = deps.onProgress && heartbeatMs > 0 ? setInterval(changed, heartbeatMs) : undefined;
  heartbeat?.unref();
  try {
    if (gate) await gate.begin({ journalFile: batchJournalFile(deps.runFile), logger, signal: internal.signal, onStatus: (b) => state.progress(b) });
    await runPool(state.initialJobs(), {
      // Batch mode: every pending run takes part in each round (one batch holds at most this many requests).
      concurrency: gate ? MAX_BATCH_REQUESTS : settings.concurrency,
      signal: internal.signal,
      stopped: () => state.stopReason !== undefined,
      run: async (job) => {
        try {
          return state.add(await executeJob(job, ctx));
        } catch (err) {
          if (state.failed(job, err, internal.signal.aborted)) internal.abort();
          return [];
        }
      },
    });
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    deps.signal?.removeEventListener("abort", onAbort);
    run.writer.close();
    await gate?.end();
    harness?.dispose();
  }
  if (state.failures.fatal) throw state.failures.fatal.error;
  const stopReason = deps.signal?.aborted ? "cancelled" : state.stopReason;
  const { failedRuns, lastError } = state.failures;
  const { records } = state;
  return { runFile: deps.runFile, header: run.header, records, failedRuns, ...(stopReason ? { stopReason } : {}), ...(lastError ? { lastError } : {}) };
}

/** The evaluation's bookkeeping: records, the plan, the stopping rule, failures and progress. */
class RunState {
  readonly records: RunSummary[];
  private done: number;
  private readonly planner: Planner;
  private readonly monitor: StopMonitor;
  readonly tracker: ProgressTracker;
  private retrievals: number;
  stopReason: string | undefined;
  readonly failures: RunFailures;

  constructor(
    private readonly settings: RunSettings,
    private readonly deps: EvaluationDeps,
    private readonly run: OpenedRun,
    private readonly logger: Logger,
  ) {
    this.records = deps.keepRecords === false ? [] : [...run.existing];
    this.done = run.existing.length;
    this.planner = new Planner(run.tasks, settings.samples, settings.design, run.existing, run.header.control);
    this.monitor = new StopMonitor(run.tasks.map((t) => t.id), settings.design, settings.alpha);
    for (const r of run.existing) this.monitor.add(r);
    this.retrievals = run.existing.filter(retrieving).length;
    this.failures = new RunFailures(logger);
    this.tracker = new ProgressTracker(deps.now ?? (() => performance.now()), deps.grader, run.existing.length, run.existing.reduce((n, r) => n + tokensOf(r), 0));
    // A resumed run may already be decided.
    this.stopReason = settings.stopWhen === "decided" ? this.monitor.decision() : undefined;
  }

  initialJobs(): Job[] {
    return this.planner.initialJobs();
  }

  private batches: readonly BatchStatus[] | undefined;

  progress(batches?: readonly BatchStatus[]): void {
    if (batches) this.batches = batches;
    if (!this.deps.onProgress) return;
    const snapshot = this.tracker.snapshot({
      done: this.done,
      total: this.planner.plannedTotal(),
      retrievals: this.retrievals,
      runningRae: this.monitor.runningRae(),
      runningRaeN: this.monitor.runningRaeN(),
    });
    this.deps.onProgress(this.batches ? { ...snapshot, batches: this.batches } : snapshot);
  }

  /** Writes a finished run, feeds the plan and the stopping rule; returns the runs it unlocks. */
  add(record: RunRecord): Job[] {
    this.run.writer.write(record);
    this.tracker.addTokens(tokensOf(record));
    this.deps.onRecord?.(record);
    // From here on only the summary is kept: the record (transcript, answer) is in the file and can be collected.
    const summary = summarizeRun(record);
    this.done++;
    if (this.deps.keepRecords !== false) this.records.push(summary);
    if (retrieving(summary)) this.retrievals++;
    const unlocked = this.planner.onFinished(summary);
    this.monitor.add(summary);
    if (this.settings.stopWhen === "decided" && !this.stopReason) {
      const decided = this.monitor.decision();
      if (decided) {
        this.stopReason = decided;
        this.run.writer.write({ type: "stop", reason: decided, at: new Date().toISOString(), tasksDone: this.monitor.pairsDone() });
        this.logger.info(`stopping early: ${decided}`);
      }
    }
    this.progress();
    return unlocked;
  }

  /** Books a failed run; true when the failure makes every further run pointless (stop the evaluation). */
  failed(job: Job, err: unknown, cancelled: boolean): boolean {
    return this.failures.book(`run ${job.task.id} (${job.condition}, sample ${job.sample})`, err, cancelled);
  }
}

const retrieving = (r: RunSummary): boolean => r.condition === "enabled" && r.retrieved.length > 0;
const tokensOf = (r: RunSummary): number => r.tokens.prompt + r.tokens.completion;
