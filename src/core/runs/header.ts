import type { SandboxInfo } from "../../shared/vocabulary/index.js";
import { PROMPT_VERSION } from "../agent/prompts.js";
import { InputError, ResumeMismatchError } from "../errors.js";
// The run file is shared and committed; a key hidden in the base URL (user:key@, ?api-key=) must not reach it.
import { describeEndpoint } from "../models/openai-client.js";
import type { HarnessInfo } from "../agents/types.js";
import type { ModelWeights } from "../models/types.js";
import type { RunSettings } from "../settings.js";
import { skillLibraryHash } from "../skills/index.js";
import type { Skill } from "../skills/types.js";
import type { Task, TaskSet } from "../tasks/schema.js";
import { TOOL_VERSION } from "../version.js";
import { seededShuffle } from "./plan.js";
import { selectShard, type ShardHeader, type ShardSpec } from "./shard.js";
import { RUN_FORMAT_VERSION, type EvalTaskInfo, type JudgeInfo, type RunHeader } from "./types.js";

/** What a run header records besides the settings: the inputs and the endpoint. */
export interface HeaderInputs {
  skills: readonly Skill[];
  taskSet: TaskSet;
  /** The model client's id (endpoint and model, no credentials). */
  clientId: string;
  /** The weights of a model run in-process. */
  weights?: ModelWeights;
  /** The model name sent in requests. */
  model: string;
  baseUrl?: string;
  judge?: JudgeInfo;
  /** This run is one shard of the tasks (selectTasks' `shard`). */
  shard?: ShardHeader;
  /** The model calls go through a batch API (priced as such). */
  batch?: boolean;
  /** The harness that runs the tasks (absent: the built-in loop). */
  agent?: HarnessInfo;
}

/**
 * The tasks a fresh run evaluates, in run order: with early stopping, a seeded shuffle of the whole set (so the
 * e-process sees a pre-registered random order); then the limit. Everything derived from the task list (the
 * header's task ids, the sandbox the run needs) must use this list, never the file's first tasks.
 */
export function selectTasks(taskSet: TaskSet, settings: RunSettings): Task[];
export function selectTasks(taskSet: TaskSet, settings: RunSettings, shard: ShardSpec): { tasks: Task[]; shard: ShardHeader };
export function selectTasks(taskSet: TaskSet, settings: RunSettings, shard?: ShardSpec): Task[] | { tasks: Task[]; shard: ShardHeader } {
  let tasks = taskSet.tasks;
  if (settings.stopWhen === "decided") tasks = seededShuffle(tasks, settings.shuffleSeed);
  if (settings.limit !== undefined) tasks = tasks.slice(0, settings.limit);
  if (tasks.length === 0) throw new InputError(`${taskSet.file}: no tasks to run`, { file: taskSet.file, hintIds: ["taskSet"] });
  if (!shard) return tasks;
  // The shard is cut from the unsharded selection (after the limit), so n shards together are exactly that run.
  const picked = selectShard(tasks, shard);
  return { tasks: picked.tasks, shard: picked.header };
}

