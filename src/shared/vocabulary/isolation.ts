import { z } from "zod";

/**
 * How generated code was isolated: a Pyodide process under Node's permission model, a native CPython process under
 * bubblewrap and a seccomp filter (the default where its probe passes), the worker-thread fallback, or no sandbox at all
 * (no python task ran). Listed strongest first.
 */
export const IsolationSchema = z.enum(["process-permission", "native-confined", "worker-fallback", "none"]);
export type Isolation = z.infer<typeof IsolationSchema>;

/**
 * The Python that checks generated code: `auto` (the default: native CPython where its probe passes — Linux,
 * bubblewrap, CPython 3.11+ — else Pyodide), `pyodide` (every platform) or `cpython` (Linux with bubblewrap; an error
 * elsewhere, never a fallback).
 */
export const PythonRuntimeSchema = z.enum(["auto", "pyodide", "cpython"]);
export type PythonRuntime = z.infer<typeof PythonRuntimeSchema>;

/** What a run header (and a report) records about the sandbox. */
export const SandboxInfoSchema = z.object({ isolation: IsolationSchema, detail: z.string().optional() });
export type SandboxInfo = z.infer<typeof SandboxInfoSchema>;
