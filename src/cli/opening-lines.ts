import { CancelledError, EndpointUnreachableError } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import type { ModelClient } from "../core/models/types.js";

/** How long the opening lines wait for a first answer before they are shown anyway (a slow endpoint, batch mode). */
export const OPENING_HOLD_MS = 10_000;

/**
 * A run's opening lines (what is evaluated, the sandbox, a resume, progress) are held until the endpoint has answered
 * once, a cached answer came back, a call failed for another reason, or OPENING_HOLD_MS passed. An endpoint that
 * cannot be reached then ends the run with the model line, the error and its hint: no preamble for a run that never
 * started (drop()). Errors are never held.
 */
export class OpeningLines implements Logger {
  private queue: Array<() => void> | undefined = [];

  constructor(private readonly inner: Logger) {}

  get holding(): boolean {
    return this.queue !== undefined;
  }

  trace(message: string): void {
    this.put(() => this.inner.trace(message));
  }

  debug(message: string): void {
    this.put(() => this.inner.debug(message));
  }

  info(message: string): void {
    this.put(() => this.inner.info(message));
  }

  warn(message: string): void {
    this.put(() => this.inner.warn(message));
  }

  error(message: string | Error): void {
    this.release();
    this.inner.error(message);
  }

  /** Shows what was held, in order; from now on lines go straight through. */
  release(): void {
    const held = this.queue;
    this.queue = undefined;
    for (const write of held ?? []) write();
  }

  /** The run never started: what was held is not shown. */
  drop(): void {
    this.queue = undefined;
  }

  /** The client, releasing the lines on its first answer or on a failure other than an unreachable endpoint. */
  watch(client: ModelClient): ModelClient {
    return {
      id: client.id,
      ...(client.weights ? { weights: client.weights } : {}),
      ...(client.batch ? { batch: client.batch } : {}),
      complete: async (request, options) => {
        try {
          const response = await client.complete(request, options);
          this.release();
          return response;
        } catch (error) {
          if (!(error instanceof EndpointUnreachableError) && !(error instanceof CancelledError)) this.release();
          throw error;
        }
      },
    };
  }

  private put(write: () => void): void {
    if (this.queue) this.queue.push(write);
    else write();
  }
}
