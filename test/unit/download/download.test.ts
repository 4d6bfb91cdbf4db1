// test-requires: shared-data
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { CancelledError } from "../../../src/core/errors.js";
import type { Logger } from "../../../src/core/logger.js";
import {
  DownloadError,
  TASK_SET_CATALOG,
  catalogEntry,
  downloadTaskSet,
  downloadUrl,
  type TaskSetName,
} from "../../../src/core/tasks/download.js";

// Tests run from the repo root (npm test, or node --test by hand there); the data sits beside the repo.
const dataDir = path.resolve(process.cwd(), "../shared/data");

/** The mirror layout is `<name>/<fileName>`; the shared copies use the same names. */
function sharedCopy(name: TaskSetName): Buffer {
  return readFileSync(path.join(dataDir, name, catalogEntry(name).fileName));
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface Served {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/**
 * Routes: /good/<name>/<file> the shared copy; /corrupt/... one byte flipped; /regzip/... the same content
 * re-compressed (different bytes, same payload); /stall/... headers then never finishes; anything else 404.
 */
async function serve(): Promise<Served> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    const m = /^\/(good|corrupt|regzip|stall)\/([a-z0-9]+)\/([\w.-]+)$/.exec(req.url ?? "");
    const entry = m ? TASK_SET_CATALOG.find((e) => e.name === m[2] && e.fileName === m[3]) : undefined;
    if (!m || !entry) {
      res.writeHead(404).end("not found");
      return;
    }
    let body = sharedCopy(entry.name);
    if (m[1] === "corrupt") {
      body = Buffer.from(body);
      const i = Math.floor(body.length / 2);
      body[i] = (body[i] ?? 0) ^ 0xff;
    } else if (m[1] === "regzip") {
      body = gzipSync(gunzipSync(body), { level: 1 });
    } else if (m[1] === "stall") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write(body.subarray(0, 1000));
      return; // never ends: only an abort can finish this download
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { trace() {}, debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {}, warnings };
}

async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath ?? e.path, e.name)));
  }
  return out.sort();
}

