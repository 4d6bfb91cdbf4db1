// test-requires: shared-data
import assert from "node:assert/strict";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { after, describe, it } from "node:test";
import { createGzip, gunzipSync, gzipSync } from "node:zlib";
import { InputError } from "../../../src/core/errors.js";
import { loadTaskSet } from "../../../src/core/tasks/index.js";

const fixtures = path.resolve(process.cwd(), "test/fixtures/tasks");
const data = path.resolve(process.cwd(), "../shared/data");
const tmp = mkdtempSync(path.join(tmpdir(), "sf-tasks-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, content: string | Buffer) => {
  const p = path.join(tmp, name);
  writeFileSync(p, content);
  return p;
};
const GSM = '{"question": "What is 2+2?", "answer": "2+2=4\\n#### 4"}';

/** Asserts an InputError whose message matches and which lists the accepted formats when asked. */
async function refused(p: Promise<unknown>, re: RegExp, formats = true) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    assert.match(e.message, re);
    if (formats) assert.match(e.message, /accepted formats: .*EvalPlus.*GSM8K.*MATH-500/);
    return true;
  });
}

describe("loadTaskSet: our own format with broken lines", () => {
  it("loads the good records and reports each bad line with its number and the field", async () => {
    const file = path.join(fixtures, "native-mixed.jsonl");
    const set = await loadTaskSet(file);
    assert.equal(set.format, "native");
    assert.equal(set.name, "native-mixed");
    assert.deepEqual(
      set.tasks.map((t) => t.id),
      ["add", "half", "third"],
    );
    const add = set.tasks[0];
    assert.ok(add?.kind === "python-function");
    assert.deepEqual(add.tests.plus, [[-1, 1]]);
    assert.equal(add.tests.oracle, "default", "schema defaults are applied");
    const byLine = new Map(set.issues.map((i) => [i.line, i.message]));
    assert.deepEqual([...byLine.keys()], [4, 5, 6, 7, 8]);
    assert.match(byLine.get(4)!, /not a valid JSON record/);
    assert.match(byLine.get(5)!, /field "kind"/);
    assert.match(byLine.get(6)!, /field "entryPoint": must be a Python identifier/);
    assert.match(byLine.get(6)!, /field "tests.base"/);
    assert.match(byLine.get(7)!, /duplicate task id "half" \(first on line 2\)/);
    assert.match(byLine.get(8)!, /expected a JSON object/);
    assert.ok(set.issues.every((i) => i.file === file));
  });

  it("CRLF line endings and a UTF-8 BOM on line 1 are accepted", async () => {
    const crlf = "\uFEFF" + readFileSync(path.join(fixtures, "native-mixed.jsonl"), "utf8").replace(/\n/g, "\r\n");
    const set = await loadTaskSet(write("crlf.jsonl", crlf));
    assert.deepEqual(
      set.tasks.map((t) => t.id),
      ["add", "half", "third"],
    );
    assert.equal(set.tasks[0]?.kind === "python-function" && set.tasks[0].canonicalSolution, "def add(a, b):\n    return a + b\n");
  });

  it("a broken first line does not stop detection from the next one", async () => {
    const set = await loadTaskSet(write("broken-first.jsonl", `{oops\n${GSM}\n`));
    assert.equal(set.format, "gsm8k");
    assert.equal(set.tasks[0]?.id, "gsm8k/1", "ids follow the line index, so they survive a broken line");
    assert.deepEqual(set.issues.map((i) => [i.line, /not valid JSON/.test(i.message)]), [[1, true]]);
  });

  it("GSM8K answer without '#### N' is a located issue", async () => {
    const set = await loadTaskSet(write("gsm-bad.jsonl", `${GSM}\n{"question": "q", "answer": "no final line"}\n`));
    assert.equal(set.tasks.length, 1);
    assert.match(set.issues[0]!.message, /field "answer": does not end with "#### <number>"/);
    assert.equal(set.issues[0]!.line, 2);
  });

  it("a math task whose reference normalises to nothing is an issue at load time, not a failure in every run", async () => {
    const set = await loadTaskSet(write("empty-ref.jsonl", '{"id": "a", "kind": "math-answer", "prompt": "p", "answer": "\\\\$"}\n{"id": "b", "kind": "math-answer", "prompt": "p", "answer": "4"}\n'));
    assert.deepEqual(set.tasks.map((t) => t.id), ["b"]);
    assert.match(set.issues[0]!.message, /field "answer": "\\\\\$" is empty after normalisation/);
  });

  it("an EvalPlus file whose first line is not strict JSON (Infinity) is still detected", async () => {
    const lines = gunzipLines(path.join(data, "mbppplus/MbppPlus-v0.2.0.jsonl.gz"));
    const inf = lines.findIndex((l) => l.includes("Infinity"));
    assert.ok(inf > 0);
    const set = await loadTaskSet(write("inf-first.jsonl", [lines[inf], lines[0]].join("\n")));
    assert.equal(set.format, "evalplus-mbpp");
    assert.equal(set.tasks.length, 2);
  });

  it("many bad lines are capped in the issue list with a count of the rest", async () => {
    const set = await loadTaskSet(write("many-bad.jsonl", [GSM, ...Array(50).fill("{bad")].join("\n")), { maxIssues: 10 });
    assert.equal(set.issues.length, 11);
    assert.match(set.issues[10]!.message, /40 more problems/);
  });
});

