import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { buildReport, changedSkillDiffs, diffRegressed, failOn, inspectExport, renderDiffMarkdown, renderDiffText, skillCreatorExport, type SkillDiff, renderCsv, renderHtml, renderJUnit, renderJson, renderMarkdown, renderSarif, renderText } from "../core/report/index.js";
import { TOOL_VERSION } from "../core/version.js";
import { isAblationFile, readAblationFile, siblingAblationFiles } from "../core/runs/ablation-store.js";
import { mergeShardRuns, type LoadedRun } from "../core/runs/merge.js";
import { readRunFile, readRunSummaries } from "../core/runs/store.js";
import type { RunRecord } from "../core/runs/types.js";
import { ReportFormatSchema } from "../shared/vocabulary/index.js";
import { choice, numberOption, parse } from "./args.js";
import { readDiffSide } from "./diff-command.js";

export const REPORT_USAGE = `usage: skill-following report <run.jsonl>... [--format text|json|markdown|junit|html|csv|sarif] [--out <file>]
    [--fail-on harmful|any-harm|regressed] [--alpha <a>] [--exact] [--against <base-run.jsonl>]
       skill-following report <run.jsonl>... --format skill-creator|inspect [--out] <dir>
skill-creator writes skill evals in skill-creator's iteration layout (per skill: benchmark.json; per eval:
with_skill/ and without_skill/ runs with outputs, grading.json and timing.json) for its viewer.
inspect writes Inspect eval logs (JSON, log format 2), one per evaluation and condition, as two tasks of one eval
set (task argument condition=enabled|disabled; samples are epochs): open them with \`inspect view --log-dir <dir>\`.
Section ablations (\`ablate\`) beside a run file are read with it; an ablation file may also be named directly.
sarif puts significantly harmful skills and sections on their SKILL.md lines (SARIF 2.1.0, paths relative to the
current folder) for GitHub code scanning.
Shard run files (\`run --shard k/n\`) are merged as \`merge\` would (a missing shard is a warning).
--against <base-run.jsonl> (text, markdown, json): each skill whose text differs from the base run's (a pull
request's base branch) is also reported as a diff, as \`diff\` gives it; --fail-on regressed gates on a significant
regression of any of them. A base of shard files is joined with '+'.
Exit codes: 0 done; 2 bad input; 3 the --fail-on condition holds.`;

