/**
 * A small stand-in for the `vscode` module: enough for the vscode.lm client under plain node (message and part
 * classes that record what they were built with, LanguageModelError with its codes, a cancellation source), and
 * for the command flows (`editor`: registered commands, context keys set, settings, workspace trust, and scripted
 * answers to the notifications, input boxes and quick picks). Anything else is an inert stub. Installed by
 * `installFakeVscode()` through Node's module resolution, before the code under test is imported.
 */
import { existsSync } from "node:fs";
import Module from "node:module";
import path from "node:path";

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
  private readonly listeners: (() => void)[] = [];
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: (listener: () => void) => {
      this.listeners.push(listener);
      return { dispose: () => void this.listeners.splice(this.listeners.indexOf(listener), 1) };
    },
  };
  cancel() {
    this.cancelled = true;
    this.token.isCancellationRequested = true;
    for (const l of [...this.listeners]) l();
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

export class Position {
  constructor(readonly line: number, readonly character: number) {}
}
export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}
/** vscode.CodeLens: a range and the command its title shows. */
export class CodeLens {
  constructor(readonly range: Range, readonly command?: { command: string; title: string; tooltip?: string; arguments?: unknown[] }) {}
}

/** vscode.TestItemCollection: insertion-ordered, iterated as [id, item]. */
export class FakeTestItemCollection {
  private readonly map = new Map<string, FakeTestItem>();
  constructor(private readonly parent?: FakeTestItem) {}
  get size() {
    return this.map.size;
  }
  get(id: string) {
    return this.map.get(id);
  }
  add(item: FakeTestItem) {
    item.parent = this.parent;
    this.map.set(item.id, item);
  }
  delete(id: string) {
    this.map.delete(id);
  }
  replace(items: readonly FakeTestItem[]) {
    this.map.clear();
    for (const i of items) this.add(i);
  }
  forEach(fn: (item: FakeTestItem) => void) {
    for (const i of this.map.values()) fn(i);
  }
  [Symbol.iterator]() {
    return this.map.entries();
  }
}

export class FakeTestItem {
  description?: string;
  parent?: FakeTestItem;
  readonly children: FakeTestItemCollection = new FakeTestItemCollection(this);
  constructor(readonly id: string, public label: string, readonly uri?: Uri) {}
}

