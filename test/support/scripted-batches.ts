/**
 * OpenAI's Files and Batch API for the scripted server (test code only), so batch mode is tested end to end over
 * real HTTP with the real `openai` client: `POST/GET /v1/files`, `GET /v1/files/{id}[/content]`,
 * `DELETE /v1/files/{id}`, `POST/GET /v1/batches`, `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`.
 *
 * A batch moves one step per retrieve (validating → in_progress → completed), so a test is driven by the client's
 * polls, never by a clock: a batch told to `hold` stays in_progress until `release()`. Each line is answered by the
 * server's script exactly like a synchronous request (and counted in `calls` and `requests`). Behaviours per batch
 * (by creation order): some lines fail with an HTTP status (a batch that partly fails), the batch expires after
 * answering some lines, the create's answer is lost after the batch was made. `dropBatch`/`dropFile` make the
 * provider forget one (a 404 from then on).
 */
import type http from "node:http";
import type { ChatCompletionRequestBody } from "./openai-wire.js";

export interface BatchBehaviour {
  /** Stay in_progress until `release(id)` (or `release()`). */
  hold?: boolean;
  /** A line (0-based in the input file) answered with this error instead of by the script. */
  failLine?: (line: { index: number; customId: string; body: ChatCompletionRequestBody }) => { status: number; message: string } | undefined;
  /** Expire after answering this many lines: the rest land in the error file as `batch_expired`. */
  expireAfter?: number;
  /** The batch is made, then the connection is cut before the client sees the answer. */
  loseCreateAnswer?: boolean;
}

export interface BatchApiOptions {
  behave?: (batch: { index: number; lines: number }) => BatchBehaviour;
  /** The first this many uploads are stored, then the connection is cut before the client sees the answer. */
  loseUploadAnswers?: number;
}

export interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  content: string;
  created_at: number;
}

export interface StoredBatch {
  id: string;
  index: number;
  input_file_id: string;
  status: string;
  customIds: string[];
  behaviour: BatchBehaviour;
  output_file_id?: string;
  error_file_id?: string;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
  created_at: number;
  released: boolean;
  /** Times the client retrieved it. */
  polls: number;
}

export type BatchEvent = { type: "upload"; file: StoredFile } | { type: "create"; batch: StoredBatch } | { type: "poll"; batch: StoredBatch } | { type: "final"; batch: StoredBatch };

/** How the server answers one line: the script's completion (status 200) or its scripted error. */
export type AnswerLine = (body: ChatCompletionRequestBody) => Promise<{ status: number; body: unknown }>;

