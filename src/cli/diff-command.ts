import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import { pythonRuntimeOf } from "../core/grading/index.js";
import { engineClient, engineGrader } from "../core/runs/factory.js";
import { ensureDataDir, freshRunFile } from "../core/layout.js";
import type { Logger } from "../core/logger.js";
import { isLocalModelName } from "../core/models/local/catalog.js";
import { createOpenAIClient, describeEndpoint } from "../core/models/openai-client.js";
import type { ModelClient } from "../core/models/types.js";
import { diffRegressed, diffSkill, renderDiffJson, renderDiffMarkdown, renderDiffText, type DiffInput } from "../core/report/index.js";
import { evaluate } from "../core/runs/evaluate.js";
import { mergeShardRuns, type LoadedRun } from "../core/runs/merge.js";
import { settingsFromHeader, withSkillText } from "../core/runs/rerun.js";
import { readRunSummaries } from "../core/runs/store.js";
import type { RunHeader } from "../core/runs/types.js";
import type { RunSettings } from "../core/settings.js";
import { scanSkills, skillContentHash } from "../core/skills/index.js";
import type { Skill } from "../core/skills/types.js";
import { loadSkillEvals, loadTaskSet, type TaskSet } from "../core/tasks/index.js";
import { choice, numberOption, parse } from "./args.js";
import { openLocalModel, openRunLocalModel } from "./local-model.js";
import { cliLayout } from "./paths.js";
import { resolveModelConfig } from "./resolve-model.js";
import { SETTING_OPTIONS, runSettingsFromArgs } from "./settings.js";
import { judgeEndpoint, resolveTaskSet } from "./task-source.js";

export const DIFF_USAGE = `usage: skill-following diff --skill <name> <before> <after> [--format text|json|markdown] [--out <file>]
    [--fail-on regressed] [--alpha <a>] [--exact]
       skill-following diff --skill <name> <after> --against <git-ref>
What an edit to one skill changed: the old text's runs against the new text's (same model, same tasks), paired by
task and sample on the tasks where both versions loaded the skill. Reports improved (before failed, after passed)
and regressed tasks with the effect, the Tango interval and McNemar's p; tasks where the edit changed whether the
skill was loaded at all are listed apart as trigger changes.
  <before>, <after>     Run files (the shards of one run joined with '+': a.jsonl+b.jsonl), or SKILL.md files (or
                        skill folders). A SKILL.md side is run first, through the response cache: with a run file on
                        the other side, as that run with only this skill's text changed (its tasks, model and options);
                        with two SKILL.md files, as \`run\` would with --tasks, --model, --base-url, --skills (the rest
                        of the library) and the evaluation options given here. Only the calls after the skill is
                        loaded differ, so an edit to the body costs the continuations of the runs that loaded it, and
                        an unchanged text costs nothing. Its run file goes to .skill-following/runs/.
  --against <git-ref>   The before side is the skill's SKILL.md at that commit (git show <ref>:SKILL.md), e.g. HEAD.
  --cache-dir <dir>     Where responses and verdicts are cached. Default: .skill-following/cache.
Exit codes: 0 done; 1 a run the diff needed had failed runs; 2 bad input; 3 --fail-on regressed and the edit made
things significantly worse; 4 the model endpoint could not be reached.`;

