import { z } from "zod";

/**
 * How the enabled condition reaches the skills. `catalog`: names and descriptions in the system prompt, bodies by
 * `load_skill(name)`. `search`: `search_skills(query)` returns the top-k skills above a score threshold.
 */
export const RetrievalModeSchema = z.enum(["catalog", "search"]);
export type RetrievalMode = z.infer<typeof RetrievalModeSchema>;

/** The search tool's cut-offs (search mode only). */
export const SearchOptionsSchema = z.object({
  topK: z.number().int().positive(),
  /** Minimum MiniSearch (BM25+) score for a skill to be returned. */
  threshold: z.number(),
});
export type SearchOptions = z.infer<typeof SearchOptionsSchema>;

export const DEFAULT_SEARCH: SearchOptions = { topK: 3, threshold: 0 };
