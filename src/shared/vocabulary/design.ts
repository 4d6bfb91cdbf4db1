import { z } from "zod";

/**
 * `paired`: every task in both conditions (OAE, RAE, NRAE, lift). `rae-only`: the disabled condition only where the
 * enabled run retrieved (cheaper; RAE only).
 */
export const DesignSchema = z.enum(["paired", "rae-only"]);
export type Design = z.infer<typeof DesignSchema>;

/**
 * RAE-only design: a random control sample (fraction q, chosen by a seeded hash of the task id, so fixed before any
 * run) whose disabled runs are made whatever the enabled run does, so NRAE is estimable and A0 testable.
 */
export const ControlSampleSchema = z.object({ q: z.number().gt(0).lte(1), seed: z.number().int() });
export type ControlSample = z.infer<typeof ControlSampleSchema>;
