import { z } from "zod";
import { RetrievalModeSchema } from "../../shared/vocabulary/index.js";
import { RunRecordSchema } from "./types.js";

/**
 * The ablation file (issue 13): a sibling of a run file, `<run>.ablation-<skill>.jsonl`, append-only JSONL. Line 1
 * is a header naming the parent run, the skill as evaluated (content hash), its sections with their 1-based line
 * ranges in that file, and the selected tasks; then one `ablation-run` record per finished task × variant × sample.
 * A variant is one section id, or two joined by `+` (`--ablate-pairs`). The run file itself is never touched: its
 * format is a contract that older readers and `--resume` check, and an ablation is a different key space.
 * Bump ABLATION_FORMAT_VERSION on any incompatible change.
 */
export const ABLATION_FORMAT_VERSION = 1;

export const AblationSectionSchema = z.object({
  id: z.string(),
  heading: z.string(),
  path: z.array(z.string()),
  kind: z.enum(["preamble", "heading", "block", "description"]),
  /** 1-based lines in the SKILL.md as it was evaluated (frontmatter included). */
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  contentHash: z.string(),
});
export type AblationSection = z.infer<typeof AblationSectionSchema>;

export const AblationHeaderSchema = z.object({
  type: z.literal("ablation-header"),
  formatVersion: z.number().int(),
  toolVersion: z.string(),
  ablationId: z.string(),
  createdAt: z.string(),
  parent: z.object({
    /** The run file the full-skill outcomes come from (as given), and its run id. */
    runFile: z.string(),
    runId: z.string(),
    modelId: z.string(),
    model: z.string(),
    taskSetHash: z.string(),
    mode: RetrievalModeSchema,
    promptVersion: z.string(),
  }),
  skill: z.object({ name: z.string(), contentHash: z.string(), file: z.string() }),
  /** Sections ablated one at a time, in document order (the description only when asked for). */
  sections: z.array(AblationSectionSchema),
  selection: z.object({
    rescued: z.array(z.string()),
    harmed: z.array(z.string()),
    /** The seeded sample of both-pass tasks, and how many both-pass tasks it was drawn from. */
    bothPassSampled: z.array(z.string()),
    bothPassTotal: z.number().int().nonnegative(),
    q: z.number().min(0).max(1),
    seed: z.number().int(),
  }),
  /** Selected tasks in run order. */
  taskIds: z.array(z.string()),
  samples: z.number().int().positive(),
  /** `--ablate-pairs`: after the single sections, the pairs among the 3 most harmful. */
  pairs: z.boolean(),
});
export type AblationHeader = z.infer<typeof AblationHeaderSchema>;

export const AblationRecordSchema = RunRecordSchema.omit({ type: true, condition: true }).extend({
  type: z.literal("ablation-run"),
  /** `${taskId}\u0000${variant}\u0000${sample}` — unique per ablation file. */
  key: z.string(),
  /** A section id, or `idA+idB` for a pair. */
  variant: z.string(),
});
export type AblationRecord = z.infer<typeof AblationRecordSchema>;

export function ablationKey(taskId: string, variant: string, sample: number): string {
  return `${taskId}\u0000${variant}\u0000${sample}`;
}

export const PAIR_SEPARATOR = "+";

export function pairVariant(a: string, b: string): string {
  return `${a}${PAIR_SEPARATOR}${b}`;
}

/** The section ids a variant removes. Section ids never contain `+` (slugs are a-z0-9-, hashes hex). */
export function variantSections(variant: string): string[] {
  return variant.split(PAIR_SEPARATOR);
}
