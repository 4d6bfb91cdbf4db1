import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import { pythonRuntimeOf } from "../core/grading/index.js";
import type { Logger } from "../core/logger.js";
import { createOpenAIClient, describeEndpoint } from "../core/models/openai-client.js";
import { isLocalModelName } from "../core/models/local/catalog.js";
import { openRunLocalModel } from "./local-model.js";
import { resolveModelConfig } from "./resolve-model.js";
import { buildReport, renderText } from "../core/report/index.js";
import { planAblation, runAblation } from "../core/runs/ablate.js";
import { engineClient, engineGrader } from "../core/runs/factory.js";
import { describeEstimate } from "../core/runs/ablation-plan.js";
import { readRunFile } from "../core/runs/store.js";
import { scanSkills } from "../core/skills/index.js";
import { loadSkillEvals, loadTaskSet } from "../core/tasks/index.js";
import { intOption, numberOption, parse } from "./args.js";
import { ensureDataDir } from "../core/layout.js";
import { cliLayout } from "./paths.js";

export const ABLATE_USAGE = `usage: skill-following ablate <run.jsonl> --skill <name> [--ablate-control <q>] [--ablate-pairs] [--ablate-description]
    [--samples <k>] [--concurrency <n>] [--seed <n>] [--out <file>] [--resume] [--dry-run]
    [--skills <dir-or-SKILL.md>...] [--tasks <file>] [--base-url <url>] [--cache-dir <dir>] [--no-cache] [--timeout <seconds>]
    [--agent-unconfined]
Which section of a skill harms: re-runs the enabled condition of <run.jsonl> with one section of the skill deleted
from the text load_skill returns, on the skill's harmed and rescued tasks plus a seeded fraction q (default 0.25) of
its both-pass tasks. Calls before the load come from the response cache; the costs are printed before starting.
On a run of a harness (--agent codex, claude-code, gemini) the section is deleted from the SKILL.md installed in its
workspace; the run's harness version is needed, and --agent-unconfined allows it without bubblewrap, as for run.
Results go to <run>.ablation-<skill>.jsonl, which \`report <run.jsonl>\` reads too.`;

