import type { Job, Role, WorkerConfig } from "./protocol.js";

/**
 * The sandbox process's side of the wire, without zod: the worker bundle is loaded by every fresh answer process,
 * and zod alone made it 0.8 MB to compile and ~50–80 ms of CPU to load, per answer. The host validates everything a
 * process sends with the full schemas (protocol.ts); what the process reads comes from its host, so a shape check
 * that names the field is enough here.
 */
export const PROTOCOL_VERSION = 2;

const ROLES: readonly Role[] = ["snapshot", "answer", "reference"];
const MODES: ReadonlySet<string> = new Set(["expected", "check", "exec"]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The job of one host line (`{"type":"run","job":{…}}`), or a reason it is not one. */
export function parseHostLine(line: string): { job: Job } | { error: string } {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return { error: "not JSON" };
  }
  if (!isRecord(msg) || msg.type !== "run") return { error: "not a run message" };
  const job = msg.job;
  if (!isRecord(job) || typeof job.mode !== "string" || !MODES.has(job.mode)) return { error: "job.mode is not expected, check or exec" };
  if (job.mode === "exec" ? typeof job.code !== "string" : typeof job.program !== "string") return { error: "the job has no program" };
  return { job: job as unknown as Job };
}

/** The process's start-up parameters (its only command-line argument). */
export function parseWorkerConfig(raw: unknown): WorkerConfig {
  const fail = (field: string): never => {
    throw new Error(`bad sandbox process config: ${field}`);
  };
  if (!isRecord(raw)) return fail("not an object");
  if (!ROLES.includes(raw.role as Role)) fail("role");
  if (typeof raw.pyodideDir !== "string") fail("pyodideDir");
  if (raw.snapshotFile !== undefined && typeof raw.snapshotFile !== "string") fail("snapshotFile");
  for (const k of ["memoryMb", "outputCapBytes"]) if (typeof raw[k] !== "number" || !(raw[k] > 0)) fail(k);
  if (raw.closeFds !== undefined && !(Array.isArray(raw.closeFds) && raw.closeFds.every((fd) => Number.isInteger(fd) && (fd as number) >= 3))) fail("closeFds");
  return raw as unknown as WorkerConfig;
}