const options = {
  format: { type: "string" },
  out: { type: "string" },
  "fail-on": { type: "string" },
  alpha: { type: "string" },
  exact: { type: "boolean" },
  against: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;


export async function reportCommand(argv: string[], logger: Logger): Promise<number> {
  const { values, positionals } = parse(argv, options, REPORT_USAGE, "report");
  if (positionals.length === 0) throw new InputError(`name at least one run file\n\n${REPORT_USAGE}`);
  const format = choice(values.format, "--format", ReportFormatSchema.options, "text");
  const failMode = values["fail-on"] === undefined ? undefined : choice(values["fail-on"], "--fail-on", ["harmful", "any-harm", "regressed"] as const, "harmful");
  const alpha = numberOption(values.alpha, "--alpha", 1e-6, 0.5) ?? 0.05;
  if (values.against !== undefined && !["text", "markdown", "json"].includes(format)) throw new InputError(`--against adds skill diffs to the text, markdown and json reports, not to ${format}; drop --against or choose one of those formats`);
  if (failMode === "regressed" && values.against === undefined) throw new InputError(`--fail-on regressed needs the base run to compare with: add --against <base-run.jsonl>\n\n${REPORT_USAGE}`);

  // `--format skill-creator|inspect <dir>`: a last argument that is no file is the export folder.
  const folder = format === "skill-creator" || format === "inspect";
  let outDir = folder ? values.out : undefined;
  if (folder && outDir === undefined && positionals.length > 1 && !isRegularFile(path.resolve(positionals[positionals.length - 1]!))) outDir = positionals.pop();
  if (folder && outDir === undefined) throw new InputError(`--format ${format} writes a folder: give it with --out <dir>\n\n${REPORT_USAGE}`);
  const loaded: LoadedRun[] = [];
  // The skill-creator and inspect exports write outputs and transcripts: they read whole records, not summaries.
  const whole: LoadedRun<RunRecord>[] = [];
  const ablationFiles = new Set<string>();
  for (const file of positionals) {
    const abs = path.resolve(file);
    if (isRegularFile(abs) && isAblationFile(abs)) {
      ablationFiles.add(abs);
      continue;
    }
    if (folder) {
      const contents = await readRunFile(abs);
      for (const w of contents.warnings) logger.warn(w);
      whole.push({ file: abs, header: contents.header, records: contents.records, stops: contents.stops });
      loaded.push(whole[whole.length - 1]!);
    } else {
      const contents = await readRunSummaries(abs);
      for (const w of contents.warnings) logger.warn(w);
      loaded.push({ file: abs, header: contents.header, records: contents.records, stops: contents.stops });
    }
    for (const sibling of siblingAblationFiles(abs)) ablationFiles.add(sibling);
  }
  const runs = mergeShardRuns(loaded, logger);
  const ablations = [];
  for (const f of ablationFiles) {
    const a = await readAblationFile(f);
    for (const w of a.warnings) logger.warn(w);
    ablations.push(a);
  }
  const report = buildReport(runs, { alpha, exact: values.exact ?? false, ablations });
  const diffs: SkillDiff[] = values.against === undefined ? [] : changedSkillDiffs(await readDiffSide(values.against, logger), { source: positionals.join("+"), runs }, alpha, values.exact ?? false);
  if (format === "skill-creator") return writeExport(skillCreatorExport(mergeShardRuns(whole, logger), report), outDir!, logger, "skill-creator's layout");
  if (format === "inspect") return writeExport(inspectExport(mergeShardRuns(whole, logger), report), outDir!, logger, "Inspect eval logs");
  const sarif = (r: typeof report) => renderSarif(r, { root: process.cwd(), readText: readTextOrUndefined, toolVersion: TOOL_VERSION });
  const render = { text: renderText, json: renderJson, markdown: renderMarkdown, junit: renderJUnit, html: renderHtml, csv: renderCsv, sarif }[format];
  const output = values.against === undefined ? render(report) : withDiffs(format, report, diffs, values.against);
  if (values.out) {
    try {
      mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
      writeFileSync(values.out, output.endsWith("\n") ? output : `${output}\n`);
    } catch (e) {
      throw new InputError(`${values.out}: cannot write the report: ${(e as Error).message}; choose another --out`, { file: values.out, cause: e });
    }
    logger.info(`wrote ${values.out}`);
  } else {
    process.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
  }
  if (failMode === "regressed") {
    if (diffs.some(diffRegressed)) {
      logger.warn(`--fail-on regressed: an edited skill made the tasks that load it significantly worse (${diffs.filter(diffRegressed).map((d) => d.skill).join(", ")})`);
      return 3;
    }
    return 0;
  }
  if (failMode && failOn(report, failMode, alpha)) {
    logger.warn(`--fail-on ${failMode}: the condition holds`);
    return 3;
  }
  return 0;
}

/** The report followed by the diffs against the base run (text, markdown), or with a `diffs` array (json). */
function withDiffs(format: string, report: ReturnType<typeof buildReport>, diffs: SkillDiff[], base: string): string {
  if (format === "json") return JSON.stringify({ ...report, diffs }, null, 2);
  if (format === "markdown") {
    const none = `_No skill's text differs from the base run (${base})._`;
    return [renderMarkdown(report), `## Skill changes against the base run\n\n${diffs.length ? diffs.map(renderDiffMarkdown).join("\n") : none}`].join("\n\n---\n\n");
  }
  return [renderText(report), diffs.length ? diffs.map(renderDiffText).join("\n\n") : `no skill's text differs from the base run (${base})`].join("\n\n");
}

function writeExport({ files, notes }: ReturnType<typeof skillCreatorExport>, dir: string, logger: Logger, what: string): number {
  if (files.length === 0) {
    if (what === "Inspect eval logs") throw new InputError("the run files hold no runs to export");
    throw new InputError("the run files hold no skill evals to export (run with the skills' own evals as tasks)", { hintIds: ["taskSet"] });
  }
  const root = path.resolve(dir);
  try {
    for (const f of files) {
      const target = path.join(root, f.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, f.text);
    }
  } catch (e) {
    throw new InputError(`${dir}: cannot write the export: ${(e as Error).message}; choose another folder`, { file: dir, cause: e });
  }
  for (const n of notes) logger.warn(n);
  logger.info(`wrote ${files.length} files (${what}) to ${root}`);
  return 0;
}

function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function readTextOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
