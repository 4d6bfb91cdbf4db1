import { z } from "zod";
import type { Driver, Step } from "../sandbox/runner.js";
import type { ProcessMessage } from "../sandbox/protocol.js";
import { PyValueSchema } from "../sandbox/values.js";

/** One expected output: the value, or for a huge one its digest, size and a short preview. */
export const ExpectedValueSchema = z.union([z.object({ v: PyValueSchema }), z.object({ h: z.string().regex(/^[0-9a-f]{64}$/), n: z.number().int().nonnegative(), p: z.string().optional() })]);

export const ExpectedOutputsSchema = z.object({
  count: z.number().int().nonnegative(),
  /** The canonical solution's time per input, ms (the per-input limits derive from it). */
  timesMs: z.array(z.number().nonnegative()),
  /** Time the reference took to encode each output, ms (an answer gets 4× it to encode its own). */
  serializeMs: z.array(z.number().nonnegative()),
  /** Each input's repr, for verdict reasons. */
  inputs: z.array(z.string()),
  values: z.array(ExpectedValueSchema),
  /** Bytes of each value's encoding (0 for digests), for the per-output line caps. */
  bytes: z.array(z.number().int().nonnegative()),
  alt: z.array(PyValueSchema).optional(),
  args: z.array(PyValueSchema).optional(),
});
export type ExpectedOutputs = z.infer<typeof ExpectedOutputsSchema>;

export class ExpectedJobError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/**
 * The host side of an expected-outputs job on a reference process: collects each input's expected output in order,
 * and says whether the process may take another job (not after a failure).
 */
export class ExpectedDriver implements Driver<ExpectedOutputs | ExpectedJobError> {
  readonly firstDeadlineMs: number;
  readonly totalMs: number;
  private readonly out: ExpectedOutputs = { count: 0, timesMs: [], serializeMs: [], inputs: [], values: [], bytes: [] };
  private ok = false;

  constructor(capMs: number) {
    this.firstDeadlineMs = capMs;
    this.totalMs = capMs;
  }

  maxLineBytes(): number {
    // Trusted output; the cap only guards the host against a broken canonical solution.
    return 256 * 1024 * 1024;
  }

  onMessage(msg: ProcessMessage): Step<ExpectedOutputs | ExpectedJobError> {
    if (msg.type === "exp" && msg.i === this.out.count) {
      const o = this.out;
      o.count++;
      o.timesMs.push(msg.ms);
      o.serializeMs.push(msg.sms ?? 0);
      o.inputs.push(msg.in);
      if (msg.v !== undefined) {
        o.values.push({ v: msg.v });
        o.bytes.push(JSON.stringify(msg.v).length);
      } else if (msg.h !== undefined) {
        o.values.push({ h: msg.h, n: msg.n ?? 0, ...(msg.p !== undefined ? { p: msg.p } : {}) });
        o.bytes.push(0);
      } else {
        return { settle: new ExpectedJobError("the reference process sent an output with neither a value nor a digest", false) };
      }
      if (msg.alt !== undefined) (o.alt ??= []).push(msg.alt);
      if (msg.args !== undefined) (o.args ??= []).push(msg.args);
      return { next: this.totalMs };
    }
    if (msg.type === "done" && msg.count === this.out.count) {
      this.ok = true;
      return { settle: this.out };
    }
    if (msg.type === "raise") return { settle: new ExpectedJobError(`${msg.kind}: ${msg.error}`, msg.kind === "timeout") };
    return { settle: new ExpectedJobError(`unexpected message "${msg.type}" from the reference process`, false) };
  }

  onTimeout(): ExpectedJobError {
    return new ExpectedJobError(`timeout: the canonical solution ran past ${(this.totalMs / 1000).toFixed(0)} s`, true);
  }

  onMemory(rss: number): ExpectedJobError {
    return new ExpectedJobError(`memory: the reference process was killed at ${Math.round(rss / 1048576)} MB`, false);
  }

  onProtocol(why: string): ExpectedJobError {
    return new ExpectedJobError(`the reference process broke the protocol: ${why}`, false);
  }

  onEnd(why: string): ExpectedJobError {
    return new ExpectedJobError(`sandbox: ${why}`, true);
  }

  reusable(): boolean {
    return this.ok;
  }
}