/** The header line of a fresh run file. `stamp` pins the run id and time (tests; otherwise fresh ones). */
export function buildRunHeader(
  settings: RunSettings,
  inputs: HeaderInputs,
  tasks: readonly Task[],
  sandbox: SandboxInfo,
  stamp: { runId: string; createdAt: string },
): RunHeader {
  const s = settings;
  const decided = s.stopWhen === "decided";
  const control = s.design === "rae-only" && s.raeOnlyControl > 0 ? { q: s.raeOnlyControl, seed: s.shuffleSeed } : undefined;
  // Key order is the file's: existing run files and reports compare byte for byte.
  return {
    type: "header",
    formatVersion: RUN_FORMAT_VERSION,
    toolVersion: TOOL_VERSION,
    runId: stamp.runId,
    createdAt: stamp.createdAt,
    model: {
      id: inputs.clientId,
      name: inputs.model,
      ...(inputs.baseUrl ? { baseUrl: describeEndpoint(inputs.baseUrl) } : {}),
      ...(inputs.weights ? { weights: { file: inputs.weights.file, sha256: inputs.weights.sha256, bytes: inputs.weights.bytes } } : {}),
    },
    params: {
      temperature: s.temperature,
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
      ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
      samples: s.samples,
      maxTurns: s.maxTurns,
    },
    taskSet: { name: inputs.taskSet.name, format: inputs.taskSet.format, file: inputs.taskSet.file, hash: inputs.taskSet.hash, size: inputs.taskSet.tasks.length },
    taskIds: tasks.map((t) => t.id),
    skills: inputs.skills.map((sk) => ({ name: sk.name, contentHash: sk.contentHash, file: sk.file, description: sk.description })),
    skillLibraryHash: skillLibraryHash(inputs.skills),
    mode: s.mode,
    design: s.design,
    ...(s.mode === "search" ? { search: { topK: s.topK, threshold: s.searchThreshold } } : {}),
    promptVersion: PROMPT_VERSION,
    sandbox,
    stopWhen: s.stopWhen,
    ...(decided ? { shuffleSeed: s.shuffleSeed } : {}),
    ...(control ? { control } : {}),
    ...evalTaskInfo(tasks, inputs.judge),
    ...(inputs.shard ? { shard: inputs.shard } : {}),
    ...(inputs.batch ? { pricing: "batch" as const } : {}),
    ...(inputs.agent ? { agent: inputs.agent } : {}),
  };
}

/** Skill evals: what the report needs per task to tell own evals, others' evals, near misses and trigger cases apart. */
function evalTaskInfo(tasks: readonly Task[], judge: JudgeInfo | undefined): { evalTasks?: EvalTaskInfo[]; judge?: JudgeInfo } {
  const evals = tasks.flatMap((t) =>
    t.kind === "skill-eval" ? [{ id: t.id, owner: t.owner, shouldTrigger: t.shouldTrigger, triggerOnly: t.triggerOnly, judged: t.criteria.filter((c) => c.type === "judge").length }] : [],
  );
  return { ...(evals.length ? { evalTasks: evals } : {}), ...(judge ? { judge } : {}) };
}

/** A run file can be continued only with the inputs that made it; anything else would mix two experiments. */
export function assertResumable(prior: RunHeader, now: RunHeader, file: string): void {
  const diffs: string[] = [];
  if (prior.taskSet.hash !== now.taskSet.hash) diffs.push("the task set changed");
  if (prior.model.name !== now.model.name) diffs.push(`the model changed (${prior.model.name} → ${now.model.name})`);
  else if (prior.model.weights?.sha256 !== now.model.weights?.sha256) diffs.push("the model file changed (another sha256)");
  if (prior.mode !== now.mode) diffs.push(`the retrieval mode changed (${prior.mode} → ${now.mode})`);
  if (prior.design !== now.design) diffs.push(`the design changed (${prior.design} → ${now.design})`);
  if (JSON.stringify(prior.control ?? null) !== JSON.stringify(now.control ?? null)) diffs.push("the control sample changed");
  if (prior.params.samples !== now.params.samples) diffs.push(`the samples changed (${prior.params.samples} → ${now.params.samples})`);
  if (prior.params.temperature !== now.params.temperature) diffs.push("the temperature changed");
  if (prior.skillLibraryHash !== now.skillLibraryHash) diffs.push("the skill library changed");
  if (JSON.stringify(prior.judge ?? null) !== JSON.stringify(now.judge ?? null)) diffs.push("the judge changed");
  const agent = (h: RunHeader) => (h.agent ? `${h.agent.id} ${h.agent.version} (sha256 ${h.agent.sha256.slice(0, 12)})` : "the built-in loop");
  if (agent(prior) !== agent(now)) diffs.push(`the agent changed (${agent(prior)} → ${agent(now)})`);
  const shard = (h: RunHeader) => (h.shard ? `shard ${h.shard.index}/${h.shard.count}` : "unsharded");
  if (shard(prior) !== shard(now)) diffs.push(`the shard changed (${shard(prior)} → ${shard(now)})`);
  if (diffs.length > 0) {
    throw new ResumeMismatchError(`${file}: cannot resume: ${diffs.join("; ")}.`, {
      file,
      hint: "Start a new run (unchanged model calls come from the cache for free).",
      hintIds: ["runFile"],
    });
  }
}