const options = {
  skill: { type: "string" },
  "ablate-control": { type: "string" },
  "ablate-pairs": { type: "boolean" },
  "ablate-description": { type: "boolean" },
  samples: { type: "string" },
  concurrency: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  resume: { type: "boolean" },
  "dry-run": { type: "boolean" },
  skills: { type: "string", multiple: true },
  tasks: { type: "string" },
  "base-url": { type: "string" },
  "cache-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  timeout: { type: "string" },
  "agent-unconfined": { type: "boolean" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

export async function ablateCommand(argv: string[], logger: Logger, signal: AbortSignal): Promise<number> {
  const { values, positionals } = parse(argv, options, ABLATE_USAGE, "ablate");
  if (positionals.length !== 1) throw new InputError(`name exactly one run file\n\n${ABLATE_USAGE}`);
  if (!values.skill) throw new InputError(`--skill is required (the skill whose sections to ablate)\n\n${ABLATE_USAGE}`);
  const runFile = path.resolve(positionals[0]!);
  const run = await readRunFile(runFile);
  for (const w of run.warnings) logger.warn(w);
  const h = run.header;
  const q = numberOption(values["ablate-control"], "--ablate-control", 0, 1);
  const samples = intOption(values.samples, "--samples", 1);
  const concurrency = intOption(values.concurrency, "--concurrency", 1) ?? 4;
  const seed = intOption(values.seed, "--seed", 0);
  const timeoutS = numberOption(values.timeout, "--timeout", 1, 3600) ?? 120;

  // The library as evaluated: the files the run header names (or --skills), each checked against its hash.
  const skillPaths = values.skills?.flatMap((s) => s.split(",")).filter(Boolean) ?? h.skills.map((s) => s.file);
  for (const p of skillPaths) if (!existsSync(p)) throw new InputError(`${p}: the skill file of the run is gone; pass --skills <dir> with the library as evaluated`, { file: p });
  const scan = await scanSkills(skillPaths.map((p) => path.resolve(p)));
  const target = scan.skills.find((s) => s.name === values.skill);
  if (!target) throw new InputError(`no skill named '${values.skill}' in ${skillPaths.join(", ")} (the run has ${h.skills.map((s) => s.name).join(", ")})`);
  // A run on the skills' own evals reads them again from the library (the header names their folder, not a file).
  const ownEvals = values.tasks === undefined && h.taskSet.format === "skill-evals";
  const tasksFile = path.resolve(values.tasks ?? h.taskSet.file);
  if (!ownEvals && !existsSync(tasksFile)) throw new InputError(`${tasksFile}: the run's task set is not there; pass --tasks <file>`, { file: tasksFile });
  const taskSet = ownEvals ? loadSkillEvals(scan.skills) : await loadTaskSet(tasksFile);

  // A local run re-runs the same GGUF in-process (checked by sha256); any other goes to the run's endpoint.
  const local = isLocalModelName(h.model.name) ? await openRunLocalModel(h.model, { logger, signal }) : undefined;
  const config = local ? undefined : await resolveModelConfig({ model: h.model.name, baseUrl: values["base-url"] ?? process.env.OPENAI_BASE_URL ?? h.model.baseUrl, env: process.env });
  const inner = local ?? createOpenAIClient({ baseURL: config?.baseURL, apiKey: config?.apiKey, model: config?.model ?? h.model.name, timeoutMs: timeoutS * 1000, logger });
  if (inner.id !== h.model.id) logger.warn(`the endpoint (${inner.id}) is not the run's (${h.model.id}): calls before load_skill will not come from the response cache`);
  const layout = cliLayout(values["cache-dir"]);
  // Ablation records go to --out or beside the run file; the data folder only holds the caches, when they are there.
  if (!values["cache-dir"]) ensureDataDir(layout);
  const responseCache = !values["no-cache"];
  const client = engineClient(inner, { responseCache, dirs: layout, logger });
  const grader = engineGrader({ logger, dirs: layout, python: pythonRuntimeOf(h.sandbox), responseCache });

  try {
    const o = {
      run: { file: runFile, header: h, records: run.records },
      skills: scan.skills,
      skillName: values.skill,
      skillText: readFileSync(target.file, "utf8"),
      taskSet,
      client,
      grader,
      concurrency,
      resume: values.resume ?? false,
      ...(samples !== undefined ? { samples } : {}),
      ...(q !== undefined ? { control: q } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(values["ablate-pairs"] ? { pairs: true } : {}),
      ...(values["ablate-description"] ? { description: true } : {}),
      ...(values["agent-unconfined"] ? { agentUnconfined: true } : {}),
      ...(values.out ? { out: path.resolve(values.out) } : {}),
      logger,
      signal,
    };
    const plan = await planAblation(o);
    const e = plan.estimate;
    const endpoint = config?.baseURL ? ` at ${describeEndpoint(config.baseURL)}` : local ? " (in-process)" : "";
    logger.info(`${describeEstimate(e, values.skill)}; model ${h.model.name}${endpoint}`);
    logger.info(`tasks: ${plan.header.selection.harmed.length} harmed, ${plan.header.selection.rescued.length} rescued, ${plan.header.selection.bothPassSampled.length} of ${plan.header.selection.bothPassTotal} both-pass (q = ${plan.header.selection.q})`);
    if (plan.existing.length > 0) logger.info(`resuming ${plan.file}: ${plan.existing.length} runs already done, ${plan.pending} to do`);
    if (values["dry-run"]) return 0;

    let lastPrint = 0;
    const result = await runAblation(plan, {
      ...o,
      onProgress: (p) => {
        const now = Date.now();
        if (now - lastPrint < 2000 && p.done < p.total) return;
        lastPrint = now;
        logger.info(`  ${p.done}/${p.total} ablation runs`);
      },
    });
    const report = buildReport([{ header: h, records: run.records }], { ablations: [{ file: result.file, header: result.header, records: result.records }] });
    // The sections block of the text report: the skill's part only.
    const text = renderText(report);
    const at = text.indexOf(`sections of ${values.skill}`);
    process.stdout.write(`${at >= 0 ? text.slice(at) : text}\n`);
    process.stdout.write(`ablation file: ${result.file}\n`);
    if (result.stopReason === "cancelled") {
      logger.warn(`cancelled; finished runs are kept. Continue with: skill-following ablate ${positionals[0]} --skill ${values.skill} --out ${result.file} --resume`);
      return 130;
    }
    if (result.failedRuns > 0) {
      logger.warn(`${result.failedRuns} ablation runs failed (last error: ${result.lastError}); retry them with --out ${result.file} --resume`);
      return 1;
    }
    return 0;
  } finally {
    await grader.dispose();
    await local?.dispose();
  }
}
