import path from "node:path";
import { InputError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { mergeRunFiles } from "../core/runs/merge.js";
import { parse } from "./args.js";

export const MERGE_USAGE = `usage: skill-following merge <shard run files...> --out <run.jsonl>
Joins the n run files of \`run --shard k/n\` into one run file, after checking that they are the shards of one run
(the same model, task set, skill library, retrieval mode, design and parameters; each shard once, none missing).
The merged file is a run file like any other (report it, ablate it); \`report\` also reads shard files directly.`;

const options = {
  out: { type: "string" },
  quiet: { type: "boolean" },
  verbose: { type: "boolean" },
} as const;

export async function mergeCommand(argv: string[], logger: Logger): Promise<number> {
  const { values, positionals } = parse(argv, options, MERGE_USAGE);
  if (positionals.length === 0) throw new InputError(`name the shard run files to merge\n\n${MERGE_USAGE}`);
  if (!values.out) throw new InputError(`--out is required (the merged run file)\n\n${MERGE_USAGE}`);
  const out = path.resolve(values.out);
  const { header, runs } = await mergeRunFiles(positionals.map((f) => path.resolve(f)), out, logger);
  logger.info(`merged ${positionals.length} shards: ${header.taskIds.length} tasks, ${runs} runs → ${out}`);
  process.stdout.write(`run file: ${out}\n`);
  return 0;
}