describe("loadTaskSet: refused files", () => {
  it("a CSV, an unknown JSONL layout, a JSON array file, a binary file", async () => {
    await refused(loadTaskSet(path.join(fixtures, "not-a-task-set.csv")), /not-a-task-set\.csv:1: not a task set: no JSON record found/);
    await refused(loadTaskSet(path.join(fixtures, "unknown-layout.jsonl")), /unknown-layout\.jsonl:1: not a task set: the first record \(keys: name, age\) matches no known layout/);
    await refused(loadTaskSet(write("array.json", '[\n{"question": "q"}\n]\n')), /not a task set/);
    await refused(loadTaskSet(write("png.jsonl", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00]))), /not a task set/);
    const noise = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    await refused(loadTaskSet(write("noise.txt", noise)), /noise\.txt:20: not a task set: the first 20 lines are not JSON records/);
  });

  it("empty, blank-only, missing files and folders", async () => {
    await refused(loadTaskSet(write("empty.jsonl", "")), /empty\.jsonl: task file is empty/);
    await refused(loadTaskSet(write("blank.jsonl", "\n  \n\t\n")), /only blank lines/);
    await refused(loadTaskSet(path.join(tmp, "missing.jsonl")), /missing\.jsonl: cannot read task file/, false);
    await refused(loadTaskSet(tmp), /not a file/, false);
  });

  it("a file whose every record is broken has no valid task", async () => {
    await assert.rejects(loadTaskSet(write("all-bad.jsonl", `${GSM.replace("#### 4", "four")}\n`)), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /no valid task in the file \(1 problems; first: line 1: /);
      return true;
    });
  });
});

describe("loadTaskSet: gzip and size caps", () => {
  it("gzip is detected by magic bytes whatever the name; a plain file named .gz loads too", async () => {
    const gz = write("gsm-in-disguise.jsonl", gzipSync(`${GSM}\n`));
    assert.equal((await loadTaskSet(gz)).tasks.length, 1);
    assert.equal((await loadTaskSet(write("plain.jsonl.gz", `${GSM}\n`))).tasks.length, 1);
  });

  it("a truncated gzip file is a located error, not a crash", async () => {
    const full = readFileSync(path.join(data, "gsm8k/test.jsonl"));
    const gz = gzipSync(full);
    await assert.rejects(loadTaskSet(write("cut.jsonl.gz", gz.subarray(0, gz.length >> 1))), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /cut\.jsonl\.gz:\d+: not a readable gzip file/);
      return true;
    });
  });

  it("a 100 MB single line is skipped with a located issue and the rest loads", async () => {
    const p = path.join(tmp, "huge-line.jsonl");
    await pipeline(
      Readable.from(
        (function* () {
          yield `${GSM}\n{"question": "`;
          const chunk = Buffer.alloc(1 << 20, 0x61);
          for (let i = 0; i < 100; i++) yield chunk;
          yield `", "answer": "#### 1"}\n${GSM.replace("2+2", "3+3")}\n`;
        })(),
      ),
      createWriteStream(p),
    );
    const set = await loadTaskSet(p);
    assert.deepEqual(
      set.tasks.map((t) => t.id),
      ["gsm8k/0", "gsm8k/2"],
    );
    assert.equal(set.issues.length, 1);
    assert.equal(set.issues[0]!.line, 2);
    assert.match(set.issues[0]!.message, /line is \d+ bytes, over the 16777216-byte line limit; skipped/);
  });

  it("a gzip bomb stops at the decompressed-size cap with a located error", async () => {
    const p = path.join(tmp, "bomb.jsonl.gz");
    await pipeline(
      Readable.from(
        (function* () {
          yield `${GSM}\n`;
          const chunk = Buffer.alloc(1 << 20, 0x20);
          for (let i = 0; i < 300; i++) yield chunk;
        })(),
      ),
      createGzip({ level: 1 }),
      createWriteStream(p),
    );
    await assert.rejects(loadTaskSet(p), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /bomb\.jsonl\.gz:2: content is larger than 256 MB after decompression/);
      return true;
    });
    // A smaller cap, as a caller may set it, trips earlier.
    await assert.rejects(loadTaskSet(p, { maxDecompressedBytes: 4 << 20 }), /larger than 4 MB/);
  });
});

function gunzipLines(file: string): string[] {
  return gunzipSync(readFileSync(file)).toString("utf8").split("\n").filter((l) => l.trim() !== "");
}
