/**
 * Batch mode: a ModelClient whose calls go out as OpenAI batch jobs (`/v1/files` + `/v1/batches`, half price).
 *
 * Rounds. The engine says when a run starts and ends (BatchGate); a call waits until every started run is waiting
 * for the model, and then all waiting requests go out as one batch (split only at the provider's 50,000-request and
 * 200 MB limits). A multi-turn run therefore advances one turn per round. Nothing is decided by a timer.
 *
 * Same requests, same cache. A batch line's body is exactly the synchronous request body, and its custom id is the
 * request's response-cache key (model, messages, tools, sampling, sample index, endpoint), so equal requests are
 * sent once, results are stored in the response cache before the journal calls the round done, and a batch run
 * and a synchronous run of the same evaluation share every answer.
 *
 * Crashes and restarts (batch-journal.ts). Every round is journalled before it is sent, with its file and batch
 * ids as they become known. A restart re-attaches to every live round: it polls a created batch; it finds a lost
 * create by the round's input file, and a lost upload by the round's file name, before making either again; a
 * batch or file the provider no longer has is dropped and its waiting requests are sent again. A round is never
 * created twice.
 *
 * Failures. A request that failed inside a batch (an error line, a batch that expired or failed before answering
 * it) fails its run; the run is not recorded, so resuming sends it again. A refused `max_tokens` is re-sent with
 * `max_completion_tokens` in the next round, as the synchronous client does.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import OpenAI from "openai";
import { CancelledError, ModelRequestError } from "../errors.js";
import { JsonFileCache } from "../json-file-cache.js";
import { silentLogger, type Logger } from "../logger.js";
import { BatchJournal, roundFileName, type JournalRound } from "./batch-journal.js";
import { BatchProvider, GoneError, readResultLine, TERMINAL, type ProviderBatch, type ResultLine } from "./batch-provider.js";
import { CachedResponseSchema, requestCacheKey, type CachedResponse } from "./cache.js";
import { abortableSleep, openAIEndpoint, Redaction } from "./openai-client.js";
import type { BatchGate, BatchSessionOptions, BatchStatus, ChatRequest, ChatResponse, ModelClient } from "./types.js";
import { toWireBody } from "./wire.js";

/** OpenAI's limits per batch input file. */
export const MAX_BATCH_REQUESTS = 50_000;
const MAX_BATCH_BYTES = 190 * 2 ** 20;

export interface OpenAIBatchClientOptions {
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** Deadline of one provider call (default 120 s; uploads get ten times as long). */
  timeoutMs?: number;
  logger?: Logger;
  env?: Record<string, string | undefined>;
  /** Where the response cache lives: every downloaded answer is stored there, waited for or not. */
  responsesDir?: string;
  /** A fixed poll interval; default 5 s, growing by half each poll up to 60 s. */
  pollMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  maxBackoffMs?: number;
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

interface Waiter {
  resolve: (r: ChatResponse) => void;
  reject: (e: unknown) => void;
}

/** One request, and the calls waiting for its answer (equal requests share one entry). */
interface Entry {
  key: string;
  /** Absent for a request known only from the journal, until a run asks for it again. */
  request?: ChatRequest;
  waiters: Set<Waiter>;
}

interface Round {
  id: string;
  entries: Map<string, Entry>;
  at: string;
  fileId?: string;
  batchId?: string;
  status?: BatchStatus;
}

type Outcome = { ok: true; response: ChatResponse } | { ok: false; error: unknown };
type Settled = Outcome | { ok: "again" };

export function createOpenAIBatchClient(options: OpenAIBatchClientOptions): ModelClient {
  const { baseURL, apiKey, endpoint, id } = openAIEndpoint(options);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sdk = new OpenAI({ apiKey, baseURL, maxRetries: 0, timeout: timeoutMs * 10, logLevel: "off" });
  const logger = options.logger ?? silentLogger;
  const sleep = options.sleep ?? abortableSleep;
  const provider = new BatchProvider({
    sdk,
    endpoint,
    redaction: new Redaction(apiKey),
    logger,
    attempts: Math.max(0, options.maxRetries ?? 6) + 1,
    backoff: { baseMs: options.retryBaseMs ?? 500, maxMs: options.maxBackoffMs ?? 20_000, maxRetryAfterMs: 60_000 },
    sleep,
  });
  const store = options.responsesDir ? new JsonFileCache(options.responsesDir, CachedResponseSchema, { logger, name: "response cache", onMiss: "fetching again" }) : undefined;
  const batcher = new Batcher(id, provider, store, { pollMs: options.pollMs, sleep, logger });
  return { id, batch: batcher, complete: (request, callOptions) => batcher.complete(request, callOptions.sampleIndex, callOptions.signal) };
}

class Batcher implements BatchGate {
  private readonly unsent = new Map<string, Entry>();
  /** Keys in a round at the provider (this session's or re-attached). */
  private readonly inflight = new Map<string, Entry>();
  /** Answers that arrived with nobody waiting (a re-attached round): handed to the first call that asks. */
  private readonly orphans = new Map<string, ChatResponse>();
  private readonly rounds = new Map<string, Round>();
  private readonly drives = new Set<Promise<void>>();
  private active = 0;
  private waiting = 0;
  private checkScheduled = false;
  private completionTokensParam = false;
  private session: { journal: BatchJournal; controller: AbortController; logger: Logger; onStatus?: (b: readonly BatchStatus[]) => void } | undefined;

