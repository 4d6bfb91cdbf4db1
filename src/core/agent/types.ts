import { z } from "zod";
import { SkillRefSchema } from "../../shared/vocabulary/index.js";

/** One tool call the agent made, as the run file records it. */
export const ToolCallRecordSchema = z.object({
  name: z.string(),
  arguments: z.string(),
  /** Skills the call returned; non-empty makes it a retrieval event. */
  retrieved: z.array(SkillRefSchema),
  error: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;
