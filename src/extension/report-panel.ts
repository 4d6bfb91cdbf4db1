import * as vscode from "vscode";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { REPORT_VIEW_TYPE } from "./command-ids.js";
import { HostMessageSchema, PROTOCOL_VERSION, WebviewMessageSchema, WebviewStateSchema, type HostMessage, type WebviewMessage } from "../shared/protocol.js";
import type { ReportView } from "../shared/report-view.js";
import type { ExportFormat } from "../shared/vocabulary/index.js";
import type { Report } from "../core/report/schema.js";
import type { ExtensionLogger } from "./logger.js";

/**
 * Report panels: one per run (or set of runs), restored after a reload by a WebviewPanelSerializer. The page is
 * locked down (CSP `default-src 'none'`, scripts only by a fresh crypto nonce, no eval, resources only from
 * dist/webview and media) and receives data only through the typed protocol in src/shared/protocol.ts.
 */
export interface ReportHost {
  /** Builds the report of these run files (re-read from disk): the core model (exports) and its view (webview). */
  load(runFiles: string[]): Promise<{ report: Report; view: ReportView }>;
  openTask(runFile: string, taskId: string, sample: number): Promise<void>;
  exportReport(panel: ReportPanel, format: ExportFormat): Promise<void>;
  /** "Evaluate again" on the stale banner: re-evaluate this skill file. */
  evaluateAgain(skillFile: string): Promise<void>;
}