export class TestMessage {
  expectedOutput?: string;
  actualOutput?: string;
  constructor(readonly message: string) {}
  static diff(message: string, expected: string, actual: string) {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export class TestRunRequest {
  constructor(readonly include?: readonly FakeTestItem[], readonly exclude?: readonly FakeTestItem[], readonly profile?: unknown) {}
}

export const TestRunProfileKind = { Run: 1, Debug: 2, Coverage: 3 };

/** A vscode.TestRun that records every state it was told, in order, and the output lines per item. */
export class FakeTestRun {
  readonly states: { id: string; state: string; message?: TestMessage }[] = [];
  readonly output: { id?: string; text: string }[] = [];
  ended = false;
  constructor(readonly request: TestRunRequest, readonly name: string | undefined, readonly persist: boolean) {}
  private set(item: FakeTestItem, state: string, message?: TestMessage | readonly TestMessage[]) {
    if (this.ended) throw new Error(`state ${state} of ${item.id} reported after the run ended`);
    this.states.push({ id: item.id, state, ...(message ? { message: Array.isArray(message) ? message[0] : (message as TestMessage) } : {}) });
  }
  enqueued = (i: FakeTestItem) => this.set(i, "enqueued");
  started = (i: FakeTestItem) => this.set(i, "started");
  passed = (i: FakeTestItem) => this.set(i, "passed");
  skipped = (i: FakeTestItem) => this.set(i, "skipped");
  failed = (i: FakeTestItem, m: TestMessage) => this.set(i, "failed", m);
  errored = (i: FakeTestItem, m: TestMessage) => this.set(i, "errored", m);
  appendOutput(text: string, _location?: unknown, item?: FakeTestItem) {
    this.output.push({ ...(item ? { id: item.id } : {}), text });
  }
  end() {
    this.ended = true;
  }
  /** The last state each item was given in this run. */
  final(): Map<string, { state: string; message?: TestMessage }> {
    const out = new Map<string, { state: string; message?: TestMessage }>();
    for (const s of this.states) if (s.state !== "started" && s.state !== "enqueued") out.set(s.id, s);
    return out;
  }
}

export class FakeTestController {
  readonly items = new FakeTestItemCollection();
  readonly profiles: { label: string; kind: number; runHandler: (r: TestRunRequest, t: unknown) => unknown; isDefault: boolean; dispose(): void }[] = [];
  readonly runs: FakeTestRun[] = [];
  refreshHandler?: () => unknown;
  constructor(readonly id: string, readonly label: string) {}
  createTestItem(id: string, label: string, uri?: Uri) {
    return new FakeTestItem(id, label, uri);
  }
  createRunProfile(label: string, kind: number, runHandler: (r: TestRunRequest, t: unknown) => unknown, isDefault = false) {
    const p = { label, kind, runHandler, isDefault, dispose: () => void this.profiles.splice(this.profiles.indexOf(p), 1) };
    this.profiles.push(p);
    return p;
  }
  createTestRun(request: TestRunRequest, name?: string, persist = true) {
    const r = new FakeTestRun(request, name, persist);
    this.runs.push(r);
    return r;
  }
  dispose() {}
}

export const tests = {
  createTestController(id: string, label: string) {
    const c = new FakeTestController(id, label);
    editor.testControllers.push(c);
    return c;
  },
};

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
  /** Save and open dialogs shown (their options, and whether the default folder existed when each was shown). */
  dialogs: [] as { kind: "save" | "open"; options: { defaultUri?: Uri; title?: string }; defaultExisted: boolean }[],
  /** Documents shown in an editor (window.showTextDocument), as file paths. */
  shownDocuments: [] as string[],
  /** Test controllers created (vscode.tests.createTestController). */
  testControllers: [] as FakeTestController[],
  /** Answers, in order, per kind of prompt; an empty queue answers undefined (the user dismissed it). */
  answers: { message: [] as Answer[], input: [] as Answer[], pick: [] as Answer[], dialog: [] as (string | undefined)[] },
  reset() {
    this.isTrusted = true;
    this.commands.clear();
    this.contexts.clear();
    this.executed = [];
    this.settings.clear();
    this.messages = [];
    this.panels = [];
    this.shownDocuments = [];
    this.dialogs = [];
    this.testControllers = [];
    this.answers = { message: [], input: [], pick: [], dialog: [] };
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
  /** Save dialog: records its options, answers the next `answers.dialog` path (undefined: cancelled). */
  showSaveDialog: async (options: { defaultUri?: Uri }) => {
    editor.dialogs.push({ kind: "save", options, defaultExisted: !!options.defaultUri && existsSync(path.dirname(options.defaultUri.fsPath)) });
    const a = editor.answers.dialog.shift();
    return a === undefined ? undefined : Uri.file(a);
  },
  showOpenDialog: async (options: { defaultUri?: Uri }) => {
    editor.dialogs.push({ kind: "open", options, defaultExisted: !!options.defaultUri && existsSync(options.defaultUri.fsPath) });
    const a = editor.answers.dialog.shift();
    return a === undefined ? undefined : [Uri.file(a)];
  },
  showTextDocument: async (doc: Uri | { uri: Uri }) => {
    editor.shownDocuments.push(doc instanceof Uri ? doc.fsPath : doc.uri.fsPath);
    return { document: doc };
  },
  setStatusBarMessage: disposable,
  createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
  /** Runs the task at once, never cancelled from the notification. */
  withProgress: async (_options: unknown, task: (progress: unknown, token: unknown) => unknown) => task({ report() {} }, new CancellationTokenSource().token),
  createWebviewPanel(viewType: string, title: string) {
    const p = new FakeWebviewPanel(viewType, title);
    editor.panels.push(p);
    return p;
  },
};

export const StatusBarAlignment = { Left: 1, Right: 2 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };

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
  onDidChangeTextDocument: disposable,
  /** A watcher that never reports (tests call the code a change would). */
  createFileSystemWatcher: () => ({ onDidCreate: disposable, onDidChange: disposable, onDidDelete: disposable, dispose() {} }),
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
  Position,
  Range,
  CodeLens,
  commands,
  window,
  workspace,
  ConfigurationTarget,
  StatusBarAlignment,
  ProgressLocation,
  tests,
  TestMessage,
  TestRunRequest,
  TestRunProfileKind,
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
