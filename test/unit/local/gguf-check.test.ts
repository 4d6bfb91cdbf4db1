/**
 * GGUF files that lie about their own size (issue 23): every count and length is checked against the bytes that remain
 * before anything is read or allocated for it, and the error names the file, the byte offset of the lie and a fix. No
 * test here measures time: each asserts where the check stopped (the offset of the field that lied, reached before
 * any entry it counts) and, through the CLI, that a run under a small heap cap ends with that error.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { checkGgufFile } from "../../../src/core/models/local/gguf-check.js";
import { writeTinyChatModel } from "../../support/gguf-writer.js";
import { cli, repoRoot, spawnCollect } from "../cli/harness.js";
import { closedPort } from "../../support/ports.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "sf-gguf-"));

/** GGUF v3 bytes by hand: each piece little-endian, as the format has it. */
class Bytes {
  private parts: Buffer[] = [];
  get length(): number {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }
  raw(b: Buffer | string): this {
    this.parts.push(typeof b === "string" ? Buffer.from(b, "latin1") : b);
    return this;
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return this.raw(b);
  }
  u64(v: bigint | number): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    return this.raw(b);
  }
  str(s: string): this {
    return this.u64(Buffer.byteLength(s)).raw(Buffer.from(s, "utf8"));
  }
  header(tensors: bigint | number, entries: bigint | number): this {
    return this.raw("GGUF").u32(3).u64(tensors).u64(entries);
  }
  padTo(n: number): this {
    return this.raw(Buffer.alloc(Math.max(0, n - this.length)));
  }
  write(name: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, Buffer.concat(this.parts));
    return file;
  }
}

/** The error's message, asserting it is the located kind: file, byte offset, what was wrong. */
function refusal(file: string): string {
  try {
    checkGgufFile(file);
  } catch (e) {
    const message = (e as Error).message;
    assert.ok(message.startsWith(`${file}: not a usable GGUF file: at byte `), message);
    assert.match((e as { options?: { hint?: string } }).options?.hint ?? "", /download it again, or choose another \.gguf file/);
    return message;
  }
  assert.fail(`${file} was accepted`);
}

/** The 88-byte file of the report: one real entry, then zeros, declaring 2^62 metadata entries. */
function lyingMetadataCount(): string {
  return new Bytes().header(0, 2n ** 62n).str("general.architecture").u32(8).str("llama").padTo(88).write("2e62-entries.gguf");
}

