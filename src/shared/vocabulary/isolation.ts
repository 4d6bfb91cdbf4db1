import { z } from "zod";

/**
 * How generated code was isolated: a permission-model child process, the weaker worker-thread fallback, or no
 * sandbox at all (no python task ran). Listed strongest first.
 */
export const IsolationSchema = z.enum(["process-permission", "worker-fallback", "none"]);
export type Isolation = z.infer<typeof IsolationSchema>;

/** What a run header (and a report) records about the sandbox. */
export const SandboxInfoSchema = z.object({ isolation: IsolationSchema, detail: z.string().optional() });
export type SandboxInfo = z.infer<typeof SandboxInfoSchema>;
