import { z } from "zod";

/** A skill's identity in results: its name and the sha256 of its normalised content, so edits are told apart. */
export const SkillRefSchema = z.object({ name: z.string(), contentHash: z.string() });
export type SkillRef = z.infer<typeof SkillRefSchema>;