describe("GGUF header check: counts and lengths against the file's own size", () => {
  it("gguf check: the 88-byte file declaring 2^62 metadata entries is refused at byte 16, before any entry is read", () => {
    const file = lyingMetadataCount();
    assert.equal(readFileSync(file).length, 88);
    assert.equal(refusal(file), `${file}: not a usable GGUF file: at byte 16, 4611686018427387904 metadata entries (at least 13 bytes each) needs over 2^53 bytes, but only 64 remain in the file`);
  });

  it("gguf check: other lying counts and lengths are refused at the offset of the field that lied", () => {
    const cases: Array<[string, Bytes, RegExp]> = [
      ["2^40 tensors", new Bytes().header(2n ** 40n, 0).padTo(200), /at byte 8, 1099511627776 tensor infos \(at least 24 bytes each\)/],
      ["a key 2^62 bytes long", new Bytes().header(0, 1).u64(2n ** 62n).padTo(100), /at byte 24, the key of metadata entry 0 \(declared 4611686018427387904 bytes long\) needs/],
      ["a string value longer than the file", new Bytes().header(0, 1).str("k").u32(8).u64(1000).raw("short").padTo(60), /at byte 37, the string value of "k" \(declared 1000 bytes long\) needs 1000 bytes, but only \d+ remain/],
      ["an array of 2^61 u32", new Bytes().header(0, 1).str("k").u32(9).u32(4).u64(2n ** 61n).padTo(100), /at byte 41, the array "k" of 2305843009213693952 elements \(at least 4 bytes each\)/],
      ["a million strings in 200 bytes", new Bytes().header(0, 1).str("tokenizer.ggml.tokens").u32(9).u32(8).u64(1_000_000).padTo(200), /at byte 61, the array "tokenizer\.ggml\.tokens" of 1000000 elements \(at least 8 bytes each\)/],
      ["an array of arrays", new Bytes().header(0, 1).str("k").u32(9).u32(9).u64(1).padTo(100), /at byte 37, "k" is an array of arrays/],
      ["an unknown value type", new Bytes().header(0, 1).str("k").u32(77).padTo(100), /at byte 33, "k" has value type 77, which GGUF does not define/],
      ["a tensor of 1000 dimensions", new Bytes().header(1, 0).str("t").u32(1000).padTo(200), /at byte 33, tensor "t" has 1000 dimensions/],
      ["a tensor past the end of the file", new Bytes().header(1, 0).str("t").u32(1).u64(1024).u32(0).u64(0).padTo(128), /at byte 49, tensor "t" needs data bytes 0 to 4096, but the file holds 64 bytes of tensor data/],
      ["not GGUF", new Bytes().raw("GGML").padTo(40), /at byte 0, the file does not start with "GGUF"/],
      ["version 1", new Bytes().raw("GGUF").u32(1).padTo(40), /at byte 4, GGUF version 1 is not read by llama\.cpp any more/],
      ["cut inside the header", new Bytes().raw("GGUF").u32(3).u32(0), /at byte 8, the tensor count needs 8 bytes, but only 4 remain/],
    ];
    for (const [name, bytes, expected] of cases) assert.match(refusal(bytes.write(`${name.replace(/\W+/g, "-")}.gguf`)), expected, name);
  });

  it("gguf check: a real model file passes, read once through a fixed window; cut short, it is refused at the tensor that no longer fits", async () => {
    const file = path.join(dir, "tiny.gguf");
    const size = await writeTinyChatModel(file, { kind: "random" });
    const s = checkGgufFile(file);
    assert.equal(s.version, 3);
    assert.ok(s.tensorCount > 0 && s.metadataCount > 0);
    assert.equal(s.dataOffset % 32, 0);
    assert.ok(s.bytesRead <= size, `read ${s.bytesRead} of ${size} bytes`);
    const cut = path.join(dir, "cut.gguf");
    writeFileSync(cut, readFileSync(file).subarray(0, size - 100));
    assert.match(refusal(cut), /tensor "[^"]+" needs data bytes \d+ to \d+, but the file holds \d+ bytes of tensor data/);
  });
});

describe("GGUF header check through the CLI", { skip: !existsSync(cli) && "build first (node esbuild.mjs)" }, () => {
  let env: NodeJS.ProcessEnv;
  before(async () => {
    env = { PATH: process.env.PATH ?? "", HOME: dir, OLLAMA_HOST: `http://127.0.0.1:${await closedPort()}`, SKILL_FOLLOWING_MODELS_DIR: path.join(dir, "models"), SKILL_FOLLOWING_LOCAL_THREADS: "1", SKILL_FOLLOWING_TASKS_CACHE: path.join(dir, "task-sets") };
  });

  it("gguf check: run --model local:<88-byte file declaring 2^62 entries> exits 2 under a 64 MB heap, naming the file, byte 16 and the fix", async () => {
    const file = lyingMetadataCount();
    // The heap cap bounds what the check may hold. (It does not turn the old behaviour into a crash: before this check
    // the same command was still running after 300 s under it, so on the old code this test fails only by timing out.)
    const r = await spawnCollect(process.execPath, ["--max-old-space-size=64", cli, "run", "--skills", path.join(repoRoot, "skills"), "--tasks", path.join(repoRoot, "samples/python-basics.jsonl"), "--limit", "1", "--model", `local:${file}`, "--out", path.join(dir, "never.jsonl")], { cwd: dir, env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`${file}: not a usable GGUF file: at byte 16, 4611686018427387904 metadata entries`), r.stderr);
    assert.match(r.stderr, /download it again, or choose another \.gguf file/);
    assert.equal(existsSync(path.join(dir, "never.jsonl")), false);
  });
});
