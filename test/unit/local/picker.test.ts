import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { DEFAULT_LOCAL_MODEL } from "../../../src/core/models/local/catalog.js";
import { localPickerEntry } from "../../../src/extension/models/local-choice.js";

describe("the model picker's local entry", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-picker-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("is not offered where node-llama-cpp's binary does not load (the packaged .vsix)", () => {
    assert.equal(localPickerEntry(false, dir), undefined);
  });

  it("says what choosing it costs, once, and names the default", () => {
    const e = localPickerEntry(true, dir);
    assert.equal(e?.label, "$(vm) Local model (downloads 491 MB once)");
    assert.equal(e?.model, `local:${DEFAULT_LOCAL_MODEL.name}`);
    assert.match(e?.description ?? "", /Qwen2\.5-Coder-0\.5B-Instruct \(Q4_K_M\) · Apache-2\.0/);
  });

  it("once downloaded, it no longer speaks of a download", () => {
    writeFileSync(path.join(dir, DEFAULT_LOCAL_MODEL.fileName), "");
    const e = localPickerEntry(true, dir);
    assert.equal(e?.label, "$(vm) Local model (Qwen2.5-Coder-0.5B-Instruct (Q4_K_M))");
    assert.match(e?.description ?? "", /^downloaded/);
  });
});
