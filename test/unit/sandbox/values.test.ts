import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { allclose, compareOutput, pySumFloats, type CompareState } from "../../../src/core/sandbox/compare.js";
import { SandboxPool } from "../../../src/core/sandbox/runner.js";
import { canonicalKey, pyEquals, pyRepr, validateValue, ValueFormatError, type PyValue } from "../../../src/core/sandbox/values.js";
import { sandboxDist, snapshotCache } from "./support.js";

let pool: SandboxPool;
before(async () => {
  pool = SandboxPool.create({ distDir: await sandboxDist(), snapshotCacheDir: snapshotCache, poolSize: 1 });
});
after(() => pool.finish());

// A Python decoder for tagged values (test code: the product never decodes an answer's values in Python).
const DECODE_PY = String.raw`
import json, base64, collections
def dec(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, list):
        return [dec(x) for x in v]
    if "i" in v: return int(v["i"])
    if "f" in v: return float(v["f"])
    if "c" in v: return complex(float(v["c"][0]), float(v["c"][1]))
    if "t" in v: return tuple(dec(x) for x in v["t"])
    if "s" in v: return set(dec(x) for x in v["s"])
    if "z" in v: return frozenset(dec(x) for x in v["z"])
    if "b" in v: return bytes(base64.b64decode(v["b"]))
    if "d" in v:
        kinds = {"Counter": collections.Counter, "OrderedDict": collections.OrderedDict}
        return kinds.get(v.get("k"), dict)((dec(k), dec(x)) for k, x in v["d"])
    raise ValueError(v)
`;

/** Python's own answers for a batch of expressions over decoded pairs. */
async function python(pairs: Array<[PyValue, PyValue]>, expr: string): Promise<unknown[]> {
  const code = `${DECODE_PY}\npairs = json.loads(${JSON.stringify(JSON.stringify(pairs))})\nout = []\nfor a, b in pairs:\n    a = dec(a); b = dec(b)\n    try:\n        out.append(${expr})\n    except Exception as e:\n        out.append('error')\nprint(json.dumps(out))`;
  const r = await pool.exec(code, 60_000);
  assert.equal(r.error, undefined, r.error);
  return JSON.parse(r.stdout) as unknown[];
}

const scalar: fc.Arbitrary<PyValue> = fc.oneof(
  fc.constantFrom<PyValue>(null, true, false, 0, 1, -1, 2, { f: "0.0" }, { f: "-0.0" }, { f: "1.0" }, { f: "2.0" }, { f: "0.5" }, { f: "nan" }, { f: "inf" }, { f: "-inf" }, { f: "1e+300" }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom<PyValue>({ i: "9007199254740993" }, { i: "-9007199254740993" }, { f: "9007199254740992.0" }, { i: "9007199254740992" }, { c: ["1.0", "0.0"] }, { c: ["1.0", "2.0"] }, { c: ["0.0", "-0.0"] }),
  fc.constantFrom<PyValue>("", "a", "1", "ab", "é", { b: "YQ==" }, { b: "" }),
);
const hashable: fc.Arbitrary<PyValue> = fc.letrec<{ h: PyValue }>((tie) => ({
  h: fc.oneof({ depthSize: "small" }, scalar, fc.array(tie("h"), { maxLength: 3 }).map((t): PyValue => ({ t })), fc.array(tie("h"), { maxLength: 3 }).map((z): PyValue => ({ z }))),
})).h.filter((v) => !JSON.stringify(v).includes('"nan"'));
const value: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.array(tie("v"), { maxLength: 3 }).map((t): PyValue => ({ t })),
    fc.uniqueArray(hashable, { maxLength: 3, selector: (h) => canonicalKey(h).key }).map((s): PyValue => ({ s })),
    fc.uniqueArray(hashable, { maxLength: 3, selector: (h) => canonicalKey(h).key }).map((z): PyValue => ({ z })),
    fc.uniqueArray(fc.tuple(hashable, tie("v")), { maxLength: 3, selector: ([k]) => canonicalKey(k).key }).map((d): PyValue => ({ d })),
  ),
})).v;
/** Pairs that are often equal under Python's rules but differ in type or order (1 vs 1.0 vs True, {a, b} vs {b, a}). */
const pair: fc.Arbitrary<[PyValue, PyValue]> = fc.oneof(
  fc.tuple(value, value),
  value.map((v): [PyValue, PyValue] => [v, JSON.parse(JSON.stringify(v)) as PyValue]),
  value.map((v): [PyValue, PyValue] => [v, JSON.parse(JSON.stringify(v).replace(/(?<=[[,:])1(?=[\],])/g, '{"f":"1.0"}').replace(/true/g, "1")) as PyValue]),
);

