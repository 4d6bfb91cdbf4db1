/**
 * Real agent harnesses (Codex CLI, Claude Code, …) as the agent of an evaluation: the contracts.
 *
 * How a harness run works (run.ts):
 *   1. a fresh workspace holds the task's prompt and files; the enabled condition installs every skill in the
 *      harness's project-level skills folder (`adapter.skillsDir`), the disabled condition installs none;
 *   2. a private HOME holds the adapter's config (`adapter.homeFiles`), which points the harness at the proxy;
 *   3. the recording proxy (proxy/server.ts) serves the harness's wire format (one `WireFormat` module per format in
 *      proxy/), turns each request into the engine's `ChatRequest`, asks the evaluation's `ModelClient` (so the
 *      response cache and the user's key stay in this process) and answers in the harness's format;
 *   4. the harness runs headless (`adapter.command`) under bubblewrap (confine.ts), or unconfined when the user
 *      allows it;
 *   5. what the agent did (its event stream, `adapter.parseEvent`, and the tool calls the proxy saw,
 *      `adapter.toolCallEvidence`) becomes the run's retrieval evidence (evidence.ts), and the final message (or a
 *      named file in the workspace) is graded by the existing graders.
 *
 * Adding a harness: implement `HarnessAdapter` in `<id>.ts`, register it in registry.ts; if it speaks a wire format
 * the proxy does not serve yet, add a `WireFormat` module in proxy/ and register it in proxy/formats.ts.
 */
import { z } from "zod";
import { AgentIdSchema, HarnessConfinementSchema } from "../../shared/vocabulary/index.js";
import type { HarnessConfinement, HarnessId } from "../../shared/vocabulary/index.js";
import type { AgentResult } from "../agent/loop.js";
import { SkillFollowingError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { ChatRequest, ChatResponse, ModelClient, SamplingParams, ToolCall } from "../models/types.js";
import type { Skill } from "../skills/types.js";
import type { Task } from "../tasks/schema.js";
import type { Condition } from "../../shared/vocabulary/index.js";

// ---------------------------------------------------------------------------------------------------------------
// Wire formats: what the proxy speaks to a harness.

export const WireFormatIdSchema = z.enum(["openai-responses", "openai-chat", "anthropic-messages", "gemini-generate-content"]);
export type WireFormatId = z.infer<typeof WireFormatIdSchema>;

/** A reply the proxy sends: a whole JSON body, or the chunks of a server-sent event stream in order. */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  body: string | readonly string[];
}

/** A request body the format cannot read: answered with status 400 and this message. */
export class WireFormatError extends Error {}

/**
 * One wire format of the proxy (proxy/openai-responses.ts, proxy/openai-chat.ts, proxy/anthropic-messages.ts,
 * proxy/gemini.ts).
 * Pure functions: no I/O, no clock, no randomness, so a cached answer replays as the same bytes.
 */
export interface WireFormat {
  readonly id: WireFormatId;
  /** Whether a POST to `path` (the URL path the harness used, e.g. `/v1/responses`) is this format's. */
  handles(path: string): boolean;
  /** The harness's request body (parsed JSON) → the engine's request. Throws WireFormatError on a body it cannot read. */
  toChatRequest(body: unknown): ChatRequest;
  /**
   * The engine's answer → the reply in the harness's format: streamed when the request asked for a stream.
   * `replyId` is derived from the request (stable across re-runs); formats build their response and item ids from it.
   * `path` is the URL path the request came to (the Gemini API says there whether to stream, and the model).
   */
  reply(response: ChatResponse, body: unknown, replyId: string, path: string): WireReply;
  /** An error (upstream failure, bad request) in the shape the harness expects from the real API. */
  error(status: number, message: string, body: unknown): WireReply;
}

