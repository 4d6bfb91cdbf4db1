import { existsSync } from "node:fs";
import path from "node:path";
import { EndpointUnreachableError, InputError } from "../core/errors.js";
import { ensureDataDir, freshRunFile } from "../core/layout.js";
import type { Logger } from "../core/logger.js";
import { engineClient, engineGrader } from "../core/runs/factory.js";
import { createOpenAIBatchClient } from "../core/models/batch-client.js";
import { createOpenAIClient, describeEndpoint } from "../core/models/openai-client.js";
import { DEFAULT_LOCAL_MODEL, megabytes } from "../core/models/local/catalog.js";
import type { ModelClient } from "../core/models/types.js";
import type { RunSettings } from "../core/settings.js";
import type { TaskSet } from "../core/tasks/schema.js";
import { openLocalModel } from "./local-model.js";
import { OPENING_HOLD_MS, OpeningLines } from "./opening-lines.js";
import { noModelError, resolveModelConfig, type ResolvedModelConfig } from "./resolve-model.js";
import type { LocalModelClient } from "../core/models/local/client.js";
import { ModelDownloadError } from "../core/models/local/download.js";
import { buildReport, renderText } from "../core/report/index.js";
import { evaluate } from "../core/runs/evaluate.js";
import { locateHarness } from "../core/runs/harness.js";
import { readRunSummaries } from "../core/runs/store.js";
import { assertShardable, parseShardSpec } from "../core/runs/shard.js";
import { scanSkills } from "../core/skills/index.js";
import { TASK_SET_CATALOG } from "../core/tasks/download.js";
import { parse } from "./args.js";
import { cliLayout } from "./paths.js";
import { SETTING_OPTIONS, runSettingsFromArgs, settingsUsage } from "./settings.js";
import { judgeEndpoint, resolveTaskSet } from "./task-source.js";
import { progressLine } from "../shared/progress.js";

const TASK_SET_NAMES = [...TASK_SET_CATALOG.map((e) => e.name), "skill-evals"].join("|");