const options = {
  ...SETTING_OPTIONS,
  skill: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  "fail-on": { type: "string" },
  alpha: { type: "string" },
  exact: { type: "boolean" },
  against: { type: "string" },
  skills: { type: "string", multiple: true },
  tasks: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  "cache-dir": { type: "string" },
  "no-local": { type: "boolean" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parse<typeof options>>["values"];

/** One side of a diff given as run files: one file, or the shards of one run joined with '+'. */
export async function readDiffSide(arg: string, logger: Logger): Promise<DiffInput> {
  const loaded: LoadedRun[] = [];
  for (const file of arg.split("+")) {
    const abs = path.resolve(file);
    const contents = await readRunSummaries(abs);
    for (const w of contents.warnings) logger.warn(w);
    loaded.push({ file: abs, header: contents.header, records: contents.records, stops: contents.stops });
  }
  return { source: arg, runs: mergeShardRuns(loaded, logger) };
}

/** A side given as a skill text: where the SKILL.md lives (its folder's other files go with it) and the text. */
interface TextSide {
  file: string;
  text: string;
  /** What the report calls this side: the file, or `<ref>:<file>`. */
  source: string;
}

/** A SKILL.md file or a skill folder (a side that is not a run file). */
function skillFileOf(arg: string): string | undefined {
  const abs = path.resolve(arg);
  if (/\.jsonl$/i.test(arg) || arg.includes("+")) return undefined;
  try {
    if (statSync(abs).isDirectory()) return existsSync(path.join(abs, "SKILL.md")) ? path.join(abs, "SKILL.md") : undefined;
  } catch {
    return undefined;
  }
  return /\.md$/i.test(abs) ? abs : undefined;
}

function readTextSide(file: string, source: string): TextSide {
  try {
    return { file, text: readFileSync(file, "utf8"), source };
  } catch (e) {
    throw new InputError(`${source}: cannot read the SKILL.md: ${(e as Error).message}`, { file, cause: e });
  }
}

/** The SKILL.md at a git commit: `git show <ref>:./SKILL.md` run in the skill's folder. */
export function skillAtRef(file: string, ref: string): TextSide {
  const dir = path.dirname(file);
  const rel = `${ref}:./${path.basename(file)}`;
  if (!existsSync(dir)) throw new InputError(`${file}: the skill's folder is not there, so its git history cannot be read`, { file });
  try {
    const text = execFileSync("git", ["show", rel], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 4 * 1024 * 1024 });
    return { file, text, source: `${ref}:${path.relative(process.cwd(), file) || file}` };
  } catch (e) {
    const raw = (e as { stderr?: unknown }).stderr;
    const stderr = (typeof raw === "string" && raw.trim() ? raw : (e as Error).message).trim().split("\n")[0];
    throw new InputError(`${file}: no version of this SKILL.md at ${ref} (git show ${rel}: ${stderr}); commit it first, or name another ref`, { file, cause: e });
  }
}

export async function diffCommand(argv: string[], logger: Logger, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const { values, positionals } = parse(argv, options, DIFF_USAGE, "diff");
  const skill = values.skill;
  if (!skill) throw new InputError(`name the skill to compare with --skill <name>\n\n${DIFF_USAGE}`);
  const want = values.against === undefined ? 2 : 1;
  if (positionals.length !== want) {
    throw new InputError(
      values.against === undefined
        ? `give two run files or SKILL.md files, before and after (got ${positionals.length})\n\n${DIFF_USAGE}`
        : `with --against give one run file or SKILL.md, the after side (got ${positionals.length})\n\n${DIFF_USAGE}`,
    );
  }
  const format = choice(values.format, "--format", ["text", "json", "markdown"] as const, "text");
  const failOn = values["fail-on"] === undefined ? undefined : choice(values["fail-on"], "--fail-on", ["regressed"] as const, "regressed");
  const alpha = numberOption(values.alpha, "--alpha", 1e-6, 0.5) ?? 0.05;

  // Each side: run files as given, or a skill text to run.
  const given = positionals.map((arg) => {
    const file = skillFileOf(arg);
    return file ? ({ kind: "text", side: readTextSide(file, arg) } as const) : ({ kind: "run", arg } as const);
  });
  const runSides: (DiffInput | undefined)[] = [];
  for (const g of given) runSides.push(g.kind === "run" ? await readDiffSide(g.arg, logger) : undefined);
  if (values.against !== undefined) {
    const after = given[0]!;
    const file = after.kind === "text" ? after.side.file : skillFileInRun(runSides[0]!, skill);
    given.unshift({ kind: "text", side: skillAtRef(file, values.against) });
    runSides.unshift(undefined);
  }
  const template = runSides.find((r): r is DiffInput => r !== undefined);
  const sides: DiffInput[] = [];
  let failed = 0;
  const maker = given.some((g) => g.kind === "text") ? new RunMaker(values, skill, template, logger, signal) : undefined;
  try {
    for (let i = 0; i < given.length; i++) {
      const g = given[i]!;
      if (g.kind === "run") sides.push(runSides[i]!);
      else {
        const made = await maker!.make(g.side, i === 0 ? "before" : "after");
        failed += made.failed;
        sides.push(made.input);
      }
    }
  } finally {
    await maker?.dispose();
  }

  const d = diffSkill(skill, sides[0]!, sides[1]!, alpha, values.exact ?? false);
  const output = { text: renderDiffText, json: renderDiffJson, markdown: renderDiffMarkdown }[format](d);
  if (values.out) {
    try {
      mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
      writeFileSync(values.out, `${output}\n`);
    } catch (e) {
      throw new InputError(`${values.out}: cannot write the diff: ${(e as Error).message}; choose another --out`, { file: values.out, cause: e });
    }
    logger.info(`wrote ${values.out}`);
  } else {
    process.stdout.write(`${output}\n`);
  }
  if (failOn && diffRegressed(d)) {
    logger.warn("--fail-on regressed: the edit made the tasks that load the skill significantly worse");
    return 3;
  }
  if (failed > 0) {
    logger.warn(`${failed} runs failed and are not in the diff; run the diff again to retry them`);
    return 1;
  }
  return 0;
}

/** The SKILL.md a run evaluated for `skill` (its header records the file). */
function skillFileInRun(run: DiffInput, skill: string): string {
  const h = run.runs[run.runs.length - 1]!.header;
  const ref = h.skills.find((s) => s.name === skill);
  if (!ref) throw new InputError(`${run.source}: the run has no skill named '${skill}' (its skills: ${h.skills.map((s) => s.name).join(", ") || "none"})`, { file: run.source });
  return ref.file;
}

/**
 * Makes the runs of skill texts through the engine and the response cache. With a template run: that run's tasks,
 * model, options and library, only this skill's text changed. Without: `run`'s flags.
 */
class RunMaker {
  private setup?: Promise<Setup>;
  private disposers: (() => Promise<void>)[] = [];

  constructor(
    private readonly values: Values,
    private readonly skill: string,
    private readonly template: DiffInput | undefined,
    private readonly logger: Logger,
    private readonly signal: AbortSignal,
  ) {}

  async make(side: TextSide, role: "before" | "after"): Promise<{ input: DiffInput; failed: number }> {
    const t = this.template?.runs[this.template.runs.length - 1];
    // The template run already is this text: it is its own run, at no cost.
    if (t && this.template.runs.length === 1 && t.header.skills.find((s) => s.name === this.skill)?.contentHash === skillContentHash(side.text)) {
      this.logger.info(`${role}: ${side.source} is the text ${this.template.source} evaluated; its runs are used`);
      return { input: { source: side.source, runs: this.template.runs }, failed: 0 };
    }
    this.setup ??= this.prepare();
    const s = await this.setup;
    const skills = withSkillText(s.library, this.skill, side.file, side.text, side.source);
    const taskSet = s.ownEvals ? loadSkillEvals(skills) : s.taskSet!;
    const runFile = freshRunFile(s.layout, { label: `${this.skill}-${role}`, taskSet: taskSet.name, model: s.model });
    this.logger.info(`${role}: running ${side.source} (${s.settings.limit ?? taskSet.tasks.length} tasks, ${s.model}); calls that are not in the response cache go to the model`);
    const result = await evaluate(s.settings, {
      skills,
      taskSet,
      client: s.client,
      model: s.model,
      ...(s.endpoint ? { baseUrl: s.endpoint } : {}),
      ...(s.judge ? { judge: s.judge } : {}),
      grader: s.grader,
      runFile,
      resume: false,
      keepRecords: false,
      logger: this.logger,
      signal: this.signal,
    });
    if (result.stopReason === "cancelled") throw new InputError(`${role}: cancelled; the runs made so far are in ${result.runFile}`, { file: result.runFile });
    this.logger.info(`${role}: run file ${result.runFile}`);
    const back = await readRunSummaries(result.runFile);
    for (const w of back.warnings) this.logger.warn(w);
    return { input: { source: side.source, runs: [{ header: result.header, records: back.records, stops: back.stops }] }, failed: result.failedRuns };
  }

  private async prepare(): Promise<Setup> {
    const v = this.values;
    const layout = cliLayout(v["cache-dir"]);
    ensureDataDir(layout);
    const flags = runSettingsFromArgs(v);
    const h: RunHeader | undefined = this.template?.runs[this.template.runs.length - 1]!.header;
    let settings: RunSettings;
    let library: Skill[];
    let taskSet: TaskSet | undefined;
    let ownEvals: boolean;
    let client: ModelClient;
    let model: string;
    let endpoint: string | undefined;
    let evaluated: { baseURL?: string; apiKey?: string; model: string };
    if (h) {
      const file = this.template!.source;
      settings = settingsFromHeader(h, this.template!.source, { concurrency: flags.concurrency, timeoutSeconds: flags.timeoutSeconds, responseCache: flags.responseCache, sandboxPython: pythonRuntimeOf(h.sandbox) });
      // The library as the run evaluated it (or --skills), each file scanned again.
      const paths = v.skills?.flatMap((s) => s.split(",")).filter(Boolean) ?? h.skills.map((s) => s.file);
      for (const p of paths) if (!existsSync(p)) throw new InputError(`${p}: a skill file of the run ${file} is gone; pass --skills <dir> with the library as evaluated`, { file: p });
      library = (await scanSkills(paths.map((p) => path.resolve(p)))).skills;
      ownEvals = v.tasks === undefined && h.taskSet.format === "skill-evals";
      if (!ownEvals) {
        const tasksFile = path.resolve(v.tasks ?? h.taskSet.file);
        if (!existsSync(tasksFile)) throw new InputError(`${tasksFile}: the run's task set is not there; pass --tasks <file>`, { file: tasksFile });
        taskSet = await loadTaskSet(tasksFile);
      }
      if (isLocalModelName(h.model.name)) {
        const local = await openRunLocalModel(h.model, { logger: this.logger, signal: this.signal });
        this.disposers.push(() => local.dispose());
        client = local;
        model = local.name;
        evaluated = { model: h.model.name };
      } else {
        const config = await resolveModelConfig({ model: h.model.name, baseUrl: v["base-url"] ?? process.env.OPENAI_BASE_URL ?? h.model.baseUrl, env: process.env, logger: this.logger, noLocal: true, signal: this.signal });
        client = createOpenAIClient({ baseURL: config.baseURL, apiKey: config.apiKey, model: config.model, timeoutMs: settings.timeoutSeconds * 1000, logger: this.logger });
        model = config.model;
        endpoint = config.baseURL ? describeEndpoint(config.baseURL) : undefined;
        evaluated = config;
        if (client.id !== h.model.id) this.logger.warn(`the endpoint (${client.id}) is not the run's (${h.model.id}): calls before load_skill will not come from the response cache, and the runs will not pair`);
      }
    } else {
      if (!v.tasks) throw new InputError(`two SKILL.md files are run on the tasks given with --tasks <file|name>\n\n${DIFF_USAGE}`);
      settings = { ...flags, batch: false };
      const others = v.skills?.flatMap((s) => s.split(",")).filter(Boolean) ?? [];
      for (const p of others) if (!existsSync(p)) throw new InputError(`--skills ${p}: no such file or folder`);
      library = (await scanSkills(others.map((p) => path.resolve(p)))).skills.filter((s) => s.name !== this.skill);
      ownEvals = v.tasks === "skill-evals";
      if (!ownEvals) taskSet = await resolveTaskSet(v.tasks, [], library, this.logger, this.signal);
      const config = await resolveModelConfig({ model: v.model, baseUrl: v["base-url"], env: process.env, logger: this.logger, noLocal: v["no-local"] ?? false, signal: this.signal });
      if (config.local) {
        const local = await openLocalModel(config.model, { logger: this.logger, signal: this.signal });
        this.disposers.push(() => local.dispose());
        client = local;
        model = local.name;
      } else {
        client = createOpenAIClient({ baseURL: config.baseURL, apiKey: config.apiKey, model: config.model, timeoutMs: settings.timeoutSeconds * 1000, logger: this.logger });
        model = config.model;
        endpoint = config.baseURL ? describeEndpoint(config.baseURL) : undefined;
      }
      evaluated = config;
    }
    const cached = engineClient(client, { responseCache: settings.responseCache, dirs: layout, logger: this.logger });
    const judge = judgeEndpoint(settings, evaluated, process.env, layout.responsesDir, this.logger);
    const grader = engineGrader({ logger: this.logger, dirs: layout, python: settings.sandboxPython, responseCache: settings.responseCache });
    this.disposers.push(() => grader.dispose());
    return { layout, settings, library, taskSet, ownEvals, client: cached, model, endpoint, judge, grader };
  }

  async dispose(): Promise<void> {
    for (const d of this.disposers.splice(0).reverse()) await d();
  }
}

interface Setup {
  layout: ReturnType<typeof cliLayout>;
  settings: RunSettings;
  library: Skill[];
  taskSet: TaskSet | undefined;
  ownEvals: boolean;
  client: ModelClient;
  model: string;
  endpoint: string | undefined;
  judge: ReturnType<typeof judgeEndpoint>;
  grader: ReturnType<typeof engineGrader>;
}
