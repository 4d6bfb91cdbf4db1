/**
 * One harness run: a fresh workspace and private HOME, the skills installed (enabled condition only), the model
 * proxy, the harness headless (confined by bubblewrap unless the user allowed otherwise), then the evidence, the
 * transcript and the answer. See types.ts for the whole picture.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { replyOverCap } from "../agent/extract.js";
import { emptyAgentResult } from "../agent/loop.js";
import { CancelledError } from "../errors.js";
import type { ChatMessage, ChatRequest } from "../models/types.js";
import { recordedArguments } from "../retrieval/tool-args.js";
import { killTree } from "../sandbox/job.js";
import type { Skill } from "../skills/types.js";
import { harnessAnswer, harnessPrompt } from "./answer.js";
import { bwrapArgv, findBwrap, FORWARD_PORT, FORWARDER_SOURCE, SANDBOX_HOME, SANDBOX_WORKSPACE } from "./confine.js";
import { RetrievalTracker, type InstalledSkill } from "./evidence.js";
import { wireFormat } from "./proxy/formats.js";
import { startModelProxy } from "./proxy/server.js";
import { harnessCacheScope, HarnessError, type HarnessEvent, type HarnessRunInput, type HarnessRunResult, type HarnessSession, type LaunchContext } from "./types.js";

/** The date in the form of a harness request the response cache keys on (normalizeRequest's date, any day). */
const CACHE_KEY_DATE = "0000-00-00";
const PATH = "/usr/local/bin:/usr/bin:/bin";
/** Output kept of the harness's stderr, for the error of a failed run. */
const STDERR_TAIL = 4000;

/** Files of a folder, relative and `/`-separated (skills are small). */
function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** Copies each skill's folder to `<skillsDir>/<name>/`; section ablation rewrites the installed SKILL.md's body. */
function installSkills(skills: readonly Skill[], target: string, servedBody: HarnessRunInput["servedBody"]): InstalledSkill[] {
  return skills.map((skill) => {
    const dest = path.join(target, skill.name);
    cpSync(skill.dir, dest, { recursive: true, dereference: true });
    if (servedBody) {
      const lines = readFileSync(skill.file, "utf8").replace(/\r\n/g, "\n").split("\n");
      const frontmatter = lines.slice(0, Math.max(0, skill.bodyLine - 1)).join("\n");
      writeFileSync(path.join(dest, "SKILL.md"), `${frontmatter}\n${servedBody(skill)}`);
    }
    return { ref: { name: skill.name, contentHash: skill.contentHash }, files: listFiles(dest) };
  });
}

/**
 * A stable folder name per task × condition × sample (and the session's run group, for a variant's runs), so an
 * unconfined run's paths (which the harness puts in its requests) repeat. One level under the work root whatever the
 * group: the proxy's socket is in it, and a socket path has a hard length limit.
 */
function runFolder(input: HarnessRunInput, group: string | undefined): string {
  const id = `${input.task.id}\u0000${input.condition}\u0000${input.sampleIndex}`;
  return createHash("sha256").update(group === undefined ? id : `${id}\u0000${group}`).digest("hex").slice(0, RUN_FOLDER_LENGTH);
}

const RUN_FOLDER_LENGTH = 16;

/**
 * The longest Unix socket path Linux binds: `sun_path` is 108 bytes with its final NUL. Node does not refuse a longer
 * one, it binds a truncated path, which bubblewrap then cannot find (every run would fail before its first model call).
 */
export const MAX_SOCKET_PATH_BYTES = 107;

/** Where a confined run's model proxy listens (bind-mounted into its sandbox): in the run's folder. */
export function proxySocketPath(workRoot: string, folder = "0".repeat(RUN_FOLDER_LENGTH)): string {
  return path.join(workRoot, folder, "proxy.sock");
}

/** Why a work root cannot hold a proxy socket (its path would be too long), or undefined when it can. */
export function socketPathProblem(workRoot: string): string | undefined {
  const socket = proxySocketPath(workRoot);
  const bytes = Buffer.byteLength(socket);
  if (bytes <= MAX_SOCKET_PATH_BYTES) return undefined;
  return `the harness's model socket would be ${socket} (${bytes} bytes), longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket path can hold`;
}

