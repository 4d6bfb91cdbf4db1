import { z } from "zod";

/**
 * How generated code was isolated: a Pyodide process under Node's permission model, a native CPython process under
 * bubblewrap and a seccomp filter (opt-in, `sandbox.python: "cpython"`), the worker-thread fallback, or no sandbox at all
 * (no python task ran). Listed strongest first.
 */
export const IsolationSchema = z.enum(["process-permission", "native-confined", "worker-fallback", "none"]);
export type Isolation = z.infer<typeof IsolationSchema>;

/** The Python that checks generated code: Pyodide (default, every platform) or native CPython (opt-in, Linux with bubblewrap). */
export const PythonRuntimeSchema = z.enum(["pyodide", "cpython"]);
export type PythonRuntime = z.infer<typeof PythonRuntimeSchema>;

/** What a run header (and a report) records about the sandbox. */
export const SandboxInfoSchema = z.object({ isolation: IsolationSchema, detail: z.string().optional() });
export type SandboxInfo = z.infer<typeof SandboxInfoSchema>;