export class ReportPanel implements vscode.Disposable {
  private report: ReportView | undefined;
  private model: Report | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly renderedEmitter = new vscode.EventEmitter<Extract<WebviewMessage, { type: "rendered" }>>();
  /** Fires when the webview reports it rendered a report (tests and the e2e wait on this). */
  readonly onDidRender = this.renderedEmitter.event;
  lastRendered: Extract<WebviewMessage, { type: "rendered" }> | undefined;
  /** Counts refreshes started; a load that finishes after a later one started is dropped. */
  private generation = 0;
  /** A focus request that arrived before the page rendered; sent once it has. */
  private pendingFocus: (HostMessage & { type: "focus" }) | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private files: string[],
    private readonly host: ReportHost,
    private readonly logger: ExtensionLogger,
    onDispose: () => void,
    private readonly onRetarget: (panel: ReportPanel, before: string[]) => void = () => {},
  ) {
    panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw), this, this.disposables);
    // A hidden webview's page is destroyed (no retainContextWhenHidden): what it rendered is gone with it.
    panel.onDidChangeViewState(
      (e) => {
        if (!e.webviewPanel.visible) this.lastRendered = undefined;
      },
      this,
      this.disposables,
    );
    panel.onDidDispose(
      () => {
        onDispose();
        this.dispose();
      },
      this,
      this.disposables,
    );
  }

  get current(): ReportView | undefined {
    return this.report;
  }

  /** The run files this panel shows (a retarget replaces them). */
  get runFiles(): string[] {
    return this.files;
  }

  /** The skill files the shown run evaluated (from the report model): evaluate-on-save retargets by these. */
  get skillFiles(): string[] {
    return (this.model?.evaluations ?? []).flatMap((e) => e.skills.flatMap((s) => (s.file ? [s.file] : [])));
  }

  /** Shows other run files in this panel (a newer run of the same skill): same panel, same scroll position. */
  async retarget(runFiles: string[]): Promise<void> {
    const before = this.files;
    this.files = runFiles;
    this.onRetarget(this, before);
    await this.refresh();
  }

  /** The core report model shown (what Export Report renders). */
  get reportModel(): Report | undefined {
    return this.model;
  }

  async refresh(): Promise<void> {
    // Refreshes overlap (a save's stale banner, a retarget, a reveal): only the one started last may render, or a slow
    // load of the run shown before a retarget would paint over the new run.
    const generation = ++this.generation;
    const { report, view } = await this.host.load(this.runFiles);
    if (generation !== this.generation) return;
    this.model = report;
    this.report = view;
    this.panel.title = `Report: ${this.report.title}`;
    this.post({ v: PROTOCOL_VERSION, type: "report", report: this.report });
  }

  /** Scrolls the page to a section, now if it has rendered, else right after it does. */
  focus(message: HostMessage & { type: "focus" }): void {
    if (this.lastRendered) this.post(message);
    else this.pendingFocus = message;
  }

  post(message: HostMessage): void {
    // Validate on the way out too: a bad report is a host bug and must not reach the page half-formed.
    const checked = HostMessageSchema.parse(message);
    void this.panel.webview.postMessage(checked);
  }

  private receive(raw: unknown): void {
    const parsed = WebviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`ignored a malformed message from the report webview: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case "ready":
        this.lastRendered = undefined;
        if (this.report) this.post({ v: PROTOCOL_VERSION, type: "report", report: this.report });
        else void this.refresh().catch((err: unknown) => this.logger.error(err instanceof Error ? err : String(err)));
        break;
      case "openTask":
        if (!this.runFiles.includes(msg.runFile)) {
          this.logger.warn(`report asked for a task of a run it does not show: ${msg.runFile}`);
          return;
        }
        void this.host.openTask(msg.runFile, msg.taskId, msg.sample);
        break;
      case "export":
        void this.host.exportReport(this, msg.format);
        break;
      case "showLatest": {
        // Only the run the host itself named as the latest: the page cannot make the host open an arbitrary file.
        const latest = this.report?.stale?.latestRunFile;
        if (latest) void this.retarget([latest]).catch((err: unknown) => this.logger.error(err instanceof Error ? err : String(err)));
        break;
      }
      case "evaluateAgain": {
        const skill = this.report?.stale?.skillFile;
        if (skill) void this.host.evaluateAgain(skill);
        break;
      }
      case "rendered":
        this.lastRendered = msg;
        if (this.pendingFocus) {
          this.post(this.pendingFocus);
          this.pendingFocus = undefined;
        }
        this.logger.debug(`report rendered in ${msg.ms.toFixed(1)} ms (${msg.skills} skills, ${msg.harmed} harmed, ${msg.rescued} rescued)`);
        this.renderedEmitter.fire(msg);
        break;
      case "error":
        this.logger.warn(`report webview: ${msg.message}`);
        break;
    }
  }

  dispose(): void {
    this.renderedEmitter.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString("base64");
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "main.js"));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", "report.css"));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Skill Following report</title>
</head>
<body>
<div id="app"><p id="loading">Loading report…</p></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** One key per set of run files however their paths were spelled (the order stays: it is the order compared). */
export function panelKey(runFiles: readonly string[]): string {
  return runFiles.map((f) => path.resolve(f)).join("\n");
}

export class ReportPanels implements vscode.Disposable, vscode.WebviewPanelSerializer {
  private readonly panels = new Map<string, ReportPanel>();
  private readonly openedEmitter = new vscode.EventEmitter<ReportPanel>();
  readonly onDidOpen = this.openedEmitter.event;
  private activePanel: ReportPanel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: ReportHost,
    private readonly logger: ExtensionLogger,
  ) {}

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist", "webview"), vscode.Uri.joinPath(this.extensionUri, "media")],
    };
  }

  /** The panel the user looked at last (for Export Report from the palette). */
  get active(): ReportPanel | undefined {
    return this.activePanel;
  }

  all(): ReportPanel[] {
    return [...this.panels.values()];
  }

  private attach(panel: vscode.WebviewPanel, runFiles: string[]): ReportPanel {
    const key = panelKey(runFiles);
    panel.webview.options = this.options();
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri);
    const rp = new ReportPanel(
      panel,
      runFiles,
      this.host,
      this.logger,
      () => {
        if (this.panels.get(panelKey(rp.runFiles)) === rp) this.panels.delete(panelKey(rp.runFiles));
        if (this.activePanel === rp) this.activePanel = undefined;
        void vscode.commands.executeCommand("setContext", "skillFollowing.reportActive", this.panels.size > 0);
      },
      (moved, before) => {
        if (this.panels.get(panelKey(before)) === moved) this.panels.delete(panelKey(before));
        this.panels.set(panelKey(moved.runFiles), moved);
      },
    );
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.activePanel = rp;
    });
    this.panels.set(key, rp);
    this.activePanel = rp;
    void vscode.commands.executeCommand("setContext", "skillFollowing.reportActive", true);
    this.openedEmitter.fire(rp);
    return rp;
  }

  /** Opens the report of these run files; one that is open already is revealed (and re-read), not opened twice. */
  async open(runFiles: string[], focus?: HostMessage & { type: "focus" }): Promise<ReportPanel> {
    let rp = this.panels.get(panelKey(runFiles));
    if (rp) {
      rp.panel.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, "Skill Following report", vscode.ViewColumn.Active, this.options());
      rp = this.attach(panel, runFiles);
    }
    try {
      await rp.refresh();
    } catch (err) {
      // A run file that cannot be read leaves no half-open "Loading…" panel behind; the caller shows the error.
      rp.panel.dispose();
      throw err;
    }
    if (focus) rp.focus(focus);
    return rp;
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const parsed = WebviewStateSchema.safeParse(state);
    if (!parsed.success || parsed.data.runFiles.length === 0) {
      panel.dispose();
      return;
    }
    const rp = this.attach(panel, parsed.data.runFiles);
    await rp.refresh().catch((err: unknown) => {
      this.logger.warn(`could not restore report ${parsed.data.runFiles.join(", ")}: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  /** Re-renders every open panel that shows this run file (after a re-evaluation appended to it). */
  async refreshRun(runFile: string): Promise<void> {
    await Promise.all(this.all().filter((p) => p.runFiles.includes(runFile)).map((p) => p.refresh()));
  }

  /** Re-renders every open panel about one of these skill files (its stale banner may have changed). */
  async refreshSkills(skillFiles: string[]): Promise<void> {
    const wanted = new Set(skillFiles.map((f) => vscode.Uri.file(f).fsPath));
    const about = this.all().filter((p) => p.skillFiles.some((f) => wanted.has(vscode.Uri.file(f).fsPath)));
    await Promise.all(about.map((p) => p.refresh().catch((err: unknown) => this.logger.warn(`report refresh: ${String(err)}`))));
  }

  /**
   * After a re-evaluation of these skills wrote `runFile`: every open single-run panel about exactly these skills now
   * shows the new run (evaluate-on-save updates the report the user is reading); returns how many were retargeted.
   */
  async retargetSkills(skillFiles: string[], runFile: string): Promise<number> {
    const key = (files: string[]) => [...new Set(files.map((f) => vscode.Uri.file(f).fsPath))].sort().join("\n");
    const want = key(skillFiles);
    const panels = this.all().filter((p) => p.runFiles.length === 1 && panelKey(p.runFiles) !== panelKey([runFile]) && key(p.skillFiles) === want);
    await Promise.all(panels.map((p) => p.retarget([runFile])));
    return panels.length;
  }

  /**
   * The report of a new evaluation of these skills: the panel already showing these skills' report shows the new run
   * and is revealed (one tab per skill, not one per evaluation); without one, a new panel.
   */
  async openEvaluation(skillFiles: string[], runFile: string): Promise<ReportPanel> {
    const key = (files: string[]) => [...new Set(files.map((f) => path.resolve(f)))].sort().join("\n");
    const want = key(skillFiles);
    const same = this.panels.get(panelKey([runFile])) ?? this.all().find((p) => p.runFiles.length === 1 && key(p.skillFiles) === want);
    if (same && panelKey(same.runFiles) !== panelKey([runFile])) await same.retarget([runFile]);
    return this.open([runFile]);
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.openedEmitter.dispose();
  }
}
