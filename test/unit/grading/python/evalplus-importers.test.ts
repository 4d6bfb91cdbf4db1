// test-requires: shared-data
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { evalplusImporters } from "../../../../src/core/tasks/evalplus.js";
import { PythonFunctionTaskSchema, type PythonFunctionTask, type TaskImporter } from "../../../../src/core/tasks/schema.js";

const repoRoot = path.resolve(__dirname, "../../../..");
const dataDir = path.resolve(repoRoot, "../shared/data");

function lines(rel: string): string[] {
  return gunzipSync(readFileSync(path.join(dataDir, rel))).toString("utf8").split("\n").filter((l) => l.trim());
}

/** The loader's contract: detect on JSON.parse of the first line, then parse every line with parseLine. */
function records(rel: string): Record<string, unknown>[] {
  const all = lines(rel);
  const first = JSON.parse(all[0]!) as Record<string, unknown>;
  const parse = evalplusImporters.find((i) => i.detect(first))?.parseLine ?? ((l: string) => JSON.parse(l) as Record<string, unknown>);
  return all.map((l) => parse(l));
}

function importAll(rel: string): { importer: TaskImporter; tasks: PythonFunctionTask[] } {
  const recs = records(rel);
  const importer = evalplusImporters.find((i) => i.detect(recs[0]!));
  assert.ok(importer, `no importer detected ${rel}`);
  const tasks = recs.map((r, i) => PythonFunctionTaskSchema.parse(importer.convert(r, i)));
  return { importer, tasks };
}

test("each of the four files is detected by exactly one importer", () => {
  const files: Record<string, string> = {
    "mbppplus/MbppPlus-v0.2.0.jsonl.gz": "evalplus-mbpp",
    "mbppplus/MbppPlus-OriginFmt-v0.2.0.jsonl.gz": "evalplus-mbpp-originfmt",
    "humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz": "evalplus-humaneval",
    "humanevalplus/HumanEvalPlus-OriginFmt-v0.1.10.jsonl.gz": "evalplus-humaneval-originfmt",
  };
  for (const [rel, format] of Object.entries(files)) {
    const first = records(rel)[0]!;
    const hits = evalplusImporters.filter((i) => i.detect(first)).map((i) => i.format);
    assert.deepEqual(hits, [format], rel);
  }
});

test("MBPP+ EvalPlus layout: counts, Mbpp/793 empty plus, deserialisers, oracles", () => {
  const { tasks } = importAll("mbppplus/MbppPlus-v0.2.0.jsonl.gz");
  assert.equal(tasks.length, 378);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  assert.deepEqual(byId.get("Mbpp/793")!.tests.plus, []);
  assert.equal(tasks.reduce((n, t) => n + t.tests.base.length, 0), 1174);
  assert.equal(tasks.reduce((n, t) => n + t.tests.plus.length, 0), 39841);
  // The README lists exactly 52 tasks that need deserialisation.
  assert.equal(tasks.filter((t) => t.tests.deserialize).length, 52);
  assert.match(byId.get("Mbpp/124")!.tests.deserialize!, /complex\(args\[1\]\)/);
  assert.equal(byId.get("Mbpp/2")!.tests.oracle, "set");
  // Mbpp/164 and /295 (EvalPlus's "always" and "or-zero" oracles) were dropped in v0.2.0.
  assert.equal(byId.get("Mbpp/558")!.tests.oracle, "alt-reference");
  assert.equal(byId.get("Mbpp/581")!.tests.oracle, "alt-reference");
  assert.equal(tasks.filter((t) => t.tests.oracle === "not-none").length, 3);
  assert.equal(tasks.filter((t) => t.tests.atol === 1e-4).length, 13);
  assert.ok(byId.get("Mbpp/2")!.prompt.includes("similar_elements"));
});

test("HumanEval+ EvalPlus layout: prompt is the code stub, setup carries it, find_zero oracle", () => {
  const { tasks } = importAll("humanevalplus/HumanEvalPlus-v0.1.10.jsonl.gz");
  assert.equal(tasks.length, 164);
  assert.equal(tasks.reduce((n, t) => n + t.tests.base.length + t.tests.plus.length, 0), 1570 + 122683);
  const t32 = tasks.find((t) => t.id === "HumanEval/32")!;
  assert.equal(t32.tests.oracle, "find_zero");
  assert.equal(t32.tests.atol, 1e-4);
  assert.ok(t32.tests.setup!.includes("def poly("));
  assert.ok(t32.canonicalSolution.startsWith(t32.prompt));
});

test("OriginFmt layouts keep inputs as Python text, recover entry point and atol; HumanEval/32 gets the oracle", () => {
  const mbpp = importAll("mbppplus/MbppPlus-OriginFmt-v0.2.0.jsonl.gz").tasks;
  assert.equal(mbpp.length, 378);
  const m2 = mbpp.find((t) => t.id === "Mbpp/2")!;
  assert.equal(m2.entryPoint, "similar_elements");
  assert.equal(m2.tests.oracle, "set");
  assert.ok(m2.tests.inputsPy!.startsWith("[[(3, 4, 5, 6), (5, 7, 4, 10)]"));
  assert.ok(m2.prompt.includes("assert set(similar_elements("));
  assert.equal(mbpp.filter((t) => t.tests.atol === 1e-4).length, 13);
  const he = importAll("humanevalplus/HumanEvalPlus-OriginFmt-v0.1.10.jsonl.gz").tasks;
  assert.equal(he.length, 164);
  const h32 = he.find((t) => t.id === "HumanEval/32")!;
  assert.equal(h32.tests.oracle, "find_zero");
  assert.equal(h32.tests.atol, 1e-4);
  assert.equal(he.find((t) => t.id === "HumanEval/2")!.tests.atol, 1e-6);
});

test("bad records get a reason naming the field", () => {
  const imp = evalplusImporters[0]!;
  assert.throws(() => imp.convert({ task_id: "Mbpp/1", prompt: "p", entry_point: "f", canonical_solution: "x", base_input: "nope" }, 0), /base_input/);
  const origin = evalplusImporters[2]!;
  assert.throws(() => origin.convert({ task_id: 3, code: "x", prompt: "p", test: "no loop here" }, 0), /entry point/);
});

test("lossless JSON keeps Python number semantics and round-trips them for json.loads", async () => {
  const { parseJsonLossless, stringifyJsonLossless } = await import("../../../../src/core/tasks/evalplus-json.js");
  const text = '[[12345678901234567890, 5.0, -0.0, 1e+20, 2.5, 7, -Infinity, NaN, "a\\"5.0 Infinity", {"k": [1.0]}], 9007199254740993]';
  const v = parseJsonLossless(text);
  assert.equal(stringifyJsonLossless(v), '[[12345678901234567890,5.0,-0.0,1e+20,2.5,7,-Infinity,NaN,"a\\"5.0 Infinity",{"k":[1.0]}],9007199254740993]');
  // Ordinary values stay ordinary JS values.
  assert.deepEqual(parseJsonLossless('{"a": [1, 2.5, "x"], "b": null}'), { a: [1, 2.5, "x"], b: null });
  // Survives a plain JSON round trip (run files, caches).
  assert.equal(stringifyJsonLossless(JSON.parse(JSON.stringify(v))), stringifyJsonLossless(v));
  const { tasks } = importAll("mbppplus/MbppPlus-v0.2.0.jsonl.gz");
  const t77 = tasks.find((t) => t.id === "Mbpp/77")!;
  assert.ok(stringifyJsonLossless([...t77.tests.base, ...t77.tests.plus]).includes("12345678901234567890"));
});
