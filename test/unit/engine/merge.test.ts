/** Shard headers merged (src/core/runs/merge.ts): the parts the CLI test does not reach. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildRunHeader, selectTasks } from "../../../src/core/runs/header.js";
import { checkShards, mergedHeader, mergeShardRuns, type ShardFile } from "../../../src/core/runs/merge.js";
import { parseRunSettings } from "../../../src/core/settings.js";
import type { TaskSet } from "../../../src/core/tasks/schema.js";
import { silentLogger } from "../../../src/core/logger.js";
import { mathTask, skill } from "./helpers.js";

const taskSet: TaskSet = { name: "toy", format: "native", file: "/t.jsonl", hash: "h", tasks: Array.from({ length: 30 }, (_, i) => mathTask(`t${i}`, `What is ${i} + 1?`, String(i + 1))), issues: [] };
const settings = parseRunSettings({});
const inputs = { skills: [skill("units", "Convert units.", "Convert.")], taskSet, clientId: "openai-compatible:m@http://x/v1", model: "m" };

function shard(k: number, n: number, extra: { batch?: boolean; isolation?: "process-permission" | "worker-fallback" | "none" } = {}): ShardFile {
  const picked = selectTasks(taskSet, settings, { index: k, count: n });
  const header = buildRunHeader(settings, { ...inputs, shard: picked.shard, ...(extra.batch ? { batch: true } : {}) }, picked.tasks, { isolation: extra.isolation ?? "none" }, { runId: `run-${k}`, createdAt: `2025-01-0${k}T00:00:00.000Z` });
  return { file: `/runs/s${k}.jsonl`, header };
}

describe("merging shard headers", () => {
  it("puts the tasks back in the unsharded order, with a stable merged run id and the earliest time", () => {
    const files = [shard(2, 3), shard(3, 3), shard(1, 3)];
    const { ordered } = checkShards(files, { complete: true });
    const h = mergedHeader(ordered);
    assert.deepEqual(h.taskIds, taskSet.tasks.map((t) => t.id));
    assert.equal(h.shard, undefined);
    assert.equal(h.createdAt, "2025-01-01T00:00:00.000Z");
    assert.equal(mergedHeader(checkShards([shard(1, 3), shard(3, 3), shard(2, 3)], { complete: true }).ordered).runId, h.runId);
    assert.match(h.runId, /^merged-[0-9a-f]{24}$/);
  });

  it("claims batch pricing only when every shard had it; reports the weakest sandbox that ran code", () => {
    const all = mergedHeader(checkShards([shard(1, 2, { batch: true }), shard(2, 2, { batch: true })], { complete: true }).ordered);
    assert.equal(all.pricing, "batch");
    const some = mergedHeader(checkShards([shard(1, 2, { batch: true }), shard(2, 2)], { complete: true }).ordered);
    assert.equal(some.pricing, undefined);
    const mixed = mergedHeader(checkShards([shard(1, 3, { isolation: "process-permission" }), shard(2, 3, { isolation: "worker-fallback" }), shard(3, 3, { isolation: "none" })], { complete: true }).ordered);
    assert.equal(mixed.sandbox.isolation, "worker-fallback");
  });

  it("refuses overlapping positions and a damaged header", () => {
    const a = shard(1, 2);
    const b = shard(2, 2);
    const overlapping = { ...b, header: { ...b.header, shard: { ...b.header.shard!, positions: b.header.shard!.positions.map((_, i) => a.header.shard!.positions[i] ?? 0) } } };
    assert.throws(() => mergedHeader([a, overlapping]), /the shards overlap: two of them hold position/);
    const damaged = { ...b, header: { ...b.header, shard: { ...b.header.shard!, positions: [0] } } };
    assert.throws(() => mergedHeader([a, damaged]), /damaged shard header/);
  });

  it("report merges the shards of each run apart from other runs, and passes unsharded runs through", () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    const plain = { file: "/runs/plain.jsonl", header: buildRunHeader(settings, inputs, selectTasks(taskSet, settings), { isolation: "none" }, { runId: "p", createdAt: "t" }), records: [], stops: [] };
    const s1 = { ...shard(1, 2), records: [], stops: [] };
    const s2 = { ...shard(2, 2), records: [], stops: [] };
    const out = mergeShardRuns([s2, plain, s1], logger);
    assert.equal(out.length, 2);
    assert.equal(out[0]!.header.taskIds.length, 30);
    assert.equal(out[1], plain);
    assert.deepEqual(warnings, []);
    mergeShardRuns([s2], logger);
    assert.match(warnings[0] ?? "", /shard 1\/2 of this run is missing; the report covers \d+ of its 30 tasks/);
  });
});