export interface BatchApi {
  readonly files: ReadonlyMap<string, StoredFile>;
  readonly batches: readonly StoredBatch[];
  /** POST /v1/files and POST /v1/batches that made something. */
  readonly uploads: number;
  readonly creates: number;
  release(id?: string): void;
  dropBatch(id: string): void;
  dropFile(id: string): void;
  /** Resolves at the first event that satisfies `test` (past events included). */
  waitFor(test: (e: BatchEvent) => boolean): Promise<BatchEvent>;
  reset(): void;
  /** Handles the route if it is a Files or Batch route; false otherwise. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): boolean;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "application/octet-stream" : "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const notFound = (res: http.ServerResponse, what: string) => send(res, 404, { error: { message: `No such ${what}`, type: "invalid_request_error", code: null, param: null } });

function readRaw(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function createBatchApi(options: BatchApiOptions, answer: AnswerLine): BatchApi {
  let files = new Map<string, StoredFile>();
  let batches: StoredBatch[] = [];
  let uploads = 0;
  let creates = 0;
  let seq = 0;
  let events: BatchEvent[] = [];
  let listeners: Array<{ test: (e: BatchEvent) => boolean; resolve: (e: BatchEvent) => void }> = [];
  const now = () => Math.floor(Date.now() / 1000);

  const emit = (e: BatchEvent) => {
    events.push(e);
    listeners = listeners.filter((l) => {
      if (!l.test(e)) return true;
      l.resolve(e);
      return false;
    });
  };

  const view = (b: StoredBatch) => ({
    id: b.id,
    object: "batch",
    endpoint: "/v1/chat/completions",
    input_file_id: b.input_file_id,
    completion_window: "24h",
    status: b.status,
    created_at: b.created_at,
    ...(b.output_file_id ? { output_file_id: b.output_file_id } : {}),
    ...(b.error_file_id ? { error_file_id: b.error_file_id } : {}),
    request_counts: b.request_counts,
    metadata: b.metadata,
  });
  const fileView = (f: StoredFile) => ({ id: f.id, object: "file", bytes: Buffer.byteLength(f.content), created_at: f.created_at, filename: f.filename, purpose: f.purpose, status: "processed" });
  const storeFile = (filename: string, purpose: string, content: string): StoredFile => {
    const f = { id: `file-${++seq}`, filename, purpose, content, created_at: now() };
    files.set(f.id, f);
    return f;
  };

  /** Answers every line of the batch (or as many as it lives for) and writes its output and error files. */
  async function run(b: StoredBatch): Promise<void> {
    const input = files.get(b.input_file_id)!;
    const lines = input.content.split("\n").filter((l) => l.trim());
    const out: string[] = [];
    const errors: string[] = [];
    for (const [index, text] of lines.entries()) {
      const line = JSON.parse(text) as { custom_id: string; body: ChatCompletionRequestBody };
      const id = `batch_req_${++seq}`;
      if (b.behaviour.expireAfter !== undefined && index >= b.behaviour.expireAfter) {
        errors.push(JSON.stringify({ id, custom_id: line.custom_id, response: null, error: { code: "batch_expired", message: "This request could not be executed before the completion window expired." } }));
        b.request_counts.failed++;
        continue;
      }
      const fail = b.behaviour.failLine?.({ index, customId: line.custom_id, body: line.body });
      const answered = fail ? { status: fail.status, body: { error: { message: fail.message, type: "server_error", code: null, param: null } } } : await answer(line.body);
      const entry = JSON.stringify({ id, custom_id: line.custom_id, response: { status_code: answered.status, request_id: `req_${seq}`, body: answered.body }, error: null });
      if (answered.status === 200) {
        out.push(entry);
        b.request_counts.completed++;
      } else {
        errors.push(entry);
        b.request_counts.failed++;
      }
    }
    if (out.length) b.output_file_id = storeFile(`batch_${b.id}_output.jsonl`, "batch_output", `${out.join("\n")}\n`).id;
    if (errors.length) b.error_file_id = storeFile(`batch_${b.id}_error.jsonl`, "batch_output", `${errors.join("\n")}\n`).id;
    b.status = b.behaviour.expireAfter !== undefined && b.behaviour.expireAfter < lines.length ? "expired" : "completed";
    emit({ type: "final", batch: b });
  }

  async function advance(b: StoredBatch): Promise<void> {
    b.polls++;
    if (b.status === "validating") b.status = "in_progress";
    else if (b.status === "in_progress" && (!b.behaviour.hold || b.released)) {
      // A poll that comes while the lines are being answered sees "finalizing", as at OpenAI.
      b.status = "finalizing";
      await run(b);
    }
  }

