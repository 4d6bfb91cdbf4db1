import { z } from "zod";
import { ReportViewSchema } from "./report-view.js";
import { ExportFormatSchema } from "./vocabulary/export-format.js";

/**
 * The one protocol between the extension host and the report webview. Data crosses only as these messages
 * (never interpolated into HTML). Each direction has one `type` discriminant; both sides check `v`, and the
 * host safeParses every inbound message because a webview is a browser page running untrusted-looking content.
 */
export const PROTOCOL_VERSION = 1;

const V = z.literal(PROTOCOL_VERSION);

/** Host → webview. */
export const HostMessageSchema = z.discriminatedUnion("type", [
  /** Host sends the whole report to render (on open, on reload, after a re-evaluation). */
  z.object({ v: V, type: z.literal("report"), report: ReportViewSchema }),
  /** Host asks the webview to scroll to and highlight a section (e.g. the harmed list from a code action). */
  z.object({ v: V, type: z.literal("focus"), section: z.enum(["headline", "scatter", "skills", "rescued", "harmed"]) }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** Webview → host. */
export const WebviewMessageSchema = z.discriminatedUnion("type", [
  /** Webview script loaded and listening; the host (re)sends the report. */
  z.object({ v: V, type: z.literal("ready") }),
  /** User clicked a rescued/harmed task: host opens the enabled-vs-disabled side-by-side. */
  z.object({ v: V, type: z.literal("openTask"), runFile: z.string(), taskId: z.string(), sample: z.number().int().nonnegative() }),
  /** User clicked "Show latest" on the stale banner: host shows the newer run it named in `stale`. */
  z.object({ v: V, type: z.literal("showLatest") }),
  /** User clicked "Evaluate again" on the stale banner: host re-evaluates the skill it named in `stale`. */
  z.object({ v: V, type: z.literal("evaluateAgain") }),
  /** User clicked an export button: host runs Export Report in that format. */
  z.object({ v: V, type: z.literal("export"), format: ExportFormatSchema }),
  /** Webview finished rendering a report; lets the host (and tests) know what is on screen and how long it took. */
  z.object({
    v: V,
    type: z.literal("rendered"),
    ms: z.number(),
    skills: z.number().int(),
    rescued: z.number().int(),
    harmed: z.number().int(),
    /** Skill evals: the cells of the trigger heat map drawn (absent without skill evals). */
    triggerCells: z.number().int().optional(),
  }),
  /** The webview hit an error while rendering; the host logs it. */
  z.object({ v: V, type: z.literal("error"), message: z.string().max(4000) }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/** State the webview keeps with setState so a restored panel knows what it showed, and where the reader was. */
export const WebviewStateSchema = z.object({ runFiles: z.array(z.string()), title: z.string().optional(), scrollY: z.number().optional() });
export type WebviewState = z.infer<typeof WebviewStateSchema>;
