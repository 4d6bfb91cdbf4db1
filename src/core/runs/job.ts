import { runAgent, type AgentResult } from "../agent/loop.js";
import { runHarness } from "../agents/run.js";
import { HarnessError, type HarnessSession } from "../agents/types.js";
import { CancelledError, EndpointUnreachableError, JudgeError, ModelRequestError } from "../errors.js";
import type { JudgeConfig } from "../grading/judge.js";
import type { Grader, Verdict } from "../grading/types.js";
import type { Logger } from "../logger.js";
import type { BatchGate, ModelClient, SamplingParams } from "../models/types.js";
import type { SkillLibrary } from "../retrieval/library.js";
import type { Skill } from "../skills/types.js";
import type { Job } from "./plan.js";
import type { RunRecord } from "./types.js";

/** A run lost to the model endpoint (after the client's retries): not graded, retried by resuming. */
export class ModelFailure extends Error {
  constructor(
    override readonly cause: unknown,
    message?: string,
  ) {
    super(message ?? (cause instanceof Error ? cause.message : String(cause)));
  }
}

/** What every job of one evaluation shares. */
export interface JobContext {
  library: SkillLibrary;
  client: ModelClient;
  model: string;
  params: SamplingParams;
  maxTurns: number;
  grader: Pick<Grader, "grade">;
  signal: AbortSignal;
  /** Skill evals with free-text expectations: the judge. */
  judge?: JudgeConfig;
  /** Batch mode: told when a run starts asking the model and when it has its last answer. */
  batch?: BatchGate;
  /** A real agent harness runs the tasks instead of the built-in loop (src/core/agents). */
  harness?: HarnessSession;
  /**
   * A variant run (section ablation): the SKILL.md body a harness installs instead of the skill's own. The built-in
   * loop gets the same text from `library` (its `servedBody`), so both agents see one variant.
   */
  servedBody?: (skill: Skill) => string;
}

/**
 * One run: the agent loop, then the grader. Throws CancelledError once the evaluation is cancelled, and
 * ModelFailure when the endpoint failed for good (the run is not graded; resuming retries it).
 */
export async function executeJob(job: Job, ctx: JobContext): Promise<RunRecord> {
  ctx.batch?.runStarted();
  const common = { task: job.task, condition: job.condition, client: ctx.client, model: ctx.model, params: ctx.params, sampleIndex: job.sample, maxTurns: ctx.maxTurns, signal: ctx.signal };
  const agent = await (ctx.harness ? runHarness(ctx.harness, { ...common, skills: ctx.library.skills, ...(ctx.servedBody ? { servedBody: ctx.servedBody } : {}) }) : runAgent({ ...common, library: ctx.library }))
    .catch((err: unknown) => {
      if (err instanceof CancelledError || ctx.signal.aborted) throw new CancelledError();
      // A harness that cannot run at all (not startable, unusable output) fails every run alike: not a model failure.
      if (err instanceof HarnessError) throw err;
      throw new ModelFailure(err);
    })
    // Grading is not model time: a batch round must not wait for it.
    .finally(() => ctx.batch?.runEnded());
  if (ctx.signal.aborted) throw new CancelledError();
  const verdict = await ctx.grader.grade(job.task, agent.answer, { signal: ctx.signal, ...(ctx.judge ? { judge: ctx.judge } : {}) }).catch((err: unknown) => {
    if (err instanceof CancelledError || ctx.signal.aborted) throw new CancelledError();
    // The judge is a model too: its failure leaves the run ungraded and resumable (an auth error still stops all).
    if (err instanceof JudgeError) throw new ModelFailure(err.cause ?? err, err.message);
    throw err;
  });
  if (ctx.signal.aborted) throw new CancelledError();
  return toRunRecord(job, agent, verdict, new Date());
}

/** The run-file record of one finished run. Key order is the file's. */
export function toRunRecord(job: Job, agent: AgentResult, verdict: Verdict, finishedAt: Date): RunRecord {
  return {
    type: "run",
    key: job.key,
    taskId: job.task.id,
    condition: job.condition,
    sample: job.sample,
    retrieved: agent.retrieved,
    toolCalls: agent.toolCalls,
    ...(agent.filesRead.length ? { filesRead: agent.filesRead } : {}),
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
    finishedAt: finishedAt.toISOString(),
  };
}

/** Errors that make every further call pointless: stop the whole run (evaluation or variant run) at once. */
function isFatal(err: unknown): boolean {
  if (err instanceof EndpointUnreachableError) return true;
  return err instanceof ModelRequestError && (err.status === 401 || err.status === 403 || err.status === 404);
}

/**
 * The failure bookkeeping of every engine run (an evaluation, an ablation): a run lost to the model endpoint is
 * counted and left to a resume; an auth or model-name error (the judge's included), an unreachable endpoint, a
 * grader, sandbox or harness failure stops the whole run and is rethrown by its caller; a cancellation is neither.
 */
export class RunFailures {
  failedRuns = 0;
  lastError: string | undefined;
  fatal: { error: unknown } | undefined;

  constructor(private readonly logger: Logger) {}

  /** Books a failed run (`what` names it in the warning); true when the failure stops every further run. */
  book(what: string, err: unknown, cancelled: boolean): boolean {
    if (cancelled || err instanceof CancelledError) return false;
    if (!(err instanceof ModelFailure) || isFatal(err.cause)) {
      this.fatal ??= { error: err instanceof ModelFailure ? err.cause : err };
      return true;
    }
    this.failedRuns++;
    this.lastError = err.message;
    this.logger.warn(`${what} failed: ${this.lastError}`);
    return false;
  }
}
