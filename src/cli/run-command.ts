import { existsSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import { createGrader } from "../core/grading/index.js";
import type { Logger } from "../core/logger.js";
import { createCachedClient } from "../core/models/cache.js";
import { createOpenAIClient, describeEndpoint } from "../core/models/openai-client.js";
import { resolveModelConfig } from "../core/models/resolve.js";
import { buildReport, renderText } from "../core/report/index.js";
import { evaluate } from "../core/runs/evaluate.js";
import { scanSkills } from "../core/skills/index.js";
import { TASK_SET_CATALOG, downloadTaskSet, type TaskSetName } from "../core/tasks/download.js";
import { loadTaskSet } from "../core/tasks/index.js";
import { choice, intOption, numberOption, parse } from "./args.js";
import { defaultCacheDir, defaultRunFile, taskSetCacheDir } from "./paths.js";

export const RUN_USAGE = `usage: skill-following run --skills <dir-or-SKILL.md>... --tasks <file|${TASK_SET_CATALOG.map((e) => e.name).join("|")}> --model <name>
    [--base-url <url>] [--mode catalog|search] [--samples <k>] [--temperature <t>] [--seed <n>] [--max-tokens <n>]
    [--concurrency <n>] [--limit <n>] [--rae-only [--rae-only-control <q>]] [--out <run.jsonl>] [--resume] [--max-turns <n>]
    [--stop-when never|decided] [--shuffle-seed <n>] [--top-k <n>] [--search-threshold <x>]
    [--cache-dir <dir>] [--no-cache] [--timeout <seconds>] [--quiet] [--verbose]
The API key comes from OPENAI_API_KEY (never a flag). The base URL from --base-url or OPENAI_BASE_URL.`;

const options = {
  skills: { type: "string", multiple: true },
  tasks: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  mode: { type: "string" },
  samples: { type: "string" },
  temperature: { type: "string" },
  seed: { type: "string" },
  "max-tokens": { type: "string" },
  concurrency: { type: "string" },
  limit: { type: "string" },
  "rae-only": { type: "boolean" },
  "rae-only-control": { type: "string" },
  out: { type: "string" },
  resume: { type: "boolean" },
  "max-turns": { type: "string" },
  "stop-when": { type: "string" },
  "shuffle-seed": { type: "string" },
  "top-k": { type: "string" },
  "search-threshold": { type: "string" },
  "cache-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  timeout: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

export async function runCommand(argv: string[], logger: Logger, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parse(argv, options, RUN_USAGE);
  if (positionals.length) throw new InputError(`unexpected argument '${positionals[0]}'\n\n${RUN_USAGE}`);
  // --skills takes one or more values: `--skills a --skills b` or `--skills a,b`.
  const skillPaths = (values.skills ?? []).flatMap((s) => s.split(",")).filter(Boolean);
  if (skillPaths.length === 0) throw new InputError(`--skills is required\n\n${RUN_USAGE}`);
  if (!values.tasks) throw new InputError(`--tasks is required\n\n${RUN_USAGE}`);

  const mode = choice(values.mode, "--mode", ["catalog", "search"] as const, "catalog");
  const stopWhen = choice(values["stop-when"], "--stop-when", ["never", "decided"] as const, "never");
  const samples = intOption(values.samples, "--samples", 1) ?? 1;
  const concurrency = intOption(values.concurrency, "--concurrency", 1) ?? 4;
  const limit = intOption(values.limit, "--limit", 1);
  const maxTurns = intOption(values["max-turns"], "--max-turns", 1);
  const temperature = numberOption(values.temperature, "--temperature", 0, 2) ?? 0;
  const seed = intOption(values.seed, "--seed", 0);
  const maxTokens = intOption(values["max-tokens"], "--max-tokens", 1);
  const timeoutS = numberOption(values.timeout, "--timeout", 1, 3600) ?? 120;
  const topK = intOption(values["top-k"], "--top-k", 1) ?? 3;
  const threshold = numberOption(values["search-threshold"], "--search-threshold", 0, 1e9) ?? 0;
  const controlQ = numberOption(values["rae-only-control"], "--rae-only-control", 0, 1);
  if (controlQ !== undefined && !values["rae-only"]) throw new InputError("--rae-only-control <q> needs --rae-only (it adds a control sample to that design)");
  if (controlQ === 0) throw new InputError("--rae-only-control must be above 0 (leave it out for no control sample)");

  for (const p of skillPaths) if (!existsSync(p)) throw new InputError(`--skills ${p}: no such file or folder`);
  const scan = await scanSkills(skillPaths.map((p) => path.resolve(p)));
  for (const f of scan.findings) {
    if (f.severity === "info") logger.debug(`${f.file}:${f.line}:${f.column}: ${f.message}`);
    else logger.warn(`${f.file}:${f.line}:${f.column}: ${f.severity}: ${f.message} [${f.code}]`);
  }
  if (scan.skills.length === 0) throw new InputError(`no usable skills found in ${skillPaths.join(", ")} (each skill is <folder>/SKILL.md with name and description)`);

  const tasksFile = await resolveTasksFile(values.tasks, logger, signal);
  const taskSet = await loadTaskSet(tasksFile);
  for (const issue of taskSet.issues) logger.warn(`${issue.file}:${issue.line}: ${issue.message}`);

  const config = await resolveModelConfig({ model: values.model, baseUrl: values["base-url"], env: process.env });
  // Only the endpoint is shown or recorded: credentials and query strings can hold keys.
  const endpoint = config.baseURL ? describeEndpoint(config.baseURL) : undefined;
  logger.info(`model ${config.model}${endpoint ? ` at ${endpoint}` : ""} (from ${config.source})`);
  const inner = createOpenAIClient({ baseURL: config.baseURL, apiKey: config.apiKey, model: config.model, timeoutMs: timeoutS * 1000, logger });
  const cacheDir = values["cache-dir"] ? path.resolve(values["cache-dir"]) : defaultCacheDir();
  const client = values["no-cache"] ? inner : createCachedClient(inner, { dir: path.join(cacheDir, "responses"), logger });

  // --no-cache re-asks the model and re-checks every answer; expected outputs are the task's, so they stay cached.
  const grader = createGrader({ logger, cacheDir: path.join(cacheDir, "expected"), ...(values["no-cache"] ? {} : { verdictCacheDir: path.join(cacheDir, "verdicts") }) });
  const runFile = path.resolve(values.out ?? defaultRunFile(config.model, taskSet.name));
  logger.info(`${scan.skills.length} skills, ${limit ?? taskSet.tasks.length} tasks from ${taskSet.name}, ${mode} mode${values["rae-only"] ? ", RAE-only design" : ""}`);

  let lastPrint = 0;
  try {
    const result = await evaluate({
      skills: scan.skills,
      taskSet,
      client,
      model: config.model,
      ...(endpoint ? { baseUrl: endpoint } : {}),
      grader,
      mode,
      design: values["rae-only"] ? "rae-only" : "paired",
      samples,
      params: { temperature, ...(seed !== undefined ? { seed } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) },
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      concurrency,
      ...(limit !== undefined ? { limit } : {}),
      search: { topK, threshold },
      runFile,
      resume: values.resume ?? false,
      stopWhen,
      ...(values["shuffle-seed"] !== undefined ? { shuffleSeed: intOption(values["shuffle-seed"], "--shuffle-seed", 0) } : {}),
      ...(controlQ !== undefined ? { control: { q: controlQ, ...(values["shuffle-seed"] !== undefined ? { seed: intOption(values["shuffle-seed"], "--shuffle-seed", 0) } : {}) } } : {}),
      isolation: grader.prepare(limit !== undefined ? taskSet.tasks.slice(0, limit) : taskSet.tasks),
      logger,
      signal,
      onProgress: (p) => {
        const now = Date.now();
        if (now - lastPrint < 2000 && p.done < p.total) return;
        lastPrint = now;
        const rae = p.runningRae === null ? "n/a" : p.runningRae.toFixed(3);
        logger.info(`  ${p.done}/${p.total} runs · ${p.retrievals} retrievals · running RAE ${rae}`);
      },
    });
    const report = buildReport([{ header: result.header, records: result.records }]);
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
  } finally {
    await grader.dispose();
  }
}

/** `--tasks` is a file, or the name of a public set (downloaded once into the user's cache). */
async function resolveTasksFile(value: string, logger: Logger, signal: AbortSignal): Promise<string> {
  if (existsSync(value)) return path.resolve(value);
  const entry = TASK_SET_CATALOG.find((e) => e.name === value);
  if (!entry) throw new InputError(`--tasks ${value}: no such file, and not a known task set (${TASK_SET_CATALOG.map((e) => e.name).join(", ")})`);
  const result = await downloadTaskSet(entry.name as TaskSetName, { cacheDir: taskSetCacheDir(), logger, signal, ...(process.env.SKILL_FOLLOWING_TASKS_MIRROR ? { baseUrl: process.env.SKILL_FOLLOWING_TASKS_MIRROR } : {}) });
  return result.file;
}