  constructor(
    private readonly endpointId: string,
    private readonly provider: BatchProvider,
    private readonly store: JsonFileCache<CachedResponse> | undefined,
    private readonly o: { pollMs?: number; sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>; logger: Logger },
  ) {}

  async begin(options: BatchSessionOptions): Promise<void> {
    if (this.session) throw new Error("batch client: a session is already open");
    const logger = options.logger ?? this.o.logger;
    const controller = new AbortController();
    // Every poll, upload and download of every round listens on it.
    setMaxListeners(0, controller.signal);
    options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
    const journal = BatchJournal.open(options.journalFile, logger);
    this.session = { journal, controller, logger, ...(options.onStatus ? { onStatus: options.onStatus } : {}) };
    // Re-attach to what an earlier session left at the provider, before any run asks.
    for (const live of journal.live.values()) this.startDrive(this.restore(live));
    if (journal.live.size > 0) logger.info(`batch: re-attaching to ${journal.live.size} batch round${journal.live.size > 1 ? "s" : ""} from ${options.journalFile}`);
    await Promise.resolve();
  }

  runStarted(): void {
    this.active++;
  }

  runEnded(): void {
    this.active--;
    this.scheduleCheck();
  }

  async end(): Promise<void> {
    const s = this.session;
    if (!s) return;
    s.controller.abort();
    await Promise.allSettled([...this.drives]);
    s.journal.close();
    this.session = undefined;
    this.unsent.clear();
    this.inflight.clear();
    this.orphans.clear();
    this.rounds.clear();
    this.active = 0;
    this.waiting = 0;
  }

  complete(request: ChatRequest, sampleIndex: number, signal: AbortSignal | undefined): Promise<ChatResponse> {
    if (!this.session) return Promise.reject(new Error("batch client: no evaluation is running (begin() was not called)"));
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const key = requestCacheKey(request, sampleIndex, this.endpointId);
    const orphan = this.orphans.get(key);
    if (orphan) {
      this.orphans.delete(key);
      return Promise.resolve(orphan);
    }
    return new Promise<ChatResponse>((resolve, reject) => {
      let entry = this.inflight.get(key) ?? this.unsent.get(key);
      if (!entry) {
        entry = { key, request, waiters: new Set() };
        this.unsent.set(key, entry);
      } else entry.request ??= request;
      const e = entry;
      const onAbort = (): void => {
        if (!e.waiters.delete(waiter)) return;
        this.waiting--;
        if (e.waiters.size === 0 && this.unsent.get(key) === e) this.unsent.delete(key);
        reject(new CancelledError());
        this.scheduleCheck();
      };
      const waiter: Waiter = {
        resolve: (r) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(r);
        },
        reject: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      e.waiters.add(waiter);
      this.waiting++;
      this.scheduleCheck();
    });
  }

  /** After the current turn of the event loop: send a round once every started run is waiting. */
  private scheduleCheck(): void {
    if (this.checkScheduled) return;
    this.checkScheduled = true;
    setImmediate(() => {
      this.checkScheduled = false;
      if (this.session && !this.session.controller.signal.aborted && this.unsent.size > 0 && this.waiting >= this.active) this.flush();
    });
  }

