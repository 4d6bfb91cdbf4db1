import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancelledError } from "../../../src/core/errors.js";
import { silentLogger } from "../../../src/core/logger.js";
import { LocalModelEntrySchema, modelDownloadUrl, type LocalModelEntry } from "../../../src/core/models/local/catalog.js";
import { ensureModel, ModelDownloadError, type DownloadProgress } from "../../../src/core/models/local/download.js";
import { startFileServer, type FileServer } from "../../support/file-server.js";
import { writeTinyChatModel } from "../../support/gguf-writer.js";
import { closedPort } from "../../support/ports.js";

const sha256 = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

let work: string;
let model: Buffer;
let entry: LocalModelEntry;

before(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "sf-local-dl-"));
  const file = path.join(work, "source.gguf");
  await writeTinyChatModel(file, { kind: "random", seed: 7 });
  model = await readFile(file);
  entry = LocalModelEntrySchema.parse({
    name: "tiny-test",
    title: "Tiny test model",
    repo: "test/tiny",
    revision: "0".repeat(40),
    fileName: "tiny-test.gguf",
    bytes: model.length,
    sha256: sha256(model),
    license: "MIT",
    chatFormat: "auto",
  });
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  return mkdtemp(path.join(work, "models-"));
}

async function serve(options: Omit<Parameters<typeof startFileServer>[0], "files"> = {}, bytes = model): Promise<FileServer> {
  return startFileServer({ files: { [`/${entry.name}/${entry.fileName}`]: bytes }, chunkBytes: 8 * 1024, ...options });
}