test("pyEquals agrees with Python's == on random values (checked in the sandbox's own Python)", async () => {
  const pairs = fc.sample(pair, { numRuns: 600, seed: 20261130 });
  const want = await python(pairs, "a == b");
  pairs.forEach(([a, b], i) => assert.equal(pyEquals(a, b), want[i], `${JSON.stringify(a)} == ${JSON.stringify(b)}`));
});

test("allclose agrees with the harness's EvalPlus rule on random numbers and sequences", async () => {
  const num = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ min: -10, max: 10, noNaN: true }).map((d): PyValue => ({ f: String(d === 0 ? 0 : d).replace(/^(-?\d+)$/, "$1.0") })));
  const seqOrNum = fc.oneof(num, fc.array(num, { maxLength: 3 }));
  const pairs = fc.sample(
    fc.tuple(seqOrNum, seqOrNum).map(([a, b]): [PyValue, PyValue] => [a, b]),
    { numRuns: 300, seed: 7 },
  );
  // The old in-sandbox comparison, verbatim: numpy.allclose(a, b, rtol=1e-7, atol=1e-6) for scalars and sequences.
  const ref = String.raw`
import math
def ac(a, b, atol=1e-6):
    if isinstance(a, str) or isinstance(b, str):
        return False
    if isinstance(b, (list, tuple)):
        if isinstance(a, (list, tuple)):
            if len(a) != len(b):
                return False
            return all(ac(x, y, atol) for x, y in zip(a, b))
        return all(ac(a, y, atol) for y in b)
    if isinstance(a, (list, tuple)):
        return all(ac(x, b, atol) for x in a)
    fa = float(a); fb = float(b)
    if math.isinf(fa) or math.isinf(fb):
        return fa == fb
    return abs(fa - fb) <= atol + 1e-7 * abs(fb)
`;
  const code = `${DECODE_PY}\n${ref}\npairs = json.loads(${JSON.stringify(JSON.stringify(pairs))})\nprint(json.dumps([ac(dec(a), dec(b)) for a, b in pairs]))`;
  const r = await pool.exec(code, 60_000);
  const want = JSON.parse(r.stdout) as boolean[];
  pairs.forEach(([a, b], i) => assert.equal(allclose(a, b, 1e-6), want[i], `${JSON.stringify(a)} ~ ${JSON.stringify(b)}`));
});

test("sum() of floats is CPython's compensated sum, and find_zero uses it", async () => {
  // Floats only, as in EvalPlus's poly(): every term is coeff * math.pow(x, i).
  const lists = [[1.5e16, 1.25, -1.5e16, 1e-3, 3.3, -2.2, 1e100, -1e100], [3.3, -2.2, 1e100, -1e100], Array<number>(10).fill(0.1), [1e100, 1.0, -1e100], [-0.0, -0.0]];
  const text = (xs: number[]) => `[${xs.map((x) => (Number.isInteger(x) ? `${x}.0` : String(x))).join(", ")}]`.replace(/e\+(\d+)\.0/g, "e+$1");
  const r = await pool.exec(`import json\nprint(json.dumps([repr(sum(xs)) for xs in [${lists.map(text).join(", ")}]]))`, 10_000);
  assert.deepEqual(JSON.parse(r.stdout) as string[], lists.map((xs) => { const v = pySumFloats(xs); return Object.is(v, -0) ? "-0.0" : Number.isInteger(v) ? `${v}.0` : String(v); }));
  assert.equal(pySumFloats([1e308, 1e308, -1e308]), Infinity);
  const st: CompareState = { oracle: "find_zero", atol: 1e-4 };
  assert.deepEqual(compareOutput(st, { f: "1.0" }, { value: { f: "1.0000001" }, args: [[-1, 1]] }), { ok: true }, "x - 1 has its zero at 1");
  assert.deepEqual(compareOutput(st, { f: "2.0" }, { value: { f: "1.0" }, args: [[-1, 1]] }), { ok: false });
  assert.equal(compareOutput(st, "one", { value: { f: "1.0" }, args: [[-1, 1]] }).ok, false);
});

