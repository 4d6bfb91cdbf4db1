import type { HarnessInfo } from "../agents/types.js";
import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { InputError } from "../errors.js";
import { JUDGE_VERSION, type EngineGrader, type JudgeConfig } from "../grading/index.js";
import type { Logger } from "../logger.js";
import type { ModelClient } from "../models/types.js";
import type { RunSettings } from "../settings.js";
import type { Skill } from "../skills/types.js";
import type { Task, TaskSet } from "../tasks/schema.js";
import { judgeConfig } from "./factory.js";
import { assertResumable, buildRunHeader, selectTasks } from "./header.js";
import { assertShardable, type ShardHeader, type ShardSpec } from "./shard.js";
import { holdsNoCompleteLine, readRunSummaries, RunWriter } from "./store.js";
import type { RunHeader, RunSummary } from "./types.js";

/** What opening a run needs from the caller (a subset of EvaluationDeps). */
export interface OpenRunInputs {
  skills: readonly Skill[];
  taskSet: TaskSet;
  client: ModelClient;
  model: string;
  baseUrl?: string;
  judge?: { client: ModelClient; model: string };
  grader: Pick<EngineGrader, "prepare">;
  runFile: string;
  resume: boolean;
  stamp?: { runId: string; createdAt: string };
  /** Run only this shard of the tasks (`run --shard k/n`). */
  shard?: ShardSpec;
  /** The model calls go through a batch API: the header says so. */
  batch?: boolean;
  /** The harness that runs the tasks: the header records it. */
  agent?: HarnessInfo;
}

/** A run file ready for records: its header (the prior one when resumed), the tasks in run order, what is done. */
export interface OpenedRun {
  header: RunHeader;
  tasks: Task[];
  /** Runs already in the file (resume), limited to tasks still in the task set; summaries, not whole records. */
  existing: RunSummary[];
  writer: RunWriter;
  /** The judge of the tasks' free-text expectations; absent when no task has one. */
  judge?: JudgeConfig;
}

/**
 * Creates the run file, or resumes it: a file killed before its header was complete starts afresh; a resumable one
 * must match the inputs (assertResumable) and keeps its own header and task order. The sandbox is started for, and
 * the header records, the tasks this run will really run.
 */
export async function openRun(settings: RunSettings, inputs: OpenRunInputs, logger: Logger): Promise<OpenedRun> {
  const { runFile } = inputs;
  if (inputs.resume && existsSync(runFile) && holdsNoCompleteLine(runFile)) {
    logger.warn(`${runFile} holds no complete line (interrupted while its header was written); starting it afresh`);
    rmSync(runFile);
  }
  assertShardable(settings.stopWhen, inputs.shard);
  const prior = inputs.resume && existsSync(runFile) ? await readRunSummaries(runFile) : undefined;
  let shard: ShardHeader | undefined;
  let tasks: Task[];
  if (inputs.shard) {
    ({ tasks, shard } = selectTasks(inputs.taskSet, settings, inputs.shard));
    if (tasks.length === 0) logger.warn(`shard ${inputs.shard.index}/${inputs.shard.count} holds none of the ${shard.total} tasks; its run file will have no runs`);
  } else tasks = selectTasks(inputs.taskSet, settings);
  let existing: RunSummary[] = [];
  if (prior) {
    for (const w of prior.warnings) logger.warn(w);
    const byId = new Map(inputs.taskSet.tasks.map((t) => [t.id, t]));
    tasks = prior.header.taskIds.map((id) => byId.get(id)).filter((t): t is Task => t !== undefined);
    existing = prior.records.filter((r) => byId.has(r.taskId));
  }
  const sandbox = inputs.grader.prepare(tasks);
  const judge = judgeFor(tasks, settings, inputs);
  if (judge) for (const w of judgeWarnings(judge, inputs.model)) logger.warn(w);
  const header = buildRunHeader(
    settings,
    {
      skills: inputs.skills,
      taskSet: inputs.taskSet,
      clientId: inputs.client.id,
      ...(inputs.client.weights ? { weights: inputs.client.weights } : {}),
      model: inputs.model,
      ...(inputs.baseUrl ? { baseUrl: inputs.baseUrl } : {}),
      ...(judge ? { judge: { id: judge.client.id, model: judge.model, repeats: judge.repeats, version: JUDGE_VERSION } } : {}),
      ...(shard ? { shard } : {}),
      ...(inputs.batch ? { batch: true } : {}),
      ...(inputs.agent ? { agent: inputs.agent } : {}),
    },
    tasks,
    sandbox,
    inputs.stamp ?? { runId: randomUUID(), createdAt: new Date().toISOString() },
  );
  if (prior) {
    assertResumable(prior.header, header, runFile);
    if ((prior.header.pricing === "batch") !== (inputs.batch ?? false)) {
      logger.warn(`${runFile} was started ${prior.header.pricing === "batch" ? "in batch mode" : "with synchronous calls"}; its header keeps saying so, though the runs added now are ${inputs.batch ? "batched" : "synchronous"}`);
    }
    logger.info(`resuming ${runFile}: ${existing.length} runs already done`);
    return { header: prior.header, tasks, existing, writer: RunWriter.append(runFile), ...(judge ? { judge } : {}) };
  }
  if (existsSync(runFile)) {
    throw new InputError(`${runFile} already exists`, { file: runFile, hint: "Resume it, or choose another run file.", hintIds: ["resume", "runFile"] });
  }
  return { header, tasks, existing, writer: RunWriter.create(runFile, header), ...(judge ? { judge } : {}) };
}

/** What a reader of the gradings should know about the judge: it grades its own outputs; votes can tie. */
export function judgeWarnings(judge: { model: string; repeats: number }, evaluatedModel: string): string[] {
  const out: string[] = [];
  if (judge.model === evaluatedModel) {
    out.push(`the judge is the evaluated model (${judge.model}): it grades its own outputs, which models tend to favour; name another judge model for an independent grading`);
  }
  if (judge.repeats % 2 === 0) {
    out.push(`the judge grades each output ${judge.repeats} times, an even number: an expectation passes on more than half of the gradings, so a tie fails it; an odd number cannot tie`);
  }
  return out;
}

/** The judge, when some task has free-text expectations: the given endpoint, else the evaluated model's (temperature 0). */
function judgeFor(tasks: readonly Task[], settings: RunSettings, inputs: OpenRunInputs): JudgeConfig | undefined {
  if (!tasks.some((t) => t.kind === "skill-eval" && t.criteria.some((c) => c.type === "judge"))) return undefined;
  const endpoint = inputs.judge ?? { client: inputs.client, model: inputs.model };
  return judgeConfig(endpoint, { repeats: settings.judgeRepeats, maxTokens: settings.maxTokens });
}