export async function runHarness(session: HarnessSession, input: HarnessRunInput): Promise<HarnessRunResult> {
  const { adapter } = session;
  if (input.signal?.aborted) throw new CancelledError();
  const confined = session.confinement === "bwrap";
  const bwrap = confined ? findBwrap() : undefined;
  if (confined && !bwrap) throw new HarnessError("bubblewrap (bwrap) is not installed: harness runs need it to confine the agent's shell commands");

  if (confined) {
    const problem = socketPathProblem(session.workRoot);
    if (problem) throw new HarnessError(`${problem}: the temporary folder ${path.dirname(session.workRoot)} is too deep for confined harness runs`);
  }
  const folder = runFolder(input, session.runGroup);
  const dir = path.join(session.workRoot, folder);
  rmSync(dir, { recursive: true, force: true });
  const [workspace, home] = [path.join(dir, "workspace"), path.join(dir, "home")];
  for (const d of [workspace, home]) mkdirSync(d, { recursive: true });
  const installed = input.condition === "enabled" ? installSkills(input.skills, path.join(workspace, adapter.skillsDir), input.servedBody) : [];
  for (const [rel, text] of Object.entries(adapter.workspaceFiles?.(input.condition) ?? {})) {
    const file = path.join(workspace, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const dummyKey = `sk-proxy-${randomBytes(12).toString("hex")}`;
  const socket = proxySocketPath(session.workRoot, folder);

  const proxy = await startModelProxy({
    client: input.client,
    formats: [wireFormat(adapter.wireFormat)],
    model: input.model,
    params: input.params,
    sampleIndex: input.sampleIndex,
    cacheScope: harnessCacheScope({ id: adapter.id, version: session.binary.version, sha256: session.binary.sha256 }),
    maxCalls: input.maxTurns,
    dummyKey,
    // The model sees the run's date; the cache keys on a date-free form, so the same run on another day is free.
    ...(adapter.normalizeRequest ? { normalize: (r: ChatRequest) => adapter.normalizeRequest!(r, { date: session.fixedDate }), cacheKeyOf: (r: ChatRequest) => adapter.normalizeRequest!(r, { date: CACHE_KEY_DATE }) } : {}),
    ...(confined ? { socketPath: socket } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });

  const ctx: LaunchContext = {
    binary: session.binary,
    workspace: confined ? SANDBOX_WORKSPACE : workspace,
    home: confined ? SANDBOX_HOME : home,
    proxyUrl: `${confined ? `http://127.0.0.1:${FORWARD_PORT}` : proxy.url!}/v1`,
    dummyKey,
    model: input.model,
    prompt: harnessPrompt(input.task),
    params: input.params,
    maxTurns: input.maxTurns,
  };
  try {
    for (const [rel, text] of Object.entries(adapter.homeFiles(ctx))) {
      const file = path.join(home, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    const command = adapter.command(ctx);
    const env: Record<string, string> = { HOME: ctx.home, PATH, TZ: "UTC", LANG: "C.UTF-8", ...command.env };
    let argv: string[];
    if (confined) {
      const forwarder = path.join(dir, "forwarder.cjs");
      writeFileSync(forwarder, FORWARDER_SOURCE);
      const packageRoot = path.dirname(path.dirname(session.binary.path));
      argv = [...bwrapArgv({ bwrap: bwrap!, workspace, home, socket, forwarder, readOnly: [packageRoot], env }), ...command.argv];
    } else argv = command.argv;

    const events: HarnessEvent[] = [];
    const outcome = await execute(argv, confined ? { ELECTRON_RUN_AS_NODE: "1" } : env, confined ? dir : workspace, session.timeoutMs, input.signal, (line) => events.push(...adapter.parseEvent(line)), command.stdin, confined);
    if (input.signal?.aborted) throw new CancelledError();
    if (proxy.failure) throw proxy.failure;
    // bubblewrap could not build the sandbox (a bind source missing, …): the harness never ran, so the run says
    // nothing about the model or the task, and every run would fail alike. Not a graded "no answer".
    const setup = confined && outcome.code !== 0 && proxy.exchanges.length === 0 ? /^bwrap: .*$/m.exec(outcome.stderr) : null;
    if (setup) throw new HarnessError(`bubblewrap could not start the harness: ${setup[0]}`);

    // Retrieval: the model's tool calls as the proxy saw them, then the harness's own events.
    const tracker = new RetrievalTracker(installed, adapter.skillsDir);
    const result: HarnessRunResult = { ...emptyAgentResult([]), turns: proxy.exchanges.length, events };
    const { toolCalls } = result;
    for (const ex of proxy.exchanges) {
      if (!ex.response) continue;
      result.tokens.prompt += ex.response.usage.promptTokens;
      result.tokens.completion += ex.response.usage.completionTokens;
      result.latencyMs += ex.response.latencyMs;
      if (ex.response.cached) result.cachedCalls++;
      else result.modelCalls++;
      for (const call of ex.response.toolCalls) {
        const retrieved = adapter.toolCallEvidence(call).flatMap((e) => tracker.add(e));
        toolCalls.push({ name: call.name, arguments: recordedArguments(call.arguments), retrieved });
      }
    }
    for (const e of events) tracker.add(e);
    const retrieval = tracker.result();
    result.retrieved = retrieval.retrieved;
    result.filesRead = retrieval.filesRead;

    const last = proxy.exchanges[proxy.exchanges.length - 1];
    const transcript: ChatMessage[] = last ? [...last.request.messages] : [];
    if (last?.response) transcript.push({ role: "assistant", content: last.response.content, ...(last.response.toolCalls.length ? { toolCalls: last.response.toolCalls } : {}) });
    result.transcript = transcript;

    const messages = events.filter((e): e is Extract<HarnessEvent, { kind: "message" }> => e.kind === "message");
    const lastModelText = [...proxy.exchanges].reverse().find((e) => e.response?.content)?.response?.content ?? null;
    result.finalText = messages.length ? messages[messages.length - 1]!.text : lastModelText;
    result.answer = harnessAnswer(input.task, result.finalText, workspace);

    const errors: string[] = [];
    if (proxy.turnLimitHit) errors.push(`turn limit reached: ${input.maxTurns} model turns without a final answer`);
    else if (outcome.timedOut) errors.push(`the harness ran past ${Math.round(session.timeoutMs / 1000)} s and was stopped`);
    else if (outcome.code !== 0) errors.push(`the harness exited with ${outcome.code === null ? `signal ${outcome.signal ?? "?"}` : `code ${outcome.code}`}${outcome.stderr ? `: ${outcome.stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`);
    const over = replyOverCap(result.finalText);
    if (over) errors.push(over);
    if (errors.length) result.error = errors.join("; ");
    return result;
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Outcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stderr: string;
}

function execute(argv: string[], env: Record<string, string>, cwd: string, timeoutMs: number, signal: AbortSignal | undefined, onLine: (line: string) => void, stdin: string | undefined, lifeline: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    // A confined run's forwarder reads descriptor 3 as its lifeline (confine.ts): this process holds the only writer,
    // so the sandbox ends when this process does, however it ends.
    const stdio: Array<"ignore" | "pipe"> = [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", ...(lifeline ? (["pipe"] as const) : [])];
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio, detached: true });
    // The harness's input, when it takes one. A harness that exits before reading it closes the pipe: that is its
    // outcome, not an error here.
    child.stdin?.on("error", () => {});
    child.stdin?.end(stdin);
    let stderr = "";
    let pending = "";
    let timedOut = false;
    let exited = false;
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf("\n");
      while (nl >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf("\n");
      }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    const stop = () => killTree(child, exited);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new HarnessError(`cannot start the harness (${argv[0]}): ${err.message}`));
    });
    child.on("close", (code, sig) => {
      exited = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      if (pending) onLine(pending);
      resolve({ code, signal: sig, timedOut, stderr });
    });
  });
}
