/**
 * The .vsix a user installs, tested as that user gets it: unpacked into a folder with no repository around it.
 * Uses $SF_VSIX (CI packages it once in .ci/run and every tier tests that same file), else packages one into a
 * temporary folder with scripts/package.mjs. Checks what ships (and what must not), that the bundles are minified
 * but keep their class names, that every README link resolves inside the package, and runs the packaged CLI against
 * the scripted server so the shipped sandbox worker and Pyodide runtime really grade.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { relativeLinks } from "../../../scripts/readme-links.mjs";
import { allowed, filesUnder as manifestFiles, readManifest } from "../../../scripts/vscodeignore.mjs";
import type { PythonFunctionTask } from "../../../src/core/tasks/schema.js";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { bySubstring, pythonAnswer, taskPlanScript, type TaskPlan } from "../../support/scripts.js";
import { spawnCollect } from "../cli/harness.js";
import { MINIFIED_NAME } from "../../support/minified.js";
import { closedPort } from "../../support/ports.js";

const repoRoot = path.resolve(__dirname, "../../..");


function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p, base) : [path.relative(base, p).split(path.sep).join("/")];
  });
}

describe("the packaged .vsix, unpacked with no repository around it", { timeout: 300_000 }, () => {
  let tmp: string;
  let ext: string;
  let files: string[];
  let vsix: string;
  /** What `npm run package` printed (empty under SF_VSIX: the .vsix was packaged elsewhere). */
  let printed = "";

  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "sf-vsix-"));
    vsix = process.env.SF_VSIX ? path.resolve(process.env.SF_VSIX) : path.join(tmp, "skill-following.vsix");
    if (!process.env.SF_VSIX) {
      const r = spawnSync(process.execPath, [path.join(repoRoot, "scripts", "package.mjs"), "--out", vsix, "--staging", path.join(tmp, "staging")], { cwd: repoRoot, encoding: "utf8", timeout: 240_000 });
      assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}\n${r.stderr}`);
      printed = r.stdout;
    }
    assert.ok(existsSync(vsix), `no .vsix at ${vsix}`);
    const unpacked = path.join(tmp, "unpacked");
    const u = spawnSync("unzip", ["-q", vsix, "-d", unpacked], { encoding: "utf8" });
    assert.equal(u.status, 0, u.stderr);
    ext = path.join(unpacked, "extension");
    files = filesUnder(ext);
  });

  after(() => {
    if (tmp && !process.env.SF_KEEP_TEST_DIRS) rmSync(tmp, { recursive: true, force: true });
  });

  it("ships the bundles, the Pyodide runtime, the media, the built-in task sets and every example skill", () => {
    for (const f of [
      "package.json", "readme.md", "dist/extension.js", "dist/cli.js", "dist/sandbox-worker.js", "dist/engine-host.js", "dist/webview/main.js",
      "dist/pyodide/pyodide.js", "dist/pyodide/pyodide.asm.mjs", "dist/pyodide/pyodide.asm.wasm", "dist/pyodide/python_stdlib.zip", "dist/pyodide/pyodide-lock.json",
      "media/report.css", "media/icon.png", "samples/math-word.jsonl", "samples/python-basics.jsonl",
      // The JSON Schema package.json contributes for **/evals/evals.json (written by esbuild.mjs).
      "dist/schemas/evals.schema.json",
    ]) {
      assert.ok(files.includes(f), `the .vsix lacks ${f}`);
    }
    const exampleSkills = readdirSync(path.join(repoRoot, "skills")).filter((d) => existsSync(path.join(repoRoot, "skills", d, "SKILL.md")));
    assert.ok(exampleSkills.length >= 2);
    for (const s of exampleSkills) assert.ok(files.includes(`skills/${s}/SKILL.md`), `the .vsix lacks the example skill ${s}`);
    const unwanted = files.filter((f) => /^(src|test|node_modules|scripts|bench|out|\.vscode-test)\/|\.map$|\.ts$|^samples\/tools\//.test(f));
    assert.deepEqual(unwanted, []);
  });

  it("npm run package prints one summary, and its figures are the .vsix's own file count and size", (t) => {
    if (process.env.SF_VSIX) return t.skip("SF_VSIX: packaged elsewhere, nothing printed here");
    const summaries = printed.split("\n").filter((l) => /\d+ files, [\d.]+ [KM]i?B/.test(l));
    assert.equal(summaries.length, 1, `one summary line, not:\n${summaries.join("\n")}`);
    const m = /^package: .+ \((\d+) files, ([\d.]+) MB, (\d+) bytes\)$/.exec(summaries[0]!);
    assert.ok(m, summaries[0]);
    const entries = spawnSync("unzip", ["-Z1", vsix], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    const bytes = statSync(vsix).size;
    assert.equal(Number(m[1]), entries.length, `printed ${m[1]} files; the .vsix holds ${entries.length}`);
    assert.equal(Number(m[3]), bytes);
    assert.equal(m[2], (bytes / 1e6).toFixed(2));
  });

  it("holds exactly what the top-level .vscodeignore allows (an allow-list, read with vsce's rules)", () => {
    const text = readFileSync(path.join(repoRoot, ".vscodeignore"), "utf8");
    const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
    assert.equal(lines[0], "**", "the manifest starts by leaving everything out");
    assert.deepEqual(lines.slice(1).filter((l) => !l.startsWith("!")), [], "every other line lets a path in");
    const manifest = readManifest(repoRoot);
    // vsce renames these two on the way into the package.
    const source = (f: string) => (f === "readme.md" ? "README.md" : f === "LICENSE.txt" ? "LICENSE" : f);
    const shipped = files.map(source);
    assert.deepEqual(shipped.filter((f) => !allowed(f, manifest)), [], "files the manifest does not allow");
    const fromRepo = manifestFiles(repoRoot, new Set(["node_modules", ".git", "dist", "out", ".vscode-test", ".skill-following", "test-results"])).filter((f) => allowed(f, manifest));
    assert.deepEqual(fromRepo.filter((f) => !shipped.includes(f)), [], "allowed repository files missing from the package");
    const staging = path.join(tmp, "staging");
    if (!process.env.SF_VSIX) {
      const staged = manifestFiles(staging).filter((f) => f !== ".vscodeignore");
      assert.deepEqual([...shipped].sort(), staged, "the package is the staged folder, file for file");
      assert.ok(staged.some((f) => f.startsWith("dist/pyodide/")) && !staged.some((f) => f.endsWith(".map")));
    }
  });

  it("carries no native code, no model and no node-llama-cpp: local models load lazily where the package is installed", () => {
    assert.deepEqual(files.filter((f) => /\.node$|\.gguf$|llama|\.so$|\.dll$|\.dylib$/i.test(f)), []);
    for (const bundle of ["extension.js", "cli.js"]) {
      const code = readFileSync(path.join(ext, "dist", bundle), "utf8");
      assert.match(code, /import\("node-llama-cpp"\)/, `${bundle} imports node-llama-cpp lazily`);
    }
  });

  it("has a manifest a gallery accepts: icon, categories, keywords, no placeholder repository, no build scripts", () => {
    const manifest = JSON.parse(readFileSync(path.join(ext, "package.json"), "utf8")) as Record<string, unknown>;
    assert.ok(files.includes(String(manifest.icon)), `icon ${String(manifest.icon)} is not in the package`);
    assert.ok(Array.isArray(manifest.categories) && manifest.categories.length > 0);
    assert.ok(Array.isArray(manifest.keywords) && manifest.keywords.length >= 3);
    assert.ok(!JSON.stringify(manifest.repository ?? "").includes("example.invalid"), "placeholder repository URL");
    assert.equal(manifest.scripts, undefined);
    assert.equal(manifest.devDependencies, undefined);
  });

  it("every image and document the README links is inside the package", () => {
    const readme = readFileSync(path.join(ext, "readme.md"), "utf8");
    const links = relativeLinks(readme);
    assert.ok(links.some((l) => l.endsWith(".png")), "the README shows pictures");
    const missing = links.filter((l) => !existsSync(path.join(ext, l)));
    assert.deepEqual(missing, []);
  });

  it("its bundles are minified and keep class names (esbuild keepNames)", () => {
    const bundle = readFileSync(path.join(ext, "dist", "extension.js"), "utf8");
    const cli = readFileSync(path.join(ext, "dist", "cli.js"), "utf8");
    // Template literals keep their newlines; a readable build averages ~40 characters a line, a minified one >500.
    assert.ok(bundle.length / bundle.split("\n").length > 500, "the extension bundle is minified");
    for (const name of ["DownloadError", "ModelRequestError", "InputError"]) {
      assert.ok(bundle.includes(`"${name}"`), `${name} keeps its name in dist/extension.js`);
      assert.ok(cli.includes(`"${name}"`), `${name} keeps its name in dist/cli.js`);
    }
  });

  describe("its CLI", () => {
    let server: ScriptedServer;
    let ws: string;
    const tasks = readFileSync(path.join(repoRoot, "samples", "python-basics.jsonl"), "utf8").split("\n").filter(Boolean).slice(0, 8).map((l) => JSON.parse(l) as PythonFunctionTask);
    const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", HOME: ws, SKILL_FOLLOWING_TASKS_CACHE: path.join(ws, "task-sets"), ...extra });

    before(async () => {
      const table: Record<string, TaskPlan> = {};
      tasks.forEach((t, i) => {
        const right = pythonAnswer(t.canonicalSolution);
        const wrong = pythonAnswer(`def ${t.entryPoint}(*args, **kwargs):\n    return None`);
        // Task 0 is harmed, task 1 rescued; the rest pass both ways, all graded by the packaged sandbox.
        table[t.prompt.trim()] = i === 0 ? { disabled: right, enabled: [{ answer: wrong }] } : i === 1 ? { disabled: wrong, enabled: [{ answer: right }] } : { disabled: right, enabled: [{ answer: right }] };
      });
      server = await startScriptedServer({ script: taskPlanScript(bySubstring(table)) });
      ws = path.join(tmp, "ws");
      mkdirSync(ws, { recursive: true });
    });
    after(async () => {
      await server?.close();
    });

    it("evaluates 8 built-in python tasks with the packaged sandbox and Pyodide", async () => {
      const r = await spawnCollect(
        process.execPath,
        [path.join(ext, "dist", "cli.js"), "run", "--skills", path.join(ext, "skills"), "--tasks", path.join(ext, "samples", "python-basics.jsonl"), "--limit", "8", "--model", "scripted-model", "--base-url", server.url, "--out", "run.jsonl"],
        { cwd: ws, env: env({ OPENAI_API_KEY: "sk-test" }) },
      );
      assert.equal(r.code, 0, r.stderr);
      const rep = await spawnCollect(process.execPath, [path.join(ext, "dist", "cli.js"), "report", "run.jsonl", "--format", "json"], { cwd: ws, env: env() });
      assert.equal(rep.code, 0, rep.stderr);
      const e = (JSON.parse(rep.stdout) as { evaluations: { overall: { n: number; harmed: number; rescued: number; bothPass: number }; taskRows: { taskId: string; enabledReason: string }[] }[] }).evaluations[0]!;
      assert.deepEqual({ n: e.overall.n, harmed: e.overall.harmed, rescued: e.overall.rescued, bothPass: e.overall.bothPass }, { n: 8, harmed: 1, rescued: 1, bothPass: 6 });
      const harmed = e.taskRows.find((t) => t.taskId === tasks[0]!.id);
      assert.match(harmed?.enabledReason ?? "", /expected/, "the verdict comes from running the answer against the task's inputs");
    });

    it("with nothing configured, refuses the local default it cannot run, before downloading anything", async () => {
      const port = await closedPort();
      const models = path.join(ws, "models");
      const r = await spawnCollect(process.execPath, [path.join(ext, "dist", "cli.js"), "run", "--skills", path.join(ext, "skills"), "--tasks", path.join(ext, "samples", "python-basics.jsonl")], {
        cwd: ws,
        env: env({ OLLAMA_HOST: `http://127.0.0.1:${port}`, SKILL_FOLLOWING_MODELS_DIR: models, SKILL_FOLLOWING_MODELS_MIRROR: `http://127.0.0.1:${port}` }),
      });
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /The local default model cannot run in this installation \(Local models need the node-llama-cpp package/);
      assert.ok(!existsSync(models) || readdirSync(models).length === 0, "nothing was downloaded");
    });

    it("prints class names, never minified ones, in its verbose log (failed download, dead endpoint)", async () => {
      const port = await closedPort();
      const download = await spawnCollect(process.execPath, [path.join(ext, "dist", "cli.js"), "tasks", "download", "gsm8k", "--mirror", `http://127.0.0.1:${port}`, "--verbose"], { cwd: ws, env: env() });
      const dead = await spawnCollect(
        process.execPath,
        [path.join(ext, "dist", "cli.js"), "run", "--skills", path.join(ext, "skills"), "--tasks", path.join(ext, "samples", "math-word.jsonl"), "--limit", "2", "--model", "m", "--base-url", `http://127.0.0.1:${port}/v1`, "--verbose"],
        { cwd: ws, env: env() },
      );
      assert.notEqual(download.code, 0);
      assert.notEqual(dead.code, 0);
      assert.match(download.stderr, /DownloadError: /, "the verbose log names the error's class");
      const lines = `${download.stderr}\n${dead.stderr}`.split("\n");
      const minified = lines.filter((l) => MINIFIED_NAME.test(l.replace(/^(debug|trace|warning): /, "")) && !/^\s*at /.test(l));
      assert.deepEqual(minified, []);
    });
  });
});
