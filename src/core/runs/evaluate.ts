import { setMaxListeners } from "node:events";
import { CancelledError, ModelRequestError } from "../errors.js";
import type { EngineGrader } from "../grading/index.js";
import { silentLogger, type Logger } from "../logger.js";
import type { ModelClient } from "../models/types.js";
import { SkillLibrary } from "../retrieval/library.js";
import { parseRunSettings, type RunSettings, type RunSettingsInput } from "../settings.js";
import type { Skill } from "../skills/types.js";
import type { TaskSet } from "../tasks/schema.js";
import { executeJob, ModelFailure, type JobContext } from "./job.js";
import { openRun, type OpenedRun } from "./open.js";
import { Planner, type Job } from "./plan.js";
import { runPool } from "./pool.js";
import { StopMonitor } from "./stop.js";
import type { RunHeader, RunRecord } from "./types.js";

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
  /** Grades answers; `prepare` starts what the final task list needs and says how code is isolated. */
  grader: Pick<EngineGrader, "grade" | "prepare">;
  runFile: string;
  /** Continue `runFile` if it exists (finished runs are kept, the rest are run). */
  resume: boolean;
  logger?: Logger;
  signal?: AbortSignal;
  onProgress?: (progress: EvaluationProgress) => void;
  onRecord?: (record: RunRecord) => void;
  /** The new run's id and creation time (tests pin them; otherwise a random UUID and now). */
  stamp?: { runId: string; createdAt: string };
}

export interface EvaluationResult {
  runFile: string;
  header: RunHeader;
  records: RunRecord[];
  /** Why the run ended early: "cancelled", or the stopping rule's reason. Absent when every planned run finished. */
  stopReason?: string;
  /** Runs that failed for good (model errors after retries); resuming retries them. */
  failedRuns: number;
  lastError?: string;
}

/** Errors that make every further call pointless: stop the whole evaluation at once. */
function isFatal(err: unknown): boolean {
  return err instanceof ModelRequestError && (err.status === 401 || err.status === 403 || err.status === 404);
}

/**
 * Runs an evaluation: validates the settings, derives everything from them (task order and limit, the sandbox the
 * final task list needs, the header), opens or resumes the run file, and runs the planned jobs.
 */
export async function evaluate(input: RunSettingsInput, deps: EvaluationDeps): Promise<EvaluationResult> {
  const settings = parseRunSettings(input);
  const logger = deps.logger ?? silentLogger;
  const run = await openRun(settings, deps, logger);
  const state = new RunState(settings, deps, run, logger);
  const internal = new AbortController();
  // Every in-flight model call and grading listens on this signal; with high concurrency that is many listeners.
  setMaxListeners(0, internal.signal);
  const onAbort = () => internal.abort();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  const ctx: JobContext = {
    library: new SkillLibrary(deps.skills, settings.mode, { topK: settings.topK, threshold: settings.searchThreshold }),
    client: deps.client,
    model: deps.model,
    params: {
      temperature: settings.temperature,
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    },
    maxTurns: settings.maxTurns,
    grader: deps.grader,
    ...(run.judge ? { judge: run.judge } : {}),
    signal: internal.signal,
  };
  state.progress();
  try {
    await runPool(state.initialJobs(), {
      concurrency: settings.concurrency,
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
    deps.signal?.removeEventListener("abort", onAbort);
    run.writer.close();
  }
  if (state.fatal) throw state.fatal.error;
  const stopReason = deps.signal?.aborted ? "cancelled" : state.stopReason;
  const { failedRuns, lastError, records } = state;
  return { runFile: deps.runFile, header: run.header, records, failedRuns, ...(stopReason ? { stopReason } : {}), ...(lastError ? { lastError } : {}) };
}

/** The evaluation's bookkeeping: records, the plan, the stopping rule, failures and progress. */
class RunState {
  readonly records: RunRecord[];
  private readonly planner: Planner;
  private readonly monitor: StopMonitor;
  private retrievals: number;
  stopReason: string | undefined;
  failedRuns = 0;
  lastError: string | undefined;
  fatal: { error: unknown } | undefined;

  constructor(
    private readonly settings: RunSettings,
    private readonly deps: EvaluationDeps,
    private readonly run: OpenedRun,
    private readonly logger: Logger,
  ) {
    this.records = [...run.existing];
    this.planner = new Planner(run.tasks, settings.samples, settings.design, run.existing, run.header.control);
    this.monitor = new StopMonitor(run.tasks.map((t) => t.id), settings.design, settings.alpha);
    for (const r of run.existing) this.monitor.add(r);
    this.retrievals = this.records.filter(retrieving).length;
    // A resumed run may already be decided.
    this.stopReason = settings.stopWhen === "decided" ? this.monitor.decision() : undefined;
  }

  initialJobs(): Job[] {
    return this.planner.initialJobs();
  }

  progress(): void {
    this.deps.onProgress?.({ done: this.records.length, total: this.planner.plannedTotal(), retrievals: this.retrievals, runningRae: this.monitor.runningRae() });
  }

  /** Writes a finished run, feeds the plan and the stopping rule; returns the runs it unlocks. */
  add(record: RunRecord): Job[] {
    this.run.writer.write(record);
    this.records.push(record);
    if (retrieving(record)) this.retrievals++;
    this.deps.onRecord?.(record);
    const unlocked = this.planner.onFinished(record);
    this.monitor.add(record);
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
    if (cancelled || err instanceof CancelledError) return false;
    if (!(err instanceof ModelFailure) || isFatal(err.cause)) {
      // Grader/sandbox failures and auth/model-name errors make every further run pointless.
      this.fatal ??= { error: err instanceof ModelFailure ? err.cause : err };
      return true;
    }
    this.failedRuns++;
    this.lastError = err.message;
    this.logger.warn(`run ${job.task.id} (${job.condition}, sample ${job.sample}) failed: ${this.lastError}`);
    return false;
  }
}

const retrieving = (r: RunRecord): boolean => r.condition === "enabled" && r.retrieved.length > 0;