describe("local model download", () => {
  it("fetches the pinned file once, with progress up to its size, verified by sha256", async () => {
    assert.ok(model.length > 100_000, "the tiny model spans many progress events");
    const dir = await folder();
    const half = Math.floor(model.length / 2);
    // The server sends half and waits; the rest comes only once a progress event has reported that half.
    const server = await serve({ pauseAfter: half });
    try {
      const events: DownloadProgress[] = [];
      const onProgress = (p: DownloadProgress): void => {
        events.push(p);
        if (p.received >= half) server.release();
      };
      const got = await ensureModel(entry, { dir, mirror: server.url, onProgress });
      assert.equal(got.downloaded, true);
      assert.equal(got.sha256, entry.sha256);
      assert.deepEqual(await readFile(got.file), model);
      assert.ok(events.some((e) => e.received === half), "progress in between, not only at the end");
      for (let i = 1; i < events.length; i++) assert.ok(events[i]!.received >= events[i - 1]!.received, "progress never goes back");
      assert.deepEqual(events.at(-1), { received: model.length, total: model.length, resumedFrom: 0 });
      assert.equal(existsSync(`${got.file}.part`), false);
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0]!.range, undefined);

      const again = await ensureModel(entry, { dir, mirror: server.url });
      assert.equal(again.downloaded, false);
      assert.equal(server.requests.length, 1, "a verified file is never fetched again");
    } finally {
      await server.close();
    }
  });

  it("resumes with an HTTP Range after the connection is cut halfway", async () => {
    const dir = await folder();
    const half = Math.floor(model.length / 2);
    const server = await serve({ cutAfter: half });
    try {
      const got = await ensureModel(entry, { dir, mirror: server.url, resumeDelayMs: 0 });
      assert.equal(got.sha256, entry.sha256);
      assert.equal(server.requests.length, 2);
      const resumedAt = Number(/^bytes=(\d+)-$/.exec(server.requests[1]!.range ?? "")?.[1]);
      assert.ok(resumedAt > 0 && resumedAt <= half, `resumed at ${resumedAt} (cut at ${half})`);
      assert.deepEqual(await readFile(got.file), model);
    } finally {
      await server.close();
    }
  });

  it("starts over when the server ignores Range (200 with the whole file)", async () => {
    const dir = await folder();
    // A partial file from an earlier attempt, with wrong bytes: were they kept, the result would fail its checksum.
    await writeFile(path.join(dir, `${entry.fileName}.part`), Buffer.alloc(1000, 0xee));
    const server = await serve({ ignoreRange: true });
    try {
      const got = await ensureModel(entry, { dir, mirror: server.url, resumeDelayMs: 0 });
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0]!.range, "bytes=1000-", "it asked for the rest");
      assert.deepEqual(await readFile(got.file), model);
    } finally {
      await server.close();
    }
  });

  it("rejects a file whose sha256 is not the pin, and keeps nothing of it", async () => {
    const dir = await folder();
    const tampered = Buffer.from(model);
    tampered[tampered.length - 1] = tampered[tampered.length - 1]! ^ 0xff;
    const server = await serve({}, tampered);
    try {
      await assert.rejects(ensureModel(entry, { dir, mirror: server.url }), (e: unknown) => {
        assert.ok(e instanceof ModelDownloadError);
        assert.match(e.message, new RegExp(`failed verification: expected sha256 ${entry.sha256}, got ${sha256(tampered)}; the file was discarded`));
        return true;
      });
      assert.equal(existsSync(path.join(dir, entry.fileName)), false);
      assert.equal(existsSync(path.join(dir, `${entry.fileName}.part`)), false);
    } finally {
      await server.close();
    }
  });

  it("refuses a server that offers another size before writing a byte", async () => {
    const dir = await folder();
    const server = await serve({ announceBytes: model.length + 1000 });
    try {
      await assert.rejects(ensureModel(entry, { dir, mirror: server.url }), /offers \d+ bytes but Tiny test model is pinned at \d+; refused without downloading/);
      assert.equal(existsSync(path.join(dir, `${entry.fileName}.part`)), false);
    } finally {
      await server.close();
    }
  });

  it("offline: refuses with a message that says so, and how to get the file another way", async () => {
    const dir = await folder();
    const port = await closedPort();
    await assert.rejects(ensureModel(entry, { dir, mirror: `http://127.0.0.1:${port}` }), (e: unknown) => {
      assert.ok(e instanceof ModelDownloadError);
      assert.match(e.message, /cannot download Tiny test model \(0 MB\): 127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED\); this machine looks offline/);
      assert.match(e.options.hint ?? "", new RegExp(`copy ${entry.fileName} \\(sha256 ${entry.sha256}\\) into the models folder`));
      assert.deepEqual(e.options.hintIds, ["modelsMirror", "model"]);
      return true;
    });
  });

  it("a cancel keeps the partial file, and the next download asks only for the rest", async () => {
    const dir = await folder();
    const half = Math.floor(model.length / 2);
    const slow = await serve({ holdAfter: half });
    const controller = new AbortController();
    try {
      const pending = ensureModel(entry, { dir, mirror: slow.url, signal: controller.signal });
      await slow.held();
      // The held part is on its way; wait until it is on disk, then cancel.
      const part = path.join(dir, `${entry.fileName}.part`);
      while (!existsSync(part) || statSync(part).size < half) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      await assert.rejects(pending, (e: unknown) => e instanceof CancelledError && /cancelled; 0 MB kept/.test(e.message));
      assert.equal(statSync(part).size, half);
    } finally {
      await slow.close();
    }
    const server = await serve();
    try {
      const got = await ensureModel(entry, { dir, mirror: server.url });
      assert.equal(server.requests[0]!.range, `bytes=${half}-`);
      assert.deepEqual(await readFile(got.file), model);
    } finally {
      await server.close();
    }
  });

  it("replaces a damaged file in the models folder instead of running it", async () => {
    const dir = await folder();
    await writeFile(path.join(dir, entry.fileName), Buffer.alloc(model.length, 1));
    const warnings: string[] = [];
    const server = await serve();
    try {
      const logger = { ...silentLogger, warn: (m: string) => void warnings.push(m) };
      const got = await ensureModel(entry, { dir, mirror: server.url, logger });
      assert.equal(got.downloaded, true);
      assert.match(warnings.join("\n"), /is not the pinned Tiny test model/);
      assert.deepEqual(await readFile(got.file), model);
    } finally {
      await server.close();
    }
  });

  it("downloads the default from Hugging Face at the pinned revision unless a mirror is set", () => {
    assert.equal(modelDownloadUrl(entry), `https://huggingface.co/test/tiny/resolve/${"0".repeat(40)}/tiny-test.gguf`);
    assert.equal(modelDownloadUrl(entry, "http://mirror.example/models/"), "http://mirror.example/models/tiny-test/tiny-test.gguf");
  });
});
