/**
 * An attempt's abort switch without an AbortController.
 *
 * Why: every model call made an AbortController (an EventTarget) and added and removed listeners on it; in the
 * scripted-server benchmark that was about 2.5 % of the engine's CPU per call (bench/README.md, "Engine CPU per
 * call"). The direct path (chat-post.ts → http-fetch.ts `post`) reads only what `Abortable` names, so it gets the
 * tripwire itself; a library that needs a real AbortSignal (the SDK's streamed path, a followed redirect) gets
 * `signal`, made on first use and aborted with the same reason.
 */

/** What the direct path reads of an AbortSignal. Every AbortSignal is one. */
export interface Abortable {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export class Tripwire implements Abortable {
  aborted = false;
  reason: unknown = undefined;
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | undefined;

  /**
   * As `AbortController.abort()` without a reason: the reason is an AbortError DOMException, each listener is
   * called once, in the order added, and a listener added afterwards is never called.
   */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException("This operation was aborted", "AbortError");
    this.controller?.abort(this.reason);
    const listeners = [...this.listeners];
    this.listeners.clear();
    let failed: { err: unknown } | undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        // The others still run, as on an EventTarget; then the first error goes to whoever aborted.
        failed ??= { err };
      }
    }
    if (failed) throw failed.err;
  }

  /** Once, as `{ once: true }` on a signal: aborting clears every listener. Adding the same one twice adds it once. */
  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.aborted) this.listeners.add(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    this.listeners.delete(listener);
  }

  /** A real AbortSignal that follows this tripwire (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}
