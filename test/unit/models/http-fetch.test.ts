/**
 * The OpenAI client's fetch over node:http (src/core/models/http-fetch.ts) keeps what the retry layer reads from
 * undici's fetch: the same request bytes, `fetch failed` with the errno code as cause, aborts as AbortError before
 * and after the headers, `terminated` for a body cut mid-way, decoded gzip, followed redirects; and it keeps the
 * connection alive between calls. A real server on loopback; no timers decide anything.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import { createNodeFetch } from "../../../src/core/models/http-fetch.js";
import { closedPort } from "../../support/ports.js";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: number;
}

describe("node:http fetch for the OpenAI client", () => {
  const seen: Seen[] = [];
  const sockets = new Map<unknown, number>();
  let headersSent: () => void = () => undefined;
  let server: http.Server;
  let base: string;
  const client = createNodeFetch();

  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (c: string) => (body += c));
      req.on("end", () => {
        if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, socket: sockets.get(req.socket)! });
        if (req.url === "/json") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ echo: body }));
        } else if (req.url === "/gzip") {
          res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
          res.end(zlib.gzipSync(JSON.stringify({ zipped: true })));
        } else if (req.url === "/redirect") {
          res.writeHead(307, { location: "/json" });
          res.end();
        } else if (req.url === "/cut") {
          res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
          res.write('{"partial":');
          setImmediate(() => res.socket?.destroy());
        } else if (req.url === "/hold") {
          // Headers, then nothing: the test aborts while the body is awaited.
          res.writeHead(200, { "content-type": "application/json" });
          res.write("{");
          headersSent();
        } else if (req.url === "/never") {
          // No headers at all until the client gives up.
          headersSent();
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends the same method, headers and body bytes as the global fetch, and reads JSON back", async () => {
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "héllo ✓" }] });
    const init = { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k" }, body };
    const mine = await client.fetch(`${base}/json`, init);
    const theirs = await fetch(`${base}/json`, init);
    assert.equal(mine.status, 200);
    assert.deepEqual(await mine.json(), await theirs.json());
    const [a, b] = seen.slice(-2);
    assert.equal(a!.body, b!.body);
    assert.equal(a!.method, b!.method);
    for (const h of ["content-type", "authorization", "content-length"]) assert.equal(a!.headers[h], b!.headers[h], h);
  });

  it("keeps the connection alive between calls", async () => {
    const before = seen.length;
    for (let i = 0; i < 3; i++) await (await client.fetch(`${base}/json`, { method: "POST", body: "{}" })).text();
    const used = new Set(seen.slice(before).map((s) => s.socket));
    assert.equal(used.size, 1, "three calls, one connection");
  });

  it("decodes gzip and follows a 307 with the same method and body", async () => {
    assert.deepEqual(await (await client.fetch(`${base}/gzip`, { method: "POST", body: "{}" })).json(), { zipped: true });
    const r = await client.fetch(`${base}/redirect`, { method: "POST", body: '{"again":1}' });
    assert.deepEqual(await r.json(), { echo: '{"again":1}' });
    assert.equal(seen[seen.length - 1]!.url, "/json");
  });

  it("a refused connection is `fetch failed` with ECONNREFUSED in its cause", async () => {
    const port = await closedPort();
    await assert.rejects(client.fetch(`http://127.0.0.1:${port}/v1`, { method: "POST", body: "{}" }), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.equal(e.message, "fetch failed");
      assert.equal((e.cause as { code?: string }).code, "ECONNREFUSED");
      return true;
    });
  });

  it("a body cut mid-way fails when read, as `terminated`", async () => {
    const r = await client.fetch(`${base}/cut`, { method: "POST", body: "{}" });
    assert.equal(r.status, 200);
    await assert.rejects(r.text(), (e: unknown) => e instanceof TypeError && e.message === "terminated");
  });

  it("an abort before the headers rejects the fetch; after them, the body read; both as AbortError", async () => {
    const early = new AbortController();
    const waiting = new Promise<void>((resolve) => (headersSent = resolve));
    const pending = client.fetch(`${base}/never`, { method: "POST", body: "{}", signal: early.signal });
    await waiting;
    early.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof Error && e.name === "AbortError");

    const late = new AbortController();
    const held = new Promise<void>((resolve) => (headersSent = resolve));
    const r = await client.fetch(`${base}/hold`, { method: "POST", body: "{}", signal: late.signal });
    await held;
    const reading = r.text();
    late.abort();
    await assert.rejects(reading, (e: unknown) => e instanceof Error && e.name === "AbortError");
  });
});
