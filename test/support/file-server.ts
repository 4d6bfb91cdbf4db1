/**
 * A loopback HTTP file server for download tests (test code only): serves `files` by path with HTTP Range support,
 * and misbehaves on request, the way real servers and networks do:
 * - `cutAfter`: the first response(s) of a file stop after that many body bytes and the socket is destroyed;
 * - `ignoreRange`: always 200 with the whole file (a server without Range support);
 * - `announceBytes`: a wrong Content-Length / Content-Range total (another file than the pin);
 * - `holdAfter`: the body stops after that many bytes and waits until the request is aborted (a slow link, to cancel);
 * - `pauseAfter`: the body stops after that many bytes until `release()` (a test sees progress in between, by events).
 * `requests` records method, path and Range header of each request, so a test sees what the client asked for.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FileServerOptions {
  files: Record<string, Buffer>;
  /** Cut this many responses (default 1) after `cutAfter` bytes. */
  cutAfter?: number;
  cuts?: number;
  ignoreRange?: boolean;
  announceBytes?: number;
  holdAfter?: number;
  pauseAfter?: number;
  /** Bytes per write (default 64 KiB), so progress comes in several events. */
  chunkBytes?: number;
}

export interface FileServer {
  readonly url: string;
  readonly requests: Array<{ method: string; path: string; range: string | undefined }>;
  /** Resolves when a held response (holdAfter) has sent its first part. */
  held(): Promise<void>;
  /** Lets a paused response (pauseAfter) send the rest. */
  release(): void;
  close(): Promise<void>;
}

export async function startFileServer(options: FileServerOptions): Promise<FileServer> {
  const requests: FileServer["requests"] = [];
  const sockets = new Set<Socket>();
  let cutsLeft = options.cuts ?? 1;
  let heldResolve: () => void = () => undefined;
  const heldPromise = new Promise<void>((r) => (heldResolve = r));
  const chunk = options.chunkBytes ?? 64 * 1024;
  let releaseResolve: () => void = () => undefined;
  const released = new Promise<void>((r) => (releaseResolve = r));

  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push({ method: req.method ?? "GET", path, range: req.headers.range });
    const body = options.files[path];
    if (!body) {
      res.writeHead(404).end("not found");
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const total = options.announceBytes ?? body.length;
    if (m && !options.ignoreRange) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { "content-range": `bytes */${total}` }).end();
        return;
      }
      res.writeHead(206, { "content-range": `bytes ${start}-${body.length - 1}/${total}`, "content-length": String(total - start), "accept-ranges": "bytes" });
    } else {
      res.writeHead(200, { "content-length": String(total), "accept-ranges": options.ignoreRange ? "none" : "bytes" });
    }
    let limit = body.length;
    let cut = false;
    let hold = false;
    if (options.cutAfter !== undefined && cutsLeft > 0) {
      cutsLeft--;
      limit = Math.min(limit, start + options.cutAfter);
      cut = true;
    }
    if (options.holdAfter !== undefined) {
      limit = Math.min(limit, start + options.holdAfter);
      hold = true;
    }
    let at = start;
    let pauseAt = options.pauseAfter === undefined ? Infinity : start + options.pauseAfter;
    const pump = (): void => {
      while (at < limit) {
        if (at >= pauseAt) {
          pauseAt = Infinity;
          void released.then(pump);
          return;
        }
        const end = Math.min(limit, pauseAt, at + chunk);
        const ok = res.write(body.subarray(at, end));
        at = end;
        if (!ok) {
          res.once("drain", pump);
          return;
        }
      }
      if (cut) {
        // Let what was written reach the client, then drop the connection mid-body.
        setImmediate(() => req.socket.destroy());
      } else if (hold) {
        heldResolve();
      } else res.end();
    };
    pump();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    held: () => heldPromise,
    release: () => releaseResolve(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
