/** JsonFileCache: the one disk cache of the core (responses today; verdicts and expected outputs next). */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { z } from "zod";
import { JsonFileCache } from "../../../src/core/json-file-cache.js";
import type { Logger } from "../../../src/core/logger.js";

const Schema = z.object({ pass: z.boolean(), reason: z.string(), n: z.number().int() });
type Value = z.infer<typeof Schema>;

function setup(legacy?: (raw: unknown, key: string) => unknown) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-jfc-"));
  const warnings: string[] = [];
  const logger: Logger = { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(String(m)) };
  const cache = new JsonFileCache<Value>(dir, Schema, { logger, name: "test cache", ...(legacy ? { legacy } : {}) });
  return { dir, warnings, cache };
}

const KEY = "ab12cd34";
const VALUE: Value = { pass: false, reason: "expected 5, got 6", n: 3 };

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("JsonFileCache", () => {
  it("gets what was set, async and sync, under <dir>/<first two>/<key>.json", async () => {
    const { dir, cache } = setup();
    assert.equal(await cache.get(KEY), undefined);
    await cache.set(KEY, VALUE);
    assert.deepEqual(await cache.get(KEY), VALUE);
    assert.deepEqual(cache.getSync(KEY), VALUE);
    cache.setSync("ef56", { ...VALUE, n: 4 });
    assert.equal((await cache.get("ef56"))?.n, 4);
    assert.deepEqual(filesUnder(dir).map((f) => path.relative(dir, f)).sort(), [path.join("ab", `${KEY}.json`), path.join("ef", "ef56.json")]);
  });

  it("a damaged file, a value edited without its checksum, a value the schema refuses, or another key's entry is a miss", async () => {
    const { cache, warnings } = setup();
    await cache.set(KEY, VALUE);
    const file = cache.file(KEY);
    const good = readFileSync(file, "utf8");
    const cases: Array<[string, string, RegExp]> = [
      ["torn", good.slice(0, 30), /corrupt entry/],
      ["edited value", good.replace('"pass":false', '"pass":true'), /checksum mismatch/],
      ["another key", good.replace(`"key":"${KEY}"`, '"key":"ffff"'), /another key/],
    ];
    for (const [what, text, warning] of cases) {
      warnings.length = 0;
      writeFileSync(file, text);
      assert.equal(await cache.get(KEY), undefined, what);
      assert.equal(cache.getSync(KEY), undefined, what);
      assert.match(warnings[0] ?? "", warning, what);
      assert.match(warnings[0] ?? "", /test cache: .*recomputing/);
    }
    // A well-formed entry whose value does not fit the schema (checksum recomputed, as a foreign writer would).
    const other = new JsonFileCache(path.dirname(path.dirname(file)), z.object({ pass: z.string() }));
    await other.set(KEY, { pass: "yes" });
    warnings.length = 0;
    assert.equal(await cache.get(KEY), undefined);
    assert.match(warnings[0] ?? "", /invalid entry .*pass/);
    // The caller recomputes and sets: the entry is whole again.
    await cache.set(KEY, VALUE);
    assert.deepEqual(await cache.get(KEY), VALUE);
  });

  it("reads a pre-envelope entry through `legacy` and stores it again in the checksummed form", async () => {
    const { cache } = setup((raw, key) => {
      const old = raw as { key?: string; verdict?: unknown };
      return old.key === key ? old.verdict : undefined;
    });
    const file = cache.file(KEY);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ key: KEY, verdict: VALUE }));
    assert.deepEqual(await cache.get(KEY), VALUE);
    assert.match(readFileSync(file, "utf8"), /"sha256":"[0-9a-f]{64}"/);
    // A legacy entry for another key is not taken.
    writeFileSync(file, JSON.stringify({ key: "ffff", verdict: VALUE }));
    assert.equal(await cache.get(KEY), undefined);
  });

  it("concurrent writers leave one whole entry and no temp file", async () => {
    const { cache, dir } = setup();
    await Promise.all(Array.from({ length: 16 }, (_, i) => cache.set(KEY, { ...VALUE, n: i })));
    assert.deepEqual(filesUnder(dir).map((f) => path.basename(f)), [`${KEY}.json`]);
    assert.ok((await cache.get(KEY)) !== undefined);
  });

  it("refuses keys that are not plain file names, and warns (without throwing) when it cannot write", async () => {
    const { cache, dir, warnings } = setup();
    for (const bad of ["../etc", "a/b", "", ".hidden"]) assert.throws(() => cache.file(bad), /invalid key/);
    const blocker = path.join(dir, "file");
    writeFileSync(blocker, "x");
    const blocked = new JsonFileCache(blocker, Schema, { logger: { trace() {}, debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} } });
    await blocked.set(KEY, VALUE);
    blocked.setSync(KEY, VALUE);
    assert.equal(warnings.filter((w) => /cannot write/.test(w)).length, 2);
  });
});
