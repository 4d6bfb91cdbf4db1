/**
 * A small stand-in for the `vscode` module, just enough for the vscode.lm client under plain node: message and part
 * classes that record what they were built with, LanguageModelError with its codes, and a cancellation source.
 * Installed by `installFakeVscode()` through Node's module resolution, before the client is imported.
 */
import Module from "node:module";

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolCallPart {
  constructor(readonly callId: string, readonly name: string, readonly input: object) {}
}
export class LanguageModelToolResultPart {
  constructor(readonly callId: string, readonly content: unknown[]) {}
}
export class LanguageModelChatMessage {
  constructor(readonly role: "user" | "assistant", readonly content: string | unknown[]) {}
  static User(content: string | unknown[]) {
    return new LanguageModelChatMessage("user", content);
  }
  static Assistant(content: string | unknown[]) {
    return new LanguageModelChatMessage("assistant", content);
  }
}
export class LanguageModelError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
  static NoPermissions(m = "") {
    return new LanguageModelError(m, "NoPermissions");
  }
  static Blocked(m = "") {
    return new LanguageModelError(m, "Blocked");
  }
  static NotFound(m = "") {
    return new LanguageModelError(m, "NotFound");
  }
}
// The real classes' static factories are named after the code; the client compares `err.code` with `.name`.
Object.defineProperty(LanguageModelError.NoPermissions, "name", { value: "NoPermissions" });
Object.defineProperty(LanguageModelError.Blocked, "name", { value: "Blocked" });
Object.defineProperty(LanguageModelError.NotFound, "name", { value: "NotFound" });

export class CancellationTokenSource {
  cancelled = false;
  readonly token = { isCancellationRequested: false };
  cancel() {
    this.cancelled = true;
    this.token.isCancellationRequested = true;
  }
  dispose() {}
}

export const lm = { selectChatModels: async () => [] };

/** vscode.EventEmitter: listeners called in order; `event(listener, thisArg, disposables)`. */
export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  readonly event = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: { dispose(): void }[]) => {
    const bound = (e: T) => listener.call(thisArg, e);
    this.listeners.push(bound);
    const d = { dispose: () => (this.listeners = this.listeners.filter((l) => l !== bound)) };
    disposables?.push(d);
    return d;
  };
  fire(e: T) {
    for (const l of [...this.listeners]) l(e);
  }
  dispose() {
    this.listeners = [];
  }
}

/** A vscode.Memento in memory (workspaceState / globalState). */
export class MemoryMemento {
  private readonly data = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.data.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.data.has(key) ? (structuredClone(this.data.get(key)) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, structuredClone(value));
  }
}

const fake = {
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  LanguageModelChatMessage,
  LanguageModelError,
  CancellationTokenSource,
  EventEmitter,
  lm,
};

let installed = false;
export function installFakeVscode(): void {
  if (installed) return;
  installed = true;
  const m = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = m._load;
  m._load = function (request: string, ...rest: unknown[]) {
    if (request === "vscode") return fake;
    return original.call(this, request, ...rest);
  };
}
