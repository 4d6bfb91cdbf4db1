/**
 * The README's Safety section backs each claim with the name of a test (issue 10: "each sentence is backed by a test
 * named in it"). Every test name quoted there must exist: a quoted name is `[file key: ]title`, where the title may
 * be cut with "…"; all of its pieces must appear in one test file's text.
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";

const repo = path.resolve(__dirname, "../../..");
const KEYS = /^(hostile|hostile-unconfined|runner|deadlines|json-file-cache|host-inputs|confinement|cli|render|e2e report|integration untrusted): /;
/** Quoted text that is code or a path, not a test name: a command, one flag (with its value), a path, an identifier. */
const NOT_A_NAME = /^(apt-get |node |skill-following |\.ci\/|\/|[\w./-]+\.(?:ts|md)$)|^--[\w-]+(?:[ =]\S+)?$|^[\w.]+$/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (/\.(test\.)?ts$/.test(e.name)) out.push(p);
  }
  return out;
}

it("every test the README's Safety section names exists", () => {
  const readme = readFileSync(path.join(repo, "README.md"), "utf8");
  const safety = readme.slice(readme.indexOf("## Safety"), readme.indexOf("\n## ", readme.indexOf("## Safety") + 1)).replace(/\s+/g, " ");
  const files = testFiles(path.join(repo, "test")).map((f) => ({ f, text: readFileSync(f, "utf8").replace(/\\(['"])/g, "$1") }));
  const names = [...safety.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((q) => !NOT_A_NAME.test(q));
  assert.ok(names.length >= 30, `only ${names.length} test names quoted`);
  const missing = names.filter((name) => {
    const pieces = name.replace(KEYS, "").split("…").map((p) => p.trim()).filter((p) => p !== "" && p !== ":");
    return !files.some(({ text }) => pieces.every((p) => text.includes(p)));
  });
  assert.deepEqual(missing, [], "named in the README's Safety section, but no test has that name");
});