test("EvalPlus's rules on tagged values: types, tolerance that sticks within a phase, and the special oracles", () => {
  const st = (oracle: CompareState["oracle"] = "default", atol = 0): CompareState => ({ oracle, atol });
  assert.equal(compareOutput(st(), 1, { value: { f: "1.0" } }).ok, true, "1 == 1.0");
  assert.equal(compareOutput(st(), true, { value: 1 }).ok, true, "True == 1");
  assert.equal(compareOutput(st(), [1], { value: { t: [1] } }).ok, false, "a list is not a tuple");
  assert.equal(compareOutput(st(), { o: "Yes" }, { value: 3 }).ok, false, "an object of the answer's own type is never compared");
  const phase = st();
  assert.equal(compareOutput(phase, { f: "0.1" }, { value: { f: "0.1000000001" } }).ok, true, "a float expected: 1e-6 from then on");
  assert.equal(phase.atol, 1e-6);
  assert.equal(compareOutput(phase, [{ f: "0.5" }], { value: { t: [{ f: "0.5" }] } }).ok, false, "with a tolerance, type(out) must equal type(exp)");
  assert.equal(compareOutput(st("set"), [1, 2, 2], { value: [2, 1] }).ok, true);
  assert.match(JSON.stringify(compareOutput(st("set"), [[1]], { value: [2] })), /unhashable type: 'list'/);
  assert.equal(compareOutput(st("not-none"), { o: "re.Match" }, { value: true }).ok, true, "not-none asks only whether it is None");
  assert.equal(compareOutput(st("not-none"), null, { value: true }).ok, false);
  assert.equal(compareOutput(st("or-zero"), { f: "-0.0" }, { value: 5 }).ok, true);
  assert.equal(compareOutput(st("alt-reference", 1e-4), { f: "2.00001" }, { value: 3, alt: { f: "2.0" } }).ok, true);
  assert.match(JSON.stringify(compareOutput(st("alt-reference", 1e-4), "x", { value: 3, alt: 2 })), /TypeError/);
  assert.equal(compareOutput(st("approx"), { f: "1.0000001" }, { value: 1 }).ok, true);
  assert.equal(compareOutput(st("always"), "anything", { value: 1 }).ok, true);
});

test("validateValue rejects anything that is not a tagged value, without recursing on the attacker's depth", () => {
  for (const bad of [1.5, { f: "1.5", x: 1 }, { q: 1 }, { i: "12a" }, { f: "1.5; drop" }, { d: [[1]] }, { b: "not base64!" }, { o: 5 }, [1, [2, { z: 3 }]], Number.MAX_SAFE_INTEGER * 4]) {
    assert.throws(() => validateValue(bad), ValueFormatError, JSON.stringify(bad));
  }
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(() => validateValue(deep), /nested deeper than 1000/);
  assert.deepEqual(validateValue({ d: [[{ t: [1, "a"] }, { s: [{ f: "nan" }] }]], k: "Counter" }), { d: [[{ t: [1, "a"] }, { s: [{ f: "nan" }] }]], k: "Counter" });
});

test("pyRepr is Python's repr, cut at the limit", async () => {
  const samples: PyValue[] = [null, true, -3, { i: "123456789012345678901234567890" }, { f: "1e-05" }, "it's", 'say "hi"', "tab\there\n", { t: [1] }, { t: [] }, [], { s: [] }, { z: [1] }, { b: "AAE=" }, { c: ["1.5", "-2.0"] }, { c: ["0.0", "2.0"] }, { d: [["a", [1, { t: [2, 3] }]]] }];
  const r = await pool.exec(`${DECODE_PY}\nfor v in json.loads(${JSON.stringify(JSON.stringify(samples))}):\n    print(repr(dec(v)))`, 10_000);
  assert.deepEqual(samples.map((v) => pyRepr(v)), r.stdout.trim().split("\n"));
  assert.equal(pyRepr("x".repeat(1000), 20), `'${"x".repeat(18)}\u2026`);
});