/** One model exchange the proxy served, in order: the run's transcript, tokens and proxied tool calls come from these. */
export interface ProxyExchange {
  format: WireFormatId;
  request: ChatRequest;
  /** Absent when the model call failed (then `error` says why). */
  response?: ChatResponse;
  error?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Adapters: what the product knows about one harness.

/** The installed harness: recorded in the run header, so different versions are different runs. */
export interface HarnessBinary {
  /** Absolute path of the file that is executed (the native binary, or a JavaScript entry run by node). */
  path: string;
  /** The harness's own version string (from the package, checked against `--version` where it has one). */
  version: string;
  /** sha256 (hex) of `path`'s bytes. */
  sha256: string;
  /** The npm package it came from, e.g. `@openai/codex`. */
  package: string;
}

export interface LocateOptions {
  /** Folders to look for `node_modules/<package>` in (and above); default: the working folder. */
  from?: readonly string[];
  /** Whether to compute the binary's sha256 (default true; the run header and the cache need it). */
  hash?: boolean;
}

/** What a launch needs; paths are as the harness sees them (inside the sandbox they are fixed paths). */
export interface LaunchContext {
  binary: HarnessBinary;
  /** The workspace (the harness's working folder). */
  workspace: string;
  /** The private HOME. */
  home: string;
  /** The proxy's base URL as the harness reaches it, ending in `/v1` (e.g. `http://127.0.0.1:41001/v1`). */
  proxyUrl: string;
  /** A dummy credential the harness sends to the proxy (never the user's key). */
  dummyKey: string;
  /** The model name the harness asks for. */
  model: string;
  /** The task prompt, as the user message of the harness's first turn. */
  prompt: string;
  params: SamplingParams;
  /** Agent turns (model calls) allowed; the proxy enforces it too. */
  maxTurns: number;
}

/** What the agent did, as far as retrieval and grading care. */
export type HarnessEvent =
  /** A shell command (run by the harness, or asked for by the model in a tool call). */
  | { kind: "command"; command: string }
  /** A file read with a file tool (path absolute, or relative to the workspace). */
  | { kind: "read"; path: string }
  /** A skill loaded with the harness's skill tool (Claude Code's Skill tool). */
  | { kind: "skill"; name: string }
  /** An assistant message; the last one is the final message. */
  | { kind: "message"; text: string }
  /** Token use the harness reported (informational: the proxy's counts are recorded). */
  | { kind: "usage"; prompt: number; completion: number }
  | { kind: "error"; message: string };

export interface HarnessAdapter {
  readonly id: HarnessId;
  /** The wire format the harness speaks to its model endpoint. */
  readonly wireFormat: WireFormatId;
  /** Project-level skills folder relative to the workspace; the enabled condition installs `<skillsDir>/<name>/SKILL.md`. */
  readonly skillsDir: string;
  /**
   * Finds the installed harness (path, version, sha256): its npm package under `options.from` (default: the working
   * folder) or above, beside this program, or its command on PATH. `hash: false` skips the sha256 (empty), for a
   * listing. Throws HarnessError with a fix when it is not installed.
   */
  locate(options?: LocateOptions): Promise<HarnessBinary>;
  /** Files of the private HOME (paths relative to HOME): the config that points the harness at the proxy. */
  homeFiles(ctx: LaunchContext): Record<string, string>;
  /**
   * The headless command: argv[0] is the program (`ctx.binary.path`, or node for a JavaScript harness). `env` is
   * what the harness needs besides HOME, PATH, TZ and LANG (set by the runner); it never holds a real key.
   */
  command(ctx: LaunchContext): { argv: string[]; env: Record<string, string> };
  /** The settings the adapter gives the harness that change its behaviour (config keys, flags): the run header's. */
  settings(): Record<string, string>;
  /** One line of the harness's stdout event stream → what it tells. Lines it does not know give []. */
  parseEvent(line: string): HarnessEvent[];
  /** The evidence in one tool call the model made, as the proxy saw it (a shell command, a file read, a skill load). */
  toolCallEvidence(call: ToolCall): HarnessEvent[];
  /**
   * Optional: rewrites a request before it reaches the model and the cache, replacing values that differ between
   * two identical runs (e.g. the current date a harness puts in its context) with the run's fixed values.
   */
  normalizeRequest?(request: ChatRequest, fixed: { date: string }): ChatRequest;
}

/** A harness that cannot run (not installed, not confined, bad output): a clear message naming the fix. */
export class HarnessError extends SkillFollowingError {}

// ---------------------------------------------------------------------------------------------------------------
// Running one task in one condition (run.ts: `runHarness(session, input)`).

/** What every harness run of one evaluation shares. */
export interface HarnessSession {
  adapter: HarnessAdapter;
  binary: HarnessBinary;
  confinement: HarnessConfinement;
  /** Where each run's workspace, HOME and proxy socket are made (removed after the run). */
  workRoot: string;
  /**
   * Runs of one task × condition × sample that run side by side (a section ablation's variants) have different
   * groups: part of each run's folder name, which stays one level under `workRoot` (the socket path is bounded).
   */
  runGroup?: string;
  /** The run's fixed date (YYYY-MM-DD, from the run header): what `normalizeRequest` puts in place of today's. */
  fixedDate: string;
  /** Wall-clock limit of one harness process (ms); past it the process is killed and the run is a model failure. */
  timeoutMs: number;
  logger?: Logger;
}

export interface HarnessRunInput {
  task: Task;
  condition: Condition;
  /** The skill library; installed only in the enabled condition. */
  skills: readonly Skill[];
  /** Section ablation: the SKILL.md body to install instead of the skill's own (frontmatter kept). */
  servedBody?: (skill: Skill) => string;
  client: ModelClient;
  model: string;
  params: SamplingParams;
  sampleIndex: number;
  maxTurns: number;
  signal?: AbortSignal;
}

/** The built-in loop's result (so the run record is built the same way), plus the harness's own events. */
export interface HarnessRunResult extends AgentResult {
  events: HarnessEvent[];
}

// ---------------------------------------------------------------------------------------------------------------
// The run header's record of the harness.

export const HarnessInfoSchema = z.object({
  id: AgentIdSchema.exclude(["builtin"]),
  version: z.string(),
  package: z.string(),
  /** sha256 of the executed file. */
  sha256: z.string(),
  wireFormat: WireFormatIdSchema,
  skillsDir: z.string(),
  /** bwrap: only the workspace writable, network only to the proxy; unconfined: the user allowed running without. */
  confinement: HarnessConfinementSchema,
  /** Every setting the adapter gives the harness that changes its behaviour. */
  settings: z.record(z.string(), z.string()),
});
export type HarnessInfo = z.infer<typeof HarnessInfoSchema>;

/** The cache scope of a harness's model calls: the same request from another harness or version is another entry. */
export function harnessCacheScope(info: Pick<HarnessInfo, "id" | "version" | "sha256">): string {
  return `${info.id}@${info.version}#${info.sha256}`;
}

export type { HarnessConfinement, HarnessId, ChatResponse };
