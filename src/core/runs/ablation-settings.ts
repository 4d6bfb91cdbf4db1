import { z } from "zod";
import { InputError } from "../errors.js";
import { DEFAULT_ABLATE_CONTROL } from "./ablation-plan.js";

/**
 * The settings of a section ablation, the engine's variant run (ablate.ts): what it adds to the run it re-runs.
 * Everything else (model, parameters, retrieval mode, agent, judge, sandbox runtime) is the run header's, so the
 * variants are comparable with the run's full-skill outcomes.
 */
export const AblationSettingsSchema = z.object({
  /** Runs in flight at once. */
  concurrency: z.number().int().min(1).max(64),
  /** Samples per task and variant (default: the run's; at most the run's, checked against it when planning). */
  samples: z.number().int().min(1).optional(),
  /** Fraction of the skill's both-pass tasks to include. */
  control: z.number().min(0).max(1).default(DEFAULT_ABLATE_CONTROL),
  /** Seed of the both-pass sample (default: the run's shuffle seed, else 1). */
  seed: z.number().int().optional(),
  /** After the single sections, the pairs among the 3 most harmful. */
  pairs: z.boolean().default(false),
  /** Also ablate the frontmatter description (changes the catalog, so its calls are all new; built-in agent only). */
  description: z.boolean().default(false),
  /** A harness run's ablation without bubblewrap, when the user allowed it (as for the run). */
  agentUnconfined: z.boolean().default(false),
});
export type AblationSettings = z.infer<typeof AblationSettingsSchema>;
export type AblationSettingsInput = z.input<typeof AblationSettingsSchema>;

const ACCEPTED: Record<string, string> = {
  concurrency: "a whole number from 1 to 64",
  samples: "a whole number ≥ 1",
  control: "a number from 0 to 1",
  seed: "a whole number",
  pairs: "true or false",
  description: "true or false",
  agentUnconfined: "true or false",
};

/** Validates an ablation's settings (unknown keys of a larger options object are ignored). A bad value is an InputError naming it. */
export function parseAblationSettings(input: AblationSettingsInput): AblationSettings {
  const r = AblationSettingsSchema.safeParse(input);
  if (r.success) return r.data;
  const key = String(r.error.issues[0]!.path[0]);
  const got = (input as Record<string, unknown>)[key];
  const what = key === "control" ? "the fraction of both-pass tasks to ablate" : key;
  throw new InputError(`${what} must be ${ACCEPTED[key] ?? "valid"} (got ${JSON.stringify(got)})`);
}