describe("downloadTaskSet", () => {
  let server: Served;
  let cacheDir: string;
  before(async () => {
    server = await serve();
  });
  after(async () => {
    await server.close();
  });

  const fresh = async () => {
    cacheDir = await mkdtemp(path.join(os.tmpdir(), "sf-download-"));
    return cacheDir;
  };

  for (const entry of TASK_SET_CATALOG) {
    it(`${entry.name}: downloads, verifies against the recorded sha256 and reuses the cache without network`, async () => {
      const dir = await fresh();
      try {
        const first = await downloadTaskSet(entry.name, { cacheDir: dir, baseUrl: `${server.url}/good/` });
        assert.equal(first.cached, false);
        assert.equal(first.sha256, entry.sha256);
        assert.equal(first.file, path.join(dir, entry.name, entry.fileName));
        assert.deepEqual(await readFile(first.file), sharedCopy(entry.name));
        const before = server.requests.length;
        const second = await downloadTaskSet(entry.name, { cacheDir: dir, baseUrl: `${server.url}/good` });
        assert.deepEqual(second, { ...first, cached: true });
        assert.equal(server.requests.length, before, "a valid cache must not touch the network");
        assert.deepEqual(await listAll(dir), [path.join(entry.name, entry.fileName)]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it("refuses a corrupted download with expected and actual sha256 and the URL, leaving the cache empty", async () => {
    const dir = await fresh();
    try {
      const url = `${server.url}/corrupt/gsm8k/test.jsonl`;
      const actual = sha256(Buffer.from(await (await fetch(url)).arrayBuffer()));
      await assert.rejects(downloadTaskSet("gsm8k", { cacheDir: dir, baseUrl: `${server.url}/corrupt` }), (e: unknown) => {
        assert.ok(e instanceof DownloadError);
        assert.match(e.message, new RegExp(`expected sha256 ${catalogEntry("gsm8k").sha256}`));
        assert.match(e.message, new RegExp(`got ${actual}`));
        assert.ok(e.message.includes(url), e.message);
        return true;
      });
      assert.deepEqual(await listAll(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a corrupted gzip set even though it has a content fallback", async () => {
    const dir = await fresh();
    try {
      await assert.rejects(
        downloadTaskSet("humanevalplus", { cacheDir: dir, baseUrl: `${server.url}/corrupt` }),
        (e: unknown) => e instanceof DownloadError && /decompressed md5 expected fe585eb4df8c88d844eeb463ea4d0302/.test(e.message),
      );
      assert.deepEqual(await listAll(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  for (const name of ["mbppplus", "humanevalplus"] as const) {
    it(`${name}: accepts a re-compressed file whose decompressed content matches, with a warning`, async () => {
      const dir = await fresh();
      try {
        const logger = recordingLogger();
        const result = await downloadTaskSet(name, { cacheDir: dir, baseUrl: `${server.url}/regzip`, logger });
        assert.equal(result.cached, false);
        assert.notEqual(result.sha256, catalogEntry(name).sha256);
        assert.deepEqual(gunzipSync(await readFile(result.file)), gunzipSync(sharedCopy(name)));
        assert.equal(logger.warnings.length, 1);
        assert.match(logger.warnings[0] ?? "", /decompressed .* matches; accepted/);
        // The content check also validates the cache on the next call.
        assert.equal((await downloadTaskSet(name, { cacheDir: dir, baseUrl: `${server.url}/regzip` })).cached, true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it("replaces a damaged cached file instead of trusting it", async () => {
    const dir = await fresh();
    try {
      const { file } = await downloadTaskSet("math500", { cacheDir: dir, baseUrl: `${server.url}/good` });
      await writeFile(file, "{}\n");
      const logger = recordingLogger();
      const again = await downloadTaskSet("math500", { cacheDir: dir, baseUrl: `${server.url}/good`, logger });
      assert.equal(again.cached, false);
      assert.equal(sha256(await readFile(file)), catalogEntry("math500").sha256);
      assert.match(logger.warnings.join("\n"), /does not match its checksum/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports HTTP errors with the status and URL", async () => {
    const dir = await fresh();
    try {
      await assert.rejects(
        downloadTaskSet("gsm8k", { cacheDir: dir, baseUrl: `${server.url}/nowhere` }),
        (e: unknown) => e instanceof DownloadError && /HTTP 404/.test(e.message) && e.message.includes(`${server.url}/nowhere/gsm8k/test.jsonl`),
      );
      assert.deepEqual(await listAll(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a body over the size cap and keeps nothing", async () => {
    const dir = await fresh();
    try {
      await assert.rejects(
        downloadTaskSet("math500", { cacheDir: dir, baseUrl: `${server.url}/good`, maxBytes: 10_000 }),
        (e: unknown) => e instanceof DownloadError && /exceeded 10000 bytes/.test(e.message),
      );
      assert.deepEqual(await listAll(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("cancels a stalled download on abort and removes the partial file", async () => {
    const dir = await fresh();
    try {
      const controller = new AbortController();
      const pending = downloadTaskSet("gsm8k", { cacheDir: dir, baseUrl: `${server.url}/stall`, signal: controller.signal });
      // Abort once the partial file exists (its first bytes arrived), whatever the machine's speed.
      while ((await listAll(dir)).length === 0) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      await assert.rejects(pending, (e: unknown) => e instanceof CancelledError);
      assert.deepEqual(await listAll(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("connection refused is a DownloadError naming the URL", async () => {
    const dir = await fresh();
    try {
      const dead = http.createServer();
      await new Promise<void>((r) => dead.listen(0, "127.0.0.1", r));
      const { port } = dead.address() as AddressInfo;
      await new Promise<void>((r) => dead.close(() => r()));
      await assert.rejects(
        downloadTaskSet("gsm8k", { cacheDir: dir, baseUrl: `http://127.0.0.1:${port}` }),
        (e: unknown) => e instanceof DownloadError && e.message.includes(`http://127.0.0.1:${port}/gsm8k/test.jsonl`),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("task set catalogue", () => {
  it("lists the four public sets with https URLs, sha256 and licenses", () => {
    assert.deepEqual(TASK_SET_CATALOG.map((e) => e.name).sort(), ["gsm8k", "humanevalplus", "math500", "mbppplus"]);
    for (const e of TASK_SET_CATALOG) {
      assert.match(e.url, /^https:\/\//);
      assert.match(e.sha256, /^[0-9a-f]{64}$/);
      assert.ok(e.license.length > 0);
      assert.equal(sharedCopy(e.name).length, e.bytes, `${e.name}: catalogue size must match the shared copy`);
    }
    assert.equal(downloadUrl(catalogEntry("gsm8k")), catalogEntry("gsm8k").url);
    assert.equal(downloadUrl(catalogEntry("mbppplus"), "http://m/x/"), "http://m/x/mbppplus/MbppPlus-v0.2.0.jsonl.gz");
  });

  it("rejects an unknown name listing the known ones", () => {
    assert.throws(() => catalogEntry("mbpp"), (e: unknown) => e instanceof DownloadError && /mbppplus, humanevalplus, gsm8k, math500/.test(String((e as DownloadError).options.hint)));
  });
});