  private flush(): void {
    const entries = [...this.unsent.values()].filter((e) => e.waiters.size > 0);
    this.unsent.clear();
    let chunk: Entry[] = [];
    let bytes = 0;
    const send = (): void => {
      if (chunk.length === 0) return;
      const round: Round = { id: randomUUID(), entries: new Map(chunk.map((e) => [e.key, e])), at: new Date().toISOString() };
      for (const e of chunk) this.inflight.set(e.key, e);
      this.startDrive(round);
      chunk = [];
      bytes = 0;
    };
    for (const e of entries) {
      const size = this.line(e).length + 1;
      if (chunk.length >= MAX_BATCH_REQUESTS || (chunk.length > 0 && bytes + size > MAX_BATCH_BYTES)) send();
      chunk.push(e);
      bytes += size;
    }
    send();
  }

  /** The batch input line of a request: its synchronous body, keyed by its cache key. */
  private line(e: Entry): string {
    const body = { ...toWireBody(e.request!), stream: false };
    if (this.completionTokensParam && body.max_tokens !== undefined) {
      body.max_completion_tokens = body.max_tokens;
      delete body.max_tokens;
    }
    return JSON.stringify({ custom_id: e.key, method: "POST", url: "/v1/chat/completions", body });
  }

  private restore(live: JournalRound): Round {
    const round: Round = { id: live.round, entries: new Map(), at: live.at, ...(live.fileId ? { fileId: live.fileId } : {}), ...(live.batchId ? { batchId: live.batchId } : {}) };
    for (const key of live.keys) {
      const entry: Entry = this.inflight.get(key) ?? { key, waiters: new Set() };
      round.entries.set(key, entry);
      this.inflight.set(key, entry);
    }
    return round;
  }

  private startDrive(round: Round): void {
    this.rounds.set(round.id, round);
    const p = this.drive(round).finally(() => this.drives.delete(p));
    this.drives.add(p);
  }

  /** Takes a round from wherever it stands to its results (or leaves it live when the session ends). */
  private async drive(round: Round): Promise<void> {
    const s = this.session!;
    const signal = s.controller.signal;
    const fresh = !s.journal.live.has(round.id);
    try {
      if (fresh) s.journal.append({ type: "round", round: round.id, keys: [...round.entries.keys()], at: round.at });
      if (!round.fileId) {
        if (fresh) round.fileId = await this.provider.upload(roundFileName(round.id), Buffer.from([...round.entries.values()].map((e) => this.line(e)).join("\n") + "\n"), signal);
        else round.fileId = await this.provider.findFile(roundFileName(round.id), signal);
        if (!round.fileId) return this.drop(round, "its input file never reached the provider");
        s.journal.append({ type: "uploaded", round: round.id, fileId: round.fileId });
      }
      if (!round.batchId) {
        const found = fresh ? undefined : await this.provider.findBatch(round.fileId, signal);
        if (!found && !fresh && !(await this.provider.fileExists(round.fileId, signal))) return this.drop(round, "its input file is gone at the provider");
        const batch = found ?? (await this.provider.create(round.fileId, round.id, signal));
        round.batchId = batch.id;
        s.journal.append({ type: "created", round: round.id, batchId: batch.id });
        s.logger.info(`batch ${batch.id}: ${round.entries.size} requests sent`);
      }
      const final = await this.poll(round, signal);
      if (!final) return;
      await this.collect(round, final);
      s.journal.append({ type: "done", round: round.id, status: final.status });
      this.forget(round);
    } catch (err) {
      if (signal.aborted || err instanceof CancelledError) return;
      if (err instanceof GoneError) return this.drop(round, `the provider no longer has it (${err.message})`);
      // The round could not be sent or read: its runs fail now (resumable); a restart re-attaches if it was created.
      s.logger.warn(`batch round ${round.batchId ?? round.id}: ${err instanceof Error ? err.message : String(err)}`);
      for (const e of round.entries.values()) this.deliver(e, { ok: false, error: err });
      this.forget(round);
    }
  }

  /** Polls until the batch is final; undefined when the session ends first. */
  private async poll(round: Round, signal: AbortSignal): Promise<ProviderBatch | undefined> {
    let interval = this.o.pollMs ?? 5000;
    for (;;) {
      const batch = await this.provider.retrieve(round.batchId!, signal);
      const c = batch.request_counts;
      round.status = { id: batch.id, status: batch.status, total: c?.total ?? round.entries.size, completed: c?.completed ?? 0, failed: c?.failed ?? 0 };
      this.session?.onStatus?.([...this.rounds.values()].flatMap((r) => (r.status ? [r.status] : [])));
      if (TERMINAL.has(batch.status)) return batch;
      try {
        await this.o.sleep(interval, signal);
      } catch {
        return undefined;
      }
      if (this.o.pollMs === undefined) interval = Math.min(60_000, interval * 1.5);
    }
  }

