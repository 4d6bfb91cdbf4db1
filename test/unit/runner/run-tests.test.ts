/**
 * scripts/run-tests.mjs, the `npm test` runner: a tier whose prerequisite is missing fails the run under CI=true and
 * is named; elsewhere it skips and the summary counts and names what skipped; counts come from a node:test reporter
 * (scripts/test-counts.mjs), not from reading the spec text; nothing is installed unless SF_INSTALL_DEPS=1.
 * The runner is run for real on a tree of fixture tiers (SF_TEST_ROOT), without the build (SF_TEST_BUILD=0).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";

const repo = path.resolve(__dirname, "../../..");
const runner = path.join(repo, "scripts", "run-tests.mjs");

interface Missing {
  tier: string;
  what: string;
  hint: string;
}
type Check = (tiers: string[], m: { root: string; env: Record<string, string | undefined>; platform: string; exists: (p: string) => boolean }) => Missing[];

let tmp: string;
let missingPrerequisites: Check;

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "sf-runner-"));
  ({ missingPrerequisites } = (await import(path.join(repo, "scripts", "test-prerequisites.mjs"))) as { missingPrerequisites: Check });
});
after(() => rmSync(tmp, { recursive: true, force: true }));

const put = (rel: string, text: string) => {
  const f = path.join(tmp, rel);
  mkdirSync(path.dirname(f), { recursive: true });
  writeFileSync(f, text);
  return f;
};

/** Runs the runner on the fixture tree under `root`, with exactly the environment given (plus PATH and HOME). */
function run(root: string, tiers: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [runner, ...tiers], {
    cwd: repo,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmp, SF_TEST_ROOT: root, SF_TEST_BUILD: "0", SF_TEST_CONCURRENCY: "1", ...env },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("prerequisites per tier", () => {
  const all = (present: string[]) => (p: string) => present.some((x) => p === x || p.endsWith(x));
  const machine = (present: string[], env: Record<string, string> = {}) => ({ root: "/repo", env: { PATH: "/usr/bin:/bin", ...env }, platform: "linux", exists: all(present) });

  it("unit needs bubblewrap and CPython on Linux only; integration and e2e need code-server and Chromium", () => {
    const cs = "/repo/.vscode-test/code-server/node_modules/.bin/code-server";
    assert.deepEqual(missingPrerequisites(["unit", "integration", "e2e"], machine(["/usr/bin/bwrap", "/usr/bin/python3", cs, "/usr/bin/chromium"])), []);
    assert.deepEqual(missingPrerequisites(["unit"], machine([])).map((m) => [m.tier, m.what]), [
      ["unit", "bubblewrap (bwrap) not on PATH"],
      ["unit", "CPython not found at /usr/bin/python3 (the CPython sandbox runtime's tests)"],
    ]);
    assert.deepEqual(missingPrerequisites(["unit"], machine(["/usr/bin/bwrap", "/opt/py/bin/python3.12"], { SF_SANDBOX_PYTHON: "/opt/py/bin/python3.12" })), []);
    assert.deepEqual(missingPrerequisites(["unit"], { ...machine([]), platform: "darwin" }), []);
    assert.deepEqual(missingPrerequisites(["e2e"], machine(["/usr/bin/chromium"])).map((m) => m.what), [`code-server not installed at ${cs}`]);
    assert.deepEqual(missingPrerequisites(["integration"], machine([cs])).map((m) => m.what), ["Chromium not found at /usr/bin/chromium"]);
  });

  it("follows SF_CODE_SERVER_DIR and SF_CHROMIUM, as the tiers themselves do", () => {
    const m = machine(["/opt/cs/node_modules/.bin/code-server", "/opt/chrome"], { SF_CODE_SERVER_DIR: "/opt/cs", SF_CHROMIUM: "/opt/chrome" });
    assert.deepEqual(missingPrerequisites(["integration"], m), []);
  });
});

describe("the test-count reporter", () => {
  it("counts node's events: leaf tests, a skipped suite once (named), hook failures, a file that throws", () => {
    const dir = path.join(tmp, "reporter");
    put("reporter/a.test.mjs", [
      'import { describe, it, test, before } from "node:test";',
      'describe("needs code-server", { skip: "code-server not found" }, () => { it("never", () => {}); it("runs", () => {}); });',
      'describe("suite", () => { it("p1", () => {}); it("p2", () => {}); it("s1", { skip: "no data" }, () => {}); it("t1", { todo: true }, () => { throw new Error("todo") }); });',
      'describe("hook", () => { before(() => { throw new Error("setup") }); it("x", () => {}); });',
      'test("top fails", () => { throw new Error("boom") });',
    ].join("\n"));
    put("reporter/b.test.mjs", 'throw new Error("prerequisite missing under CI");\n');
    const out = path.join(dir, "counts.json");
    const r = spawnSync(process.execPath, ["--test", `--test-reporter=${path.join(repo, "scripts", "test-counts.mjs")}`, `--test-reporter-destination=${out}`, path.join(dir, "a.test.mjs"), path.join(dir, "b.test.mjs")], {
      cwd: dir,
      encoding: "utf8",
      // Inside a test file node:test refuses to run files again unless the child leaves this test's context.
      env: { PATH: process.env.PATH ?? "" },
    });
    assert.ok(existsSync(out), r.stderr + r.stdout);
    const c = JSON.parse(readFileSync(out, "utf8")) as { passed: number; failed: number; cancelled: number; skipped: number; todo: number; skippedSuites: { name: string; reason: string }[]; failures: { file: string; name: string }[] };
    assert.deepEqual([c.passed, c.failed, c.cancelled, c.skipped, c.todo], [2, 3, 1, 2, 1]);
    assert.deepEqual(c.skippedSuites.map((s) => [s.name, s.reason]), [["needs code-server", "code-server not found"]]);
    assert.deepEqual(c.failures.map((f) => f.name).sort(), ["hook", "top fails", path.join(dir, "b.test.mjs")].sort());
  });
});

describe("npm test's runner", () => {
  const tree = () => {
    const root = path.join(tmp, `tree-${Math.random().toString(36).slice(2)}`);
    const file = (rel: string, text: string) => put(path.relative(tmp, path.join(root, rel)), text);
    return { root, file };
  };
  const SKIPPING_INTEGRATION = [
    'import { describe, it } from "node:test";',
    'import { existsSync } from "node:fs";',
    'const skip = existsSync(process.env.SF_CHROMIUM ?? "/usr/bin/chromium") ? false : "chromium not found";',
    'describe("extension in code-server", { skip }, () => { it("opens", () => {}); });',
    'it("a check that needs nothing", () => {});',
  ].join("\n");
  const nowhere = { SF_CODE_SERVER_DIR: "/nonexistent/cs", SF_CHROMIUM: "/nonexistent/chromium" };

  it("CI=true with a tier's prerequisites missing: fails at once and names each one, running nothing", () => {
    const { root, file } = tree();
    file("integration/x.test.mjs", SKIPPING_INTEGRATION);
    const r = run(root, ["integration"], { CI: "true", ...nowhere });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /missing prerequisite: integration tier: code-server not installed at \/nonexistent\/cs\/node_modules\/\.bin\/code-server/);
    assert.match(r.stderr, /missing prerequisite: integration tier: Chromium not found at \/nonexistent\/chromium/);
    assert.doesNotMatch(r.stdout, /^tests:/m);
  });

  it("without CI the same tier runs, its dependent suites skip, and the summary counts and names them", () => {
    const { root, file } = tree();
    file("integration/x.test.mjs", SKIPPING_INTEGRATION);
    const r = run(root, ["integration"], nowhere);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /note: integration tier: code-server not installed at \/nonexistent\/cs/);
    assert.match(r.stdout, /^tests: 1 passed, 0 failed, 1 skipped$/m);
    assert.match(r.stdout, /skipped \(1 suites or top-level tests\):\n {2}.*integration\/x\.test\.mjs: extension in code-server — chromium not found/);
  });

  describe("a file that declares `// test-requires: shared-data`", () => {
    // The tests read ../shared/data beside the repository: here the fixture "repository" is <base>/repo.
    const declared = () => {
      const base = path.join(tmp, `shared-${Math.random().toString(36).slice(2)}`);
      const root = path.join(base, "repo", "test");
      put(path.relative(tmp, path.join(root, "unit/golden.test.mjs")), '// test-requires: shared-data\nimport { it } from "node:test";\nit("reads the golden values", () => {});\n');
      put(path.relative(tmp, path.join(root, "unit/plain.test.mjs")), 'import { it } from "node:test";\nit("needs nothing", () => {});\n');
      return { base, root };
    };

    it("CI=true without ../shared/data: fails at once, naming the file and what it needs, running nothing", () => {
      const { base, root } = declared();
      const r = run(root, ["unit"], { CI: "true" });
      assert.equal(r.status, 1);
      assert.ok(r.stderr.includes(`missing prerequisite: ${path.relative(repo, path.join(root, "unit", "golden.test.mjs"))} needs ${path.join(base, "shared", "data")} not found`), r.stderr);
      assert.doesNotMatch(r.stdout, /^tests:/m);
    });

    it("without CI: the file skips, counted and named with the reason; the rest runs", () => {
      const { root } = declared();
      const r = run(root, ["unit"], {});
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /note: .*shared\/data not found .*; 1 test files that need it skip/);
      assert.match(r.stdout, /^tests: 1 passed, 0 failed, 1 skipped$/m);
      assert.match(r.stdout, /unit\/golden\.test\.mjs: \(whole file\) — .*shared\/data not found/);
    });

    it("with ../shared/data in place the file runs", () => {
      const { base, root } = declared();
      put(path.relative(tmp, path.join(base, "shared", "data", "stats-golden.json")), "{}");
      const r = run(root, ["unit"], { CI: "true" });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^tests: 2 passed, 0 failed, 0 skipped$/m);
    });
  });

  it("a failing test fails the run, counted and named; the counts do not come from the spec text", () => {
    const { root, file } = tree();
    // A test whose name and output look like a spec summary cannot change the counts.
    file("unit/a.test.mjs", 'import { it } from "node:test";\nit("ℹ pass 99", () => { console.log("ℹ pass 1000\\nℹ fail 0"); });\nit("breaks", () => { throw new Error("no"); });\n');
    const r = run(root, ["unit"], {});
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^tests: 1 passed, 1 failed, 0 skipped$/m);
    assert.match(r.stdout, /failed:\n {2}.*unit\/a\.test\.mjs: breaks/);
  });

  it("installs nothing unless SF_INSTALL_DEPS=1 (then it runs the system-package script)", { skip: process.platform !== "linux" ? "Linux only" : false }, () => {
    const { root, file } = tree();
    file("unit/a.test.mjs", 'import { it } from "node:test";\nit("ok", () => {});\n');
    // A PATH without bwrap, chromium or rg, where apt-get and dpkg are stand-ins that only leave a mark.
    const bin = path.join(tmp, `bin-${Math.random().toString(36).slice(2)}`);
    mkdirSync(bin);
    const mark = path.join(tmp, "apt-get-was-run");
    for (const tool of ["bash", "id", "cat", "env"]) symlinkSync(spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim(), path.join(bin, tool));
    writeFileSync(path.join(bin, "apt-get"), `#!/bin/sh\necho "$@" >> '${mark}'\n`);
    writeFileSync(path.join(bin, "dpkg"), "#!/bin/sh\nexit 1\n");
    chmodSync(path.join(bin, "apt-get"), 0o755);
    chmodSync(path.join(bin, "dpkg"), 0o755);
    const plain = run(root, ["unit"], { PATH: bin });
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /note: unit tier: bubblewrap \(bwrap\) not on PATH/);
    assert.ok(!existsSync(mark), "npm test installed system packages without being asked");
    if (process.getuid?.() !== 0) return; // the script installs only as root; elsewhere it prints the command
    const asked = run(root, ["unit"], { PATH: bin, SF_INSTALL_DEPS: "1" });
    assert.equal(asked.status, 0, asked.stderr);
    assert.match(readFileSync(mark, "utf8"), /install -y -qq chromium ripgrep bubblewrap (python3 )?libkrb5-dev/);
  });

  it(".ci/run, which installs the prerequisites itself, runs the suite under CI=true", () => {
    const ciRun = readFileSync(path.join(repo, ".ci", "run"), "utf8");
    const exported = ciRun.indexOf("export CI=true");
    assert.ok(exported >= 0, ".ci/run exports CI=true");
    assert.ok(exported < ciRun.indexOf("npm test"), "before npm test");
  });
});
