import { z } from "zod";

/**
 * Which agent runs the tasks: `builtin` is the product's own loop (catalog or search tools); the others are real
 * agent harnesses run headless against the model through the recording proxy (src/core/agents).
 */
export const AgentIdSchema = z.enum(["builtin", "codex", "claude-code", "opencode", "gemini"]);
export type AgentId = z.infer<typeof AgentIdSchema>;

/** A real harness (every agent but the built-in loop). */
export type HarnessId = Exclude<AgentId, "builtin">;

/** How a harness run was confined: bubblewrap (workspace-only writes, network only to the proxy) or not at all. */
export const HarnessConfinementSchema = z.enum(["bwrap", "unconfined"]);
export type HarnessConfinement = z.infer<typeof HarnessConfinementSchema>;