  function page<T extends { id: string }>(items: T[], url: URL, map: (t: T) => unknown) {
    const limit = Number(url.searchParams.get("limit") ?? 20);
    const after = url.searchParams.get("after");
    const start = after ? items.findIndex((x) => x.id === after) + 1 : 0;
    const slice = items.slice(start, start + limit);
    return { object: "list", data: slice.map(map), first_id: slice[0]?.id ?? null, last_id: slice[slice.length - 1]?.id ?? null, has_more: start + limit < items.length };
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split("/").filter(Boolean); // ["v1", "files", id?, "content"?]
    const method = req.method ?? "GET";
    if (parts[1] === "files") {
      const f = parts[2] ? files.get(parts[2]) : undefined;
      if (method === "POST" && parts.length === 2) {
        const raw = await readRaw(req);
        const form = await new Response(raw, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
        const file = form.get("file");
        if (!(file instanceof Blob)) return send(res, 400, { error: { message: "file is required" } });
        const stored = storeFile((file as File).name, String(form.get("purpose")), await file.text());
        uploads++;
        emit({ type: "upload", file: stored });
        if (uploads <= (options.loseUploadAnswers ?? 0)) {
          req.socket.destroy();
          return;
        }
        return send(res, 200, fileView(stored));
      }
      if (method === "GET" && parts.length === 2) {
        const purpose = url.searchParams.get("purpose");
        const list = [...files.values()].filter((x) => !purpose || x.purpose === purpose).reverse();
        return send(res, 200, page(list, url, fileView));
      }
      if (!f) return notFound(res, "file");
      if (method === "GET" && parts[3] === "content") return send(res, 200, f.content);
      if (method === "GET") return send(res, 200, fileView(f));
      if (method === "DELETE") {
        files.delete(f.id);
        return send(res, 200, { id: f.id, object: "file", deleted: true });
      }
    }
    if (parts[1] === "batches") {
      if (method === "POST" && parts.length === 2) {
        const body = JSON.parse((await readRaw(req)).toString("utf8")) as { input_file_id: string; metadata?: Record<string, string> };
        const input = files.get(body.input_file_id);
        if (!input) return notFound(res, `file ${body.input_file_id}`);
        const index = creates;
        const customIds = input.content.split("\n").filter((l) => l.trim()).map((l) => (JSON.parse(l) as { custom_id: string }).custom_id);
        const behaviour = options.behave?.({ index, lines: customIds.length }) ?? {};
        const b: StoredBatch = { id: `batch_${++seq}`, index, input_file_id: input.id, status: "validating", customIds, behaviour, request_counts: { total: customIds.length, completed: 0, failed: 0 }, metadata: body.metadata ?? null, created_at: now(), released: false, polls: 0 };
        batches.push(b);
        creates++;
        emit({ type: "create", batch: b });
        if (behaviour.loseCreateAnswer) {
          req.socket.destroy();
          return;
        }
        return send(res, 200, view(b));
      }
      if (method === "GET" && parts.length === 2) return send(res, 200, page([...batches].reverse(), url, view));
      const b = batches.find((x) => x.id === parts[2]);
      if (!b) return notFound(res, "batch");
      if (method === "POST" && parts[3] === "cancel") {
        b.status = "cancelled";
        return send(res, 200, view(b));
      }
      if (method === "GET") {
        await advance(b);
        emit({ type: "poll", batch: b });
        return send(res, 200, view(b));
      }
    }
    notFound(res, "route");
  }

  return {
    get files() {
      return files;
    },
    get batches() {
      return batches;
    },
    get uploads() {
      return uploads;
    },
    get creates() {
      return creates;
    },
    release(id) {
      for (const b of batches) if (id === undefined || b.id === id) b.released = true;
    },
    dropBatch(id) {
      batches = batches.filter((b) => b.id !== id);
    },
    dropFile(id) {
      files.delete(id);
    },
    waitFor(test) {
      const past = events.find(test);
      if (past) return Promise.resolve(past);
      return new Promise((resolve) => listeners.push({ test, resolve }));
    },
    reset() {
      files = new Map();
      batches = [];
      uploads = 0;
      creates = 0;
      events = [];
      listeners = [];
    },
    handle(req, res, url) {
      if (!/^\/v1\/(files|batches)(\/|$)/.test(url.pathname)) return false;
      route(req, res, url).catch((e: unknown) => {
        if (!res.headersSent) send(res, 500, { error: { message: `batch api failed: ${(e as Error).message}` } });
        else res.destroy();
      });
      return true;
    },
  };
}
