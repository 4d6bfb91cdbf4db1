/** The batch journal (src/core/models/batch-journal.ts): which rounds are live after a crash, torn lines included. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { BatchJournal } from "../../../src/core/models/batch-journal.js";
import { silentLogger } from "../../../src/core/logger.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "sf-journal-"));
const line = (o: object) => JSON.stringify(o);

describe("batch journal", () => {
  it("a round is live until done or dropped, with the ids known so far; a torn last line is ignored and not glued to", () => {
    const file = path.join(dir, "a.batch-journal");
    writeFileSync(
      file,
      [
        line({ type: "round", round: "r1", keys: ["k1", "k2"], at: "t" }),
        line({ type: "uploaded", round: "r1", fileId: "file-1" }),
        line({ type: "created", round: "r1", batchId: "batch_1" }),
        line({ type: "done", round: "r1", status: "completed" }),
        line({ type: "round", round: "r2", keys: ["k3"], at: "t" }),
        line({ type: "uploaded", round: "r2", fileId: "file-2" }),
        line({ type: "round", round: "r3", keys: ["k4"], at: "t" }),
        line({ type: "dropped", round: "r3", reason: "gone" }),
        line({ type: "round", round: "r4", keys: ["k5"], at: "t" }),
        '{"type":"uploaded","round":"r4","fil',
      ].join("\n"),
    );
    const warnings: string[] = [];
    const j = BatchJournal.open(file, { ...silentLogger, warn: (m) => warnings.push(m) });
    assert.deepEqual([...j.live.values()], [
      { round: "r2", keys: ["k3"], at: "t", fileId: "file-2" },
      { round: "r4", keys: ["k5"], at: "t" },
    ]);
    assert.deepEqual(warnings, [], "a torn last line is expected after a crash, not damage");
    j.append({ type: "created", round: "r2", batchId: "batch_2" });
    j.close();
    const text = readFileSync(file, "utf8");
    assert.match(text, /"fil\n\{"type":"created","round":"r2","batchId":"batch_2"\}\n$/);
    assert.deepEqual([...BatchJournal.open(file, silentLogger).live.keys()], ["r2", "r4"]);
  });

  it("a damaged middle line is skipped with a located warning", () => {
    const file = path.join(dir, "b.batch-journal");
    writeFileSync(file, `${line({ type: "round", round: "r1", keys: [], at: "t" })}\nnot json\n${line({ type: "done", round: "r1", status: "completed" })}\n`);
    const warnings: string[] = [];
    const j = BatchJournal.open(file, { ...silentLogger, warn: (m) => warnings.push(m) });
    assert.equal(j.live.size, 0);
    assert.match(warnings[0] ?? "", /b\.batch-journal:2: not a batch journal line; skipped/);
    j.close();
  });
});
