import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { buildReport, failOn, inspectExport, skillCreatorExport, renderCsv, renderHtml, renderJUnit, renderJson, renderMarkdown, renderSarif, renderText } from "../core/report/index.js";
import { TOOL_VERSION } from "../core/version.js";
import { isAblationFile, readAblationFile, siblingAblationFiles } from "../core/runs/ablation-store.js";
import { mergeShardRuns, type LoadedRun } from "../core/runs/merge.js";
import { readRunFile, readRunSummaries } from "../core/runs/store.js";
import type { RunRecord } from "../core/runs/types.js";
import { ReportFormatSchema } from "../shared/vocabulary/index.js";
import { choice, numberOption, parse } from "./args.js";

export const REPORT_USAGE = `usage: skill-following report <run.jsonl>... [--format text|json|markdown|junit|html|csv|sarif] [--out <file>]
    [--fail-on harmful|any-harm] [--alpha <a>] [--exact]
       skill-following report <run.jsonl>... --format skill-creator|inspect [--out] <dir>
skill-creator writes skill evals in skill-creator's iteration layout (per skill: benchmark.json; per eval:
with_skill/ and without_skill/ runs with outputs, grading.json and timing.json) for its viewer.
inspect writes Inspect eval logs (JSON, log format 2), one per evaluation and condition, as two tasks of one eval
set (task argument condition=enabled|disabled; samples are epochs): open them with \`inspect view --log-dir <dir>\`.
Section ablations (\`ablate\`) beside a run file are read with it; an ablation file may also be named directly.
sarif puts significantly harmful skills and sections on their SKILL.md lines (SARIF 2.1.0, paths relative to the
current folder) for GitHub code scanning.
Shard run files (\`run --shard k/n\`) are merged as \`merge\` would (a missing shard is a warning).
Exit codes: 0 done; 2 bad input; 3 the --fail-on condition holds.`;

const options = {
  format: { type: "string" },
  out: { type: "string" },
  "fail-on": { type: "string" },
  alpha: { type: "string" },
  exact: { type: "boolean" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;


export async function reportCommand(argv: string[], logger: Logger): Promise<number> {
  const { values, positionals } = parse(argv, options, REPORT_USAGE, "report");
  if (positionals.length === 0) throw new InputError(`name at least one run file\n\n${REPORT_USAGE}`);
  const format = choice(values.format, "--format", ReportFormatSchema.options, "text");
  const failMode = values["fail-on"] === undefined ? undefined : choice(values["fail-on"], "--fail-on", ["harmful", "any-harm"] as const, "harmful");
  const alpha = numberOption(values.alpha, "--alpha", 1e-6, 0.5) ?? 0.05;

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
  if (format === "skill-creator") return writeExport(skillCreatorExport(mergeShardRuns(whole, logger), report), outDir!, logger, "skill-creator's layout");
  if (format === "inspect") return writeExport(inspectExport(mergeShardRuns(whole, logger), report), outDir!, logger, "Inspect eval logs");
  const sarif = (r: typeof report) => renderSarif(r, { root: process.cwd(), readText: readTextOrUndefined, toolVersion: TOOL_VERSION });
  const render = { text: renderText, json: renderJson, markdown: renderMarkdown, junit: renderJUnit, html: renderHtml, csv: renderCsv, sarif }[format];
  const output = render(report);
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
  if (failMode && failOn(report, failMode, alpha)) {
    logger.warn(`--fail-on ${failMode}: the condition holds`);
    return 3;
  }
  return 0;
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
