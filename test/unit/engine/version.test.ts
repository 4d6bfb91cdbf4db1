import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { TOOL_VERSION } from "../../../src/core/version.js";

it("the tool version in run headers equals package.json's version", () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, "../../../package.json"), "utf8")) as { version: string };
  assert.equal(TOOL_VERSION, pkg.version);
});
