import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { readLines, type RawLine } from "../../../src/core/tasks/index.js";

const tmp = mkdtempSync(path.join(tmpdir(), "sf-lines-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function collect(file: string, chunkBytes: number, maxLineBytes = 1 << 20): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const l of readLines(file, { maxLineBytes, maxDecompressedBytes: 1 << 30, chunkBytes })) out.push(l);
  return out;
}

describe("readLines", () => {
  it("yields the same lines whatever the chunk size, across CRLF and multi-byte boundaries, plain and gzip", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", " ", "{", "\r"), maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom("\n", "\r\n"), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        async (rawLines, eols, finalEol, chunk, gz) => {
          // A CR at the end of a line's own text would merge with a following LF; keep inner CRs only.
          const lines = rawLines.map((l) => l.replace(/\r+$/, ""));
          let content = "";
          lines.forEach((l, i) => {
            content += l;
            if (i < lines.length - 1 || finalEol) content += eols[i];
          });
          const file = path.join(tmp, `p${n++}.txt`);
          writeFileSync(file, gz ? gzipSync(content) : content);
          const got = await collect(file, chunk);
          // An empty last line without an EOL is no line at all; with one, it is a (blank) line.
          const want = lines.map((text, i) => ({ line: i + 1, text })).filter((l, i) => !(i === lines.length - 1 && l.text === "" && !finalEol));
          assert.deepEqual(got, want);
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });

  it("reports invalid UTF-8 and over-long lines by number and keeps going", async () => {
    const file = path.join(tmp, "mixed.bin");
    writeFileSync(file, Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xc3, 0x28, 0x0a]), Buffer.from("x".repeat(50) + "\nlast")]));
    const got = await collect(file, 4, 20);
    assert.deepEqual(got, [{ line: 1, text: "ok" }, { line: 2, invalidUtf8: true }, { line: 3, tooLong: 50 }, { line: 4, text: "last" }]);
    // An over-long last line without a final newline is still reported.
    writeFileSync(file, "y".repeat(30));
    assert.deepEqual(await collect(file, 4, 20), [{ line: 1, tooLong: 30 }]);
  });
});