/** The flags that are not evaluation options: what to evaluate, which endpoint, where the run file goes, logging. */
const INPUT_OPTIONS = {
  skills: { type: "string", multiple: true },
  tasks: { type: "string" },
  "trigger-evals": { type: "string", multiple: true },
  model: { type: "string" },
  "base-url": { type: "string" },
  out: { type: "string" },
  resume: { type: "boolean" },
  "cache-dir": { type: "string" },
  "no-local": { type: "boolean" },
  shard: { type: "string" },
  mirror: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

const options = { ...INPUT_OPTIONS, ...SETTING_OPTIONS };

export const RUN_USAGE = `usage: skill-following run --skills <dir-or-SKILL.md>... --tasks <file|${TASK_SET_NAMES}> [--model <name>] [options]
  --skills <path>...            Skill folders or SKILL.md files (repeat the flag, or separate with commas).
  --tasks <file|name>           A task file (JSONL, EvalPlus, GSM8K, MATH-500), a public set by name (downloaded once), or
                                skill-evals: every skill's own evals/evals.json (tasks <skill>/<id>; free-text expectations
                                are graded by a blind judge model).
  --trigger-evals <file>...     skill-creator trigger sets ([{"query", "should_trigger"}]), run in the enabled condition
                                only: whether each prompt loads the skill.
  --model <name>                Model name sent to the endpoint. Default: SKILL_FOLLOWING_MODEL, else the endpoint's first.
                                local:<name> or local:<file.gguf> runs a GGUF model in-process (no server, no key).
  --base-url <url>              OpenAI-compatible endpoint. Default: OPENAI_BASE_URL, else OpenAI, else a local Ollama,
                                else the local default model (${DEFAULT_LOCAL_MODEL.name}, ${megabytes(DEFAULT_LOCAL_MODEL.bytes)}, downloaded once).
  --no-local                    No local default: with nothing configured, stop with an error (or SKILL_FOLLOWING_NO_LOCAL=1).
  --out <run.jsonl>             The run file. Default: .skill-following/runs/<skills>--<tasks>--<model>--<time>.jsonl.
  --resume                      Continue the run file given with --out (finished runs are kept).
  --cache-dir <dir>             Where responses, expected outputs and verdicts are cached. Default: .skill-following/cache.
  --shard <k/n>                 Run only shard k of n (tasks split by a hash of their id); join the n run files with merge.
  --mirror <url>                Download a public task set from this mirror (<mirror>/<name>/<file>). Default: SKILL_FOLLOWING_TASKS_MIRROR.
  --quiet | --verbose           Less or more on stderr.
Evaluation options:
  --rae-only                    Short for --design rae-only.
${settingsUsage()}
The API key comes from OPENAI_API_KEY (never a flag); a judge on another endpoint uses SKILL_FOLLOWING_JUDGE_API_KEY.
Exit codes: 0 done; 1 runs failed (resume to retry them); 2 bad input; 4 no model could be reached (the endpoint does
not answer, none is configured, or a download failed); 130 interrupted.`;

/** `run`'s arguments as parseArgs reads them (usage errors are InputErrors). */
export function parseRunArgs(argv: string[]) {
  return parse(argv, options, RUN_USAGE, "run");
}

export async function runCommand(argv: string[], logger: Logger, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseRunArgs(argv);
  if (positionals.length) throw new InputError(`unexpected argument '${positionals[0]}'\n\n${RUN_USAGE}`);
  // --skills takes one or more values: `--skills a --skills b` or `--skills a,b`.
  const skillPaths = (values.skills ?? []).flatMap((s) => s.split(",")).filter(Boolean);
  if (skillPaths.length === 0) throw new InputError(`--skills is required\n\n${RUN_USAGE}`);
  const triggerFiles = (values["trigger-evals"] ?? []).flatMap((s) => s.split(",")).filter(Boolean);
  if (!values.tasks && triggerFiles.length === 0) throw new InputError(`--tasks is required\n\n${RUN_USAGE}`);
  const settings = runSettingsFromArgs(values);
  const shard = values.shard === undefined ? undefined : parseShardSpec(values.shard);
  // Refused before any download or model lookup: the combination can never run.
  assertShardable(settings.stopWhen, shard);
  // A harness agent that is not installed is refused before any download or model lookup.
  if (settings.agent !== "builtin") await locateHarness(settings.agent);

  for (const p of skillPaths) if (!existsSync(p)) throw new InputError(`--skills ${p}: no such file or folder`);
  const scan = await scanSkills(skillPaths.map((p) => path.resolve(p)));
  for (const f of scan.findings) {
    if (f.severity === "info") logger.debug(`${f.file}:${f.line}:${f.column}: ${f.message}`);
    else logger.warn(`${f.file}:${f.line}:${f.column}: ${f.severity}: ${f.message} [${f.code}]`);
  }
  if (scan.skills.length === 0) throw new InputError(`no usable skills found in ${skillPaths.join(", ")} (each skill is <folder>/SKILL.md with name and description)`);

  const taskSet = await resolveTaskSet(values.tasks, triggerFiles, scan.skills, logger, signal, values.mirror ?? process.env.SKILL_FOLLOWING_TASKS_MIRROR);

  const config = await resolveModelConfig({ model: values.model, baseUrl: values["base-url"], env: process.env, logger, noLocal: values["no-local"] ?? false, signal });
  // Only the endpoint is shown or recorded: credentials and query strings can hold keys.
  const endpoint = config.baseURL ? describeEndpoint(config.baseURL) : undefined;
  logger.info(`model ${config.model}${endpoint ? ` at ${endpoint}` : ""} (from ${config.source})`);
  const layout = cliLayout(values["cache-dir"]);
  if (config.local && settings.batch) throw new InputError(`${config.model} runs in-process: there is no batch API to send its requests to; drop --batch`);
  const effective = config.source === "local-default" ? firstRunSubset(settings, taskSet, logger) : settings;
  const local = config.local ? await openLocal(config, logger, signal) : undefined;
  try {
    const clientOptions = { baseURL: config.baseURL, apiKey: config.apiKey, model: config.model, timeoutMs: settings.timeoutSeconds * 1000, logger };
    const inner: ModelClient =
      local ??
      (settings.batch
        ? createOpenAIBatchClient({ ...clientOptions, ...(settings.responseCache ? { responsesDir: layout.responsesDir } : {}), ...batchPollOption(process.env) })
        : createOpenAIClient(clientOptions));
    const model = local?.name ?? config.model;
    return await evaluateAndReport({ values, skillPaths, scan, taskSet, settings: effective, shard, inner, model, endpoint, config, layout, logger, signal });
  } finally {
    // The weights (hundreds of MB) are freed as soon as the evaluation is over.
    await local?.dispose();
  }
}

/**
 * Opens a local model. The local default stands in for a configured model: when it cannot be had (offline, a bad
 * mirror), the error lists every other way to get a model, not only where else the file could come from.
 */
async function openLocal(config: ResolvedModelConfig, logger: Logger, signal: AbortSignal): Promise<LocalModelClient> {
  try {
    return await openLocalModel(config.model, { logger, signal });
  } catch (error) {
    if (config.source !== "local-default" || !config.ollamaProbe || !(error instanceof ModelDownloadError)) throw error;
    throw noModelError(config.ollamaProbe.url, config.ollamaProbe.reason, undefined, `The local default model could not be downloaded: ${error.message}.`, error);
  }
}

/**
 * With the local default the main job runs the first LOCAL_DEFAULT_TASKS tasks, so a first run on two CPU cores
 * ends in minutes; an explicit --limit (or a configured model) runs what it says.
 */
export const LOCAL_DEFAULT_TASKS = 6;

function firstRunSubset(settings: RunSettings, taskSet: TaskSet, logger: Logger): RunSettings {
  if (settings.limit !== undefined || taskSet.tasks.length <= LOCAL_DEFAULT_TASKS) return settings;
  logger.info(`local default: evaluating the first ${LOCAL_DEFAULT_TASKS} of ${taskSet.tasks.length} tasks so a first run on a laptop CPU ends in minutes; --limit ${taskSet.tasks.length} runs them all`);
  return { ...settings, limit: LOCAL_DEFAULT_TASKS };
}

interface EvaluationInputs {
  values: ReturnType<typeof parseRunArgs>["values"];
  skillPaths: string[];
  scan: Awaited<ReturnType<typeof scanSkills>>;
  taskSet: TaskSet;
  settings: RunSettings;
  shard: ReturnType<typeof parseShardSpec> | undefined;
  inner: ModelClient;
  model: string;
  endpoint: string | undefined;
  /** The evaluated model's endpoint: a judge on the same endpoint reuses its key. */
  config: { baseURL?: string; apiKey?: string; model: string };
  layout: ReturnType<typeof cliLayout>;
  logger: Logger;
  signal: AbortSignal;
}

async function evaluateAndReport(i: EvaluationInputs): Promise<number> {
  const { values, skillPaths, scan, taskSet, settings, shard, inner, model, endpoint, config, layout, signal } = i;
  // Held until the endpoint has answered once: an unreachable one ends the run in three lines (model, error, hint).
  const logger = new OpeningLines(i.logger);
  // The data folder (and its .gitignore) only when something goes there: the run file or the caches.
  if (!values.out || !values["cache-dir"]) ensureDataDir(layout);
  const client = logger.watch(engineClient(inner, { responseCache: settings.responseCache, dirs: layout, logger }));
  const judge = judgeEndpoint(settings, config, process.env, layout.responsesDir, logger);

  // Without the response cache the model is re-asked and every answer re-checked; expected outputs are the task's, so they stay cached.
  const grader = engineGrader({ logger, dirs: layout, python: settings.sandboxPython, responseCache: settings.responseCache });
  const runFile = values.out ? path.resolve(values.out) : freshRunFile(layout, { label: skillsLabel(skillPaths), taskSet: taskSet.name, model });
  logger.info(`${scan.skills.length} skills, ${settings.limit ?? taskSet.tasks.length} tasks from ${taskSet.name}${shard ? ` (shard ${shard.index}/${shard.count} of them)` : ""}, ${settings.mode} mode${settings.design === "rae-only" ? ", RAE-only design" : ""}`);

  let lastPrint = 0;
  let lastPhase = "";
  try {
    const result = await evaluate(settings, {
      skills: scan.skills,
      taskSet,
      client,
      model,
      ...(endpoint ? { baseUrl: endpoint } : {}),
      ...(judge ? { judge } : {}),
      grader,
      runFile,
      resume: values.resume ?? false,
      ...(shard ? { shard } : {}),
      // The report below reads the run file back: nothing per run is held while the evaluation runs.
      keepRecords: false,
      logger,
      signal,
      onProgress: (p) => {
        if (logger.holding && p.elapsedMs >= OPENING_HOLD_MS) logger.release();
        if (logger.holding) return;
        // Every 5 s, and at once when the run moves to another phase (starting the sandbox → model calls → …).
        const now = Date.now();
        if (now - lastPrint < 5000 && p.phase === lastPhase && p.done < p.total) return;
        if (p.phase === "done" && lastPhase === "done") return;
        lastPrint = now;
        lastPhase = p.phase;
        logger.info(`  ${progressLine(p)}`);
      },
    });
    logger.release();
    const back = await readRunSummaries(result.runFile);
    const report = buildReport([{ header: result.header, records: back.records, stops: back.stops }]);
    process.stdout.write(`${renderText(report)}\n`);
    process.stdout.write(`run file: ${result.runFile}\n`);
    if (result.stopReason === "cancelled") {
      logger.warn(`cancelled; finished runs are kept. Continue with: skill-following run ... --out ${result.runFile} --resume`);
      return 130;
    }
    if (result.stopReason) logger.info(`stopped early: ${result.stopReason}`);
    if (result.failedRuns > 0) {
      logger.warn(`${result.failedRuns} runs failed (last error: ${result.lastError}); they are not in the report. Retry them with --out ${result.runFile} --resume`);
      return 1;
    }
    return 0;
  } catch (error) {
    // A run that never reached its endpoint never started: its opening lines are not shown.
    if (error instanceof EndpointUnreachableError) logger.drop();
    else logger.release();
    throw error;
  } finally {
    await grader.dispose();
  }
}

/** SKILL_FOLLOWING_BATCH_POLL_MS: a fixed interval between polls of a batch (default: 5 s growing to 60 s). */
function batchPollOption(env: NodeJS.ProcessEnv): { pollMs?: number } {
  const raw = env.SKILL_FOLLOWING_BATCH_POLL_MS;
  if (raw === undefined || raw === "") return {};
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) throw new InputError(`SKILL_FOLLOWING_BATCH_POLL_MS must be a number of milliseconds (got '${raw}')`);
  return { pollMs: ms };
}

/** What the run file name says was evaluated: one skill's or folder's name, or "library" for several. */
function skillsLabel(paths: readonly string[]): string {
  if (paths.length !== 1) return "library";
  const p = path.resolve(paths[0]!);
  return path.basename(path.basename(p) === "SKILL.md" ? path.dirname(p) : p);
}
