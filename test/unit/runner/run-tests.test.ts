/**
 * scripts/run-tests.mjs, the `npm test` runner: a tier whose prerequisite is missing fails the run under CI=true and
 * is named; elsewhere it skips and the summary counts and names what skipped; counts come from a node:test reporter
 * (scripts/test-counts.mjs), not from reading the spec text; nothing is installed unless SF_INSTALL_DEPS=1.
 * The runner is run for real on a tree of fixture tiers (SF_TEST_ROOT), without the build (SF_TEST_BUILD=0).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
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
let fileRequirements: (text: string) => string[];

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "sf-runner-"));
  ({ missingPrerequisites, fileRequirements } = (await import(path.join(repo, "scripts", "test-prerequisites.mjs"))) as { missingPrerequisites: Check; fileRequirements: typeof fileRequirements });
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

/**
 * The test files of a tree that reach ../shared/data without declaring it: they name the folder themselves, or use a
 * name a helper module of the tree derives from it (a path, or a function or value built on one), or import a helper
 * that reads it as it loads. A file that skips its own tests by name when the folder is missing (`skip:` with an
 * `existsSync` check) declares it that way. Helpers are followed through re-exports, to a fixed point.
 */
function undeclaredSharedData(testDir: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mts|mjs)$/.test(n)) files.push(p);
    }
  };
  walk(testDir);
  const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
  const namesShared = (t: string) => /shared\/data|"shared", "data"/.test(t);
  /** Relative imports of a file: the resolved module and the names taken from it. */
  const importsOf = (f: string) =>
    [...text.get(f)!.matchAll(/(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.[^"]+)"/g)].map((m) => ({
      names: m[1]!.split(",").map((x) => x.replace(/^\s*type\s+/, "").trim().split(/\s+as\s+/)[0]!).filter((x) => x !== ""),
      module: path.resolve(path.dirname(f), m[2]!.replace(/\.js$/, ".ts")),
      reexport: m[0].startsWith("export"),
    }));
  const tainted = new Map<string, Set<string>>(); // helper module → its names that reach the folder
  const readsOnLoad = new Set<string>(); // helper modules that read it as they load
  const helpers = files.filter((f) => !/\.test\.(ts|mts|mjs)$/.test(f));
  let changed = true;
  const add = <T,>(set: Set<T>, v: T): void => {
    if (!set.has(v)) {
      set.add(v);
      changed = true;
    }
  };
  while (changed) {
    changed = false;
    for (const f of helpers) {
      const t = text.get(f)!;
      const mine = tainted.get(f) ?? new Set<string>();
      tainted.set(f, mine);
      const known = new Set(mine);
      for (const imp of importsOf(f)) for (const n of imp.names) if (tainted.get(imp.module)?.has(n)) known.add(n);
      const mentions = (chunk: string) => namesShared(chunk) || [...known].some((n) => new RegExp(`\\b${n}\\b`).test(chunk));
      // Top-level declarations: a const is its line, a function runs to the first closing brace at column 0.
      for (const m of t.matchAll(/^(export )?(?:const|let) (\w+)[^\n]*$/gm)) {
        if (!mentions(m[0])) continue;
        add(mine, m[2]!);
        if (/readFileSync|readdirSync|gunzipSync|loadTaskSet/.test(m[0])) add(readsOnLoad, f);
      }
      for (const m of t.matchAll(/^(?:export )?(?:async )?function (\w+)[\s\S]*?^\}/gm)) if (mentions(m[0])) add(mine, m[1]!);
      for (const imp of importsOf(f)) {
        if (imp.reexport) for (const n of imp.names) if (tainted.get(imp.module)?.has(n)) add(mine, n);
        if (readsOnLoad.has(imp.module)) add(readsOnLoad, f);
      }
    }
  }
  return files
    .filter((f) => /\.test\.(ts|mts|mjs)$/.test(f))
    .filter((f) => {
      const t = text.get(f)!;
      const reaches = namesShared(t) || importsOf(f).some((i) => readsOnLoad.has(i.module) || i.names.some((n) => tainted.get(i.module)?.has(n)));
      const declared = fileRequirements(t).includes("shared-data") || (/\bskip:/.test(t) && /existsSync\(/.test(t));
      return reaches && !declared;
    });
}

describe("../shared/data is declared by every test file that reads it", () => {
  it("this repository's test files: each one that reaches the folder declares `// test-requires: shared-data`", () => {
    const self = path.join(repo, "test", "unit", "runner", "run-tests.test.ts"); // its fixtures name the folder
    assert.deepEqual(undeclaredSharedData(path.join(repo, "test")).filter((f) => f !== self).map((f) => path.relative(repo, f)), []);
  });

  it("the check finds a file that reaches it through a helper, a re-export, a function or a read on load", () => {
    const root = path.join(tmp, "declare-check");
    const file = (rel: string, t: string) => put(path.relative(tmp, path.join(root, rel)), t);
    file("support/paths.ts", 'import path from "node:path";\nexport const repoRoot = path.resolve(__dirname, "../..");\nexport const dataDir = path.resolve(repoRoot, "../shared/data");\nexport const FAKE = "x";\n');
    file("support/tasks.ts", 'import { dataDir } from "./paths.js";\nexport { dataDir, FAKE } from "./paths.js";\nexport function loadSet(n: string) {\n  return readFileSync(path.join(dataDir, n));\n}\n');
    file("support/golden.ts", 'import { repoRoot } from "./paths.js";\nexport const goldenPath = path.resolve(repoRoot, "../shared/data/g.json");\nexport const golden = JSON.parse(readFileSync(goldenPath, "utf8"));\nexport function near(a: number) {\n  return a;\n}\n');
    file("unit/uses-function.test.ts", 'import { loadSet } from "../support/tasks.js";\nloadSet("a");\n');
    file("unit/uses-reexport.test.ts", 'import { dataDir } from "../support/tasks.js";\n');
    file("unit/loads-golden.test.ts", 'import { near } from "../support/golden.js";\n');
    file("unit/names-it.test.ts", 'const d = path.resolve("..", "shared", "data");\n');
    file("unit/declared.test.ts", '// test-requires: shared-data\nimport { loadSet } from "../support/tasks.js";\n');
    file("unit/skips-itself.test.ts", 'import { dataDir } from "../support/tasks.js";\nit("x", { skip: !existsSync(dataDir) && "no data" }, () => {});\n');
    file("unit/innocent.test.ts", 'import { FAKE, repoRoot } from "../support/tasks.js";\nimport { repoRoot as r } from "../support/paths.js";\n');
    assert.deepEqual(undeclaredSharedData(root).map((f) => path.relative(root, f)).sort(), ["unit/loads-golden.test.ts", "unit/names-it.test.ts", "unit/uses-function.test.ts", "unit/uses-reexport.test.ts"]);
  });
});

describe("the integration and e2e tiers declare code-server and Chromium", () => {
  it("every test file of those tiers hands describe() a skip computed from its prerequisites (named when missing)", () => {
    const undeclared: string[] = [];
    for (const tier of ["integration", "e2e"]) {
      for (const f of readdirSync(path.join(repo, "test", tier)).filter((n) => /\.test\.(ts|mts|mjs)$/.test(n))) {
        const t = readFileSync(path.join(repo, "test", tier, f), "utf8");
        // The tier's own check (support/code-server.ts: code-server, Chromium, the built extension), or Chromium alone
        // for the webview-only files, bound to `skip` and handed to describe().
        const checks = /const skip =\s[^;]*(missingPrerequisite\(\)|existsSync\(CHROMIUM\))/.test(t);
        if (!checks || !/describe\([^\n]*\{[^\n]*skip: skip/.test(t)) undeclared.push(`${tier}/${f}`);
      }
    }
    assert.deepEqual(undeclared, []);
  });
});
