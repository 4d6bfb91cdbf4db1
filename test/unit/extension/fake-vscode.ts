/**
 * A small stand-in for the `vscode` module: enough for the vscode.lm client under plain node (message and part
 * classes that record what they were built with, LanguageModelError with its codes, a cancellation source), and
 * for the command flows (`editor`: registered commands, context keys set, settings, workspace trust, and scripted
 * answers to the notifications, input boxes and quick picks). Anything else is an inert stub. Installed by
 * `installFakeVscode()` through Node's module resolution, before the code under test is imported.
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

export class Uri {
  scheme = "file";
  query = "";
  private constructor(readonly fsPath: string) {}
  static file(p: string) {
    return new Uri(p);
  }
  /** A virtual document's URI (scheme, path, query), as vscode.Uri.from makes it. */
  static from(c: { scheme: string; path?: string; query?: string }) {
    const u = new Uri(c.path ?? "");
    u.scheme = c.scheme;
    u.query = c.query ?? "";
    return u;
  }
  static joinPath(base: Uri, ...parts: string[]) {
    return new Uri([base.fsPath, ...parts].join("/"));
  }
  get path() {
    return this.fsPath;
  }
  toString() {
    return this.scheme === "file" ? `file://${this.fsPath}` : `${this.scheme}:${this.fsPath}${this.query ? `?${this.query}` : ""}`;
  }
}

type Answer = string | undefined | ((items: unknown[]) => unknown);

/** The editor's state a test scripts and inspects. `reset()` between tests. */
export const editor = {
  isTrusted: true,
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  contexts: new Map<string, unknown>(),
  executed: [] as string[],
  settings: new Map<string, unknown>(),
  messages: [] as string[],
  /** Webview panels created (createWebviewPanel), with how often each was revealed. */
  panels: [] as FakeWebviewPanel[],
  /** Answers, in order, per kind of prompt; an empty queue answers undefined (the user dismissed it). */
  answers: { message: [] as Answer[], input: [] as Answer[], pick: [] as Answer[] },
  reset() {
    this.isTrusted = true;
    this.commands.clear();
    this.contexts.clear();
    this.executed = [];
    this.settings.clear();
    this.messages = [];
    this.panels = [];
    this.answers = { message: [], input: [], pick: [] };
  },
};

const disposable = () => ({ dispose() {} });

export class FakeWebviewPanel {
  title: string;
  revealed = 0;
  disposed = false;
  readonly posted: unknown[] = [];
  private readonly disposeListeners: (() => void)[] = [];
  readonly webview = {
    options: {},
    html: "",
    cspSource: "vscode-resource:",
    asWebviewUri: (u: Uri) => u,
    onDidReceiveMessage: disposable,
    postMessage: async (m: unknown) => {
      this.posted.push(m);
      return true;
    },
  };
  constructor(readonly viewType: string, title: string) {
    this.title = title;
  }
  onDidChangeViewState = disposable;
  onDidDispose = (listener: () => void) => {
    this.disposeListeners.push(listener);
    return { dispose() {} };
  };
  reveal() {
    this.revealed += 1;
  }
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    for (const l of this.disposeListeners) l();
  }
}

function answer(kind: keyof typeof editor.answers, items: unknown[]): unknown {
  const a = editor.answers[kind].shift();
  if (typeof a === "function") return a(items);
  if (a === undefined || kind === "input") return a;
  return items.find((i) => i === a || (typeof i === "object" && i !== null && (i as { label?: unknown }).label === a));
}

const message = async (text: string, ...items: unknown[]) => {
  editor.messages.push(text);
  return answer("message", items.filter((i) => typeof i === "string"));
};

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown) {
    editor.commands.set(id, fn);
    return { dispose: () => editor.commands.delete(id) };
  },
  async executeCommand(id: string, ...args: unknown[]) {
    editor.executed.push(id);
    if (id === "setContext") {
      editor.contexts.set(String(args[0]), args[1]);
      return undefined;
    }
    return editor.commands.get(id)?.(...args);
  },
};

export const window = {
  showInformationMessage: message,
  showWarningMessage: message,
  showErrorMessage: message,
  showInputBox: async () => answer("input", []),
  showQuickPick: async (items: unknown[] | Promise<unknown[]>) => answer("pick", await items),
  setStatusBarMessage: disposable,
  createWebviewPanel(viewType: string, title: string) {
    const p = new FakeWebviewPanel(viewType, title);
    editor.panels.push(p);
    return p;
  },
};

export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 };

export const workspace = {
  get isTrusted() {
    return editor.isTrusted;
  },
  workspaceFolders: undefined,
  textDocuments: [],
  getConfiguration(section: string) {
    const key = (k: string) => `${section}.${k}`;
    return {
      get: (k: string, fallback?: unknown) => (editor.settings.has(key(k)) ? editor.settings.get(key(k)) : fallback),
      inspect: (k: string) => ({ key: key(k), globalValue: editor.settings.get(key(k)) }),
      update: async (k: string, v: unknown) => void (v === undefined ? editor.settings.delete(key(k)) : editor.settings.set(key(k), v)),
      has: (k: string) => editor.settings.has(key(k)),
    };
  },
  onDidChangeConfiguration: disposable,
  asRelativePath: (u: Uri | string) => (typeof u === "string" ? u : u.fsPath),
  getWorkspaceFolder: () => undefined,
};

const fake: Record<string, unknown> = {
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  LanguageModelChatMessage,
  LanguageModelError,
  CancellationTokenSource,
  EventEmitter,
  lm,
  Uri,
  commands,
  window,
  workspace,
  ConfigurationTarget,
};

/** An inert value for everything the fake does not model: any property, call or `new` gives another stub. */
function stub(): unknown {
  const target = function () {};
  return new Proxy(target, {
    get: (_t, p) => (p === Symbol.toPrimitive ? () => "stub" : p === "then" ? undefined : stub()),
    apply: () => stub(),
    construct: () => stub() as object,
  });
}
// The stubs come from the prototype: a bundler's `import * as vscode` copies own keys and keeps the prototype.
Object.setPrototypeOf(fake, new Proxy({}, { get: (_t, p) => (typeof p === "string" && p !== "then" && p !== "__esModule" ? stub() : undefined) }));

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
