import { createHash } from "node:crypto";
import { InputError } from "../errors.js";
import type { Task } from "../tasks/schema.js";
import type { RunHeader } from "./types.js";

/**
 * Shards (issue 16): `run --shard k/n` evaluates a deterministic share of the tasks, so n machines (a CI matrix)
 * split one evaluation and `merge` joins their run files. A task belongs to shard 1 + (h mod n), h = the first
 * 48 bits of sha256(task id): which shard holds a task depends on its id and n only, never on the other tasks,
 * their order or the other shards, so a shard re-run elsewhere (or resumed) holds the same tasks.
 */
export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** `k/n` with 1 ≤ k ≤ n; anything else is an InputError saying what is accepted. */
export function parseShardSpec(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new InputError(`shard '${text}' is not k/n with 1 ≤ k ≤ n (for example 2/3: the second of three shards)`);
  }
  return { index, count };
}

/** The shard (1-based) of a task id among `count` shards. */
export function shardOf(taskId: string, count: number): number {
  const h = Number.parseInt(createHash("sha256").update(taskId).digest("hex").slice(0, 12), 16);
  return 1 + (h % count);
}

/** The header's record of a shard: which one, of how many, and where its tasks sit in the unsharded task list. */
export type ShardHeader = NonNullable<RunHeader["shard"]>;

/**
 * A shard's tasks out of the unsharded selection (after any limit), in that selection's order, with their positions
 * in it: `merge` puts the shards' tasks back in exactly the unsharded order, so a merged report equals an unsharded one.
 */
export function selectShard(tasks: readonly Task[], shard: ShardSpec): { tasks: Task[]; header: ShardHeader } {
  const picked: Task[] = [];
  const positions: number[] = [];
  tasks.forEach((t, i) => {
    if (shardOf(t.id, shard.count) === shard.index) {
      picked.push(t);
      positions.push(i);
    }
  });
  return { tasks: picked, header: { index: shard.index, count: shard.count, total: tasks.length, positions } };
}

/**
 * Early stopping decides on the whole task set in one pre-registered order; a shard sees only part of it and would
 * stop on its own share of the evidence, so the merged result would not be the rule's decision. Refused.
 */
export function assertShardable(stopWhen: string, shard: ShardSpec | undefined): void {
  if (shard && stopWhen === "decided") {
    throw new InputError(
      `early stopping cannot run in shards: the stopping rule decides on the whole task set in one pre-registered order, and shard ${shard.index}/${shard.count} sees only part of it (each shard would stop on its own share of the evidence)`,
      { hint: "Run the shards to the end (stop rule never), or run unsharded to stop early.", hintIds: ["stopWhen"] },
    );
  }
}
