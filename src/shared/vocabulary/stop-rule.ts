import { z } from "zod";

/** `never`: run every planned task. `decided`: seeded random task order, stop once the sign of RAE is decided (anytime-valid). */
export const StopWhenSchema = z.enum(["never", "decided"]);
export type StopWhen = z.infer<typeof StopWhenSchema>;
