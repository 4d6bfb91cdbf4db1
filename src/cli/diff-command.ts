import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { diffRegressed, diffSkill, renderDiffJson, renderDiffMarkdown, renderDiffText, type DiffInput } from "../core/report/index.js";

import { mergeShardRuns, type LoadedRun } from "../core/runs/merge.js";
import { readRunSummaries } from "../core/runs/store.js";
import { choice, numberOption, parse } from "./args.js";

export const DIFF_USAGE = `usage: skill-following diff --skill <name> <before.jsonl> <after.jsonl> [--format text|json|markdown] [--out <file>]
    [--fail-on regressed] [--alpha <a>] [--exact]
What an edit to one skill changed: the run made with the old text against the run made with the new text (same
model, same tasks), paired by task and sample on the tasks where both versions loaded the skill. Reports improved
(before failed, after passed) and regressed tasks with the effect, the Tango interval and McNemar's p; tasks where
the edit changed whether the skill was loaded at all are listed apart as trigger changes. A side may be the shard
files of one run, joined with '+': a.jsonl+b.jsonl.
Exit codes: 0 done; 2 bad input; 3 --fail-on regressed and the edit made things significantly worse.`;

const options = {
  skill: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  "fail-on": { type: "string" },
  alpha: { type: "string" },
  exact: { type: "boolean" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

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

export async function diffCommand(argv: string[], logger: Logger): Promise<number> {
  const { values, positionals } = parse(argv, options, DIFF_USAGE, "diff");
  if (!values.skill) throw new InputError(`name the skill to compare with --skill <name>\n\n${DIFF_USAGE}`);
  if (positionals.length !== 2) throw new InputError(`give two run files, before and after (got ${positionals.length})\n\n${DIFF_USAGE}`);
  const format = choice(values.format, "--format", ["text", "json", "markdown"] as const, "text");
  const failOn = values["fail-on"] === undefined ? undefined : choice(values["fail-on"], "--fail-on", ["regressed"] as const, "regressed");
  const alpha = numberOption(values.alpha, "--alpha", 1e-6, 0.5) ?? 0.05;
  const d = diffSkill(values.skill, await readDiffSide(positionals[0]!, logger), await readDiffSide(positionals[1]!, logger), alpha, values.exact ?? false);
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
  return 0;
}