  /**
   * Reads a final batch's output and error files; every request of the round gets its answer or its failure. The
   * answers are stored first and handed out together: runs answered early would otherwise fill the next round
   * while the rest of this one is still being read, and a turn would be split over two rounds.
   */
  private async collect(round: Round, batch: ProviderBatch): Promise<void> {
    const signal = this.session!.controller.signal;
    const outcomes = new Map<string, Settled>();
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      for await (const line of this.provider.lines(fileId, signal)) {
        const entry = round.entries.get(line.custom_id);
        if (!entry || outcomes.has(line.custom_id)) continue;
        const settled = this.settle(entry, line);
        // Stored before the journal says "done": a crash after this point finds the answer in the cache.
        if (settled.ok === true) await this.store?.set(entry.key, { content: settled.response.content, toolCalls: settled.response.toolCalls, finishReason: settled.response.finishReason, usage: settled.response.usage });
        outcomes.set(line.custom_id, settled);
      }
    }
    const why =
      batch.status === "expired"
        ? "the batch expired before this request was answered (the provider's completion window ran out)"
        : batch.status === "cancelled"
          ? "the batch was cancelled before this request was answered"
          : batch.status === "failed"
            ? `the batch failed${batch.errors?.data?.length ? `: ${batch.errors.data.map((d) => d.message ?? d.code).join("; ")}` : ""}`
            : "the batch finished without an answer to this request";
    for (const e of round.entries.values()) {
      const settled = outcomes.get(e.key) ?? { ok: false, error: new ModelRequestError(`Batch ${batch.id}: ${why}`, undefined, { hint: "Resume the run to send it again.", hintIds: ["resume"] }) };
      if (settled.ok === "again") this.resend(e);
      else this.deliver(e, settled);
    }
  }

  /** What one result line means for its request: an answer, a failure, or "send again" (a refused max_tokens). */
  private settle(entry: Entry, line: ResultLine): Settled {
    const r = readResultLine(line);
    if (r.ok) return { ok: true, response: { ...r.answer, latencyMs: 0, attempts: 1 } };
    if (r.refusedMaxTokens && entry.request?.maxTokens !== undefined) {
      if (!this.completionTokensParam) this.session?.logger.info(`${this.endpointId} refuses max_tokens; sending max_completion_tokens from now on`);
      this.completionTokensParam = true;
      // Ours to fix, not the task's: the request goes out again in the next round with the other parameter.
      if (entry.waiters.size > 0) return { ok: "again" };
    }
    return { ok: false, error: new ModelRequestError(r.message, r.status) };
  }

  private resend(entry: Entry): void {
    if (this.inflight.get(entry.key) === entry) this.inflight.delete(entry.key);
    this.unsent.set(entry.key, entry);
    this.scheduleCheck();
  }

  private deliver(entry: Entry, outcome: Outcome): void {
    if (this.inflight.get(entry.key) === entry) this.inflight.delete(entry.key);
    if (entry.waiters.size === 0) {
      if (outcome.ok) this.orphans.set(entry.key, outcome.response);
      return;
    }
    for (const w of entry.waiters) {
      this.waiting--;
      if (outcome.ok) w.resolve(outcome.response);
      else w.reject(outcome.error);
    }
    entry.waiters.clear();
    this.scheduleCheck();
  }

  /** The batch or its file is gone at the provider: forget the round, send its waiting requests again. */
  private drop(round: Round, reason: string): void {
    const s = this.session!;
    s.journal.append({ type: "dropped", round: round.id, reason });
    s.logger.warn(`batch round ${round.batchId ?? round.id} dropped: ${reason}; its requests are sent again`);
    for (const e of round.entries.values()) {
      if (this.inflight.get(e.key) === e) this.inflight.delete(e.key);
      if (e.waiters.size > 0 && e.request) this.unsent.set(e.key, e);
    }
    this.forget(round);
    this.scheduleCheck();
  }

  private forget(round: Round): void {
    this.rounds.delete(round.id);
    for (const e of round.entries.values()) if (this.inflight.get(e.key) === e && e.waiters.size === 0) this.inflight.delete(e.key);
  }
}
