import { z } from "zod";

/** The two conditions of every paired comparison: skills offered (enabled) or not (disabled). */
export const ConditionSchema = z.enum(["enabled", "disabled"]);
export type Condition = z.infer<typeof ConditionSchema>;
