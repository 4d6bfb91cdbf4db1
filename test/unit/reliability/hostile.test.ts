/**
 * Reliability: hostile input. Malformed SKILL.md files (bad YAML, alias bombs, huge, binary, UTF-16, Latin-1,
 * names with path separators or `..`) and task files (broken lines, wrong types, a 100 MB line, a gzip bomb,
 * binary, not a task set), plus broken run files for `report`. The CLI must answer each with located messages
 * (file:line), exit 0 or 2 as appropriate, never show a stack trace, and write nothing outside its output path.
 * A SKILL.md that is a FIFO or a link to /dev/zero must not hang the scan either.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-server.js";
import { boxedAnswer, taskPlanScript } from "../../support/scripts.js";
import { changedOutside, filesUnder, repoRoot, runCli, snapshot, STACK_TRACE, tempDir } from "./cli-process.js";

const KEY = "sk-test-hostile-0000";
const fixtures = path.join(repoRoot, "test/fixtures/hostile");
const escapeToken = "sf-escape-";

const VALID_SKILL = (name: string, extra = "") => `---\nname: ${name}\ndescription: A valid skill named ${name}${extra}.\n---\n# ${name}\n\nBody text.\n`;

/** Writes the generated hostile skills (too big or too binary to commit) into `dir`. */
function generateSkills(dir: string): void {
  const put = (name: string, bytes: Buffer | string) => {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, "SKILL.md"), bytes);
  };
  put("huge", VALID_SKILL("huge") + "x".repeat(80).concat("\n").repeat(40_000)); // ~3.2 MB
  put("binary", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
  put("utf16", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(VALID_SKILL("utf16"), "utf16le")]));
  put("latin1", Buffer.from(VALID_SKILL("latin1", " (caf\u00e9 cr\u00e8me)"), "latin1"));
  put("empty", "");
  put("crlf-ok", VALID_SKILL("crlf-ok").replace(/\n/g, "\r\n"));
  if (process.platform === "linux") {
    // A SKILL.md that never ends (a link to /dev/zero) and one whose open() blocks forever (a FIFO).
    mkdirSync(path.join(dir, "dev-zero"), { recursive: true });
    symlinkSync("/dev/zero", path.join(dir, "dev-zero", "SKILL.md"));
    mkdirSync(path.join(dir, "fifo"), { recursive: true });
    execFileSync("mkfifo", [path.join(dir, "fifo", "SKILL.md")]);
  }
}

/** A gzip "bomb": the same 1 MB-of-zeros member repeated (multi-member gzip is valid), ~1 GB when inflated. */
function gzipBomb(file: string): void {
  const member = gzipSync(Buffer.alloc(1 << 20), { level: 9 });
  const fd = openSync(file, "w");
  try {
    for (let i = 0; i < 1024; i++) writeSync(fd, member);
  } finally {
    closeSync(fd);
  }
}

/**
 * Tiny gzip files that inflate to over 100 million lines: blank lines, or one valid task followed by `{}` lines.
 * Each line costs a pass through the loader, so without a cap these keep the CPU busy for minutes.
 */
function lineBombs(dir: string): void {
  const blank = gzipSync(Buffer.alloc(1 << 20, 0x0a), { level: 9 });
  const objects = gzipSync(Buffer.from("{}\n".repeat(350_000)), { level: 9 });
  const head = gzipSync(Buffer.from(`${JSON.stringify({ id: "ok/1", kind: "math-answer", prompt: "What is 2 + 2?", answer: "4" })}\n`));
  for (const [name, first, member] of [["blank-lines-bomb.jsonl.gz", Buffer.alloc(0), blank], ["broken-lines-bomb.jsonl.gz", head, objects]] as const) {
    const fd = openSync(path.join(dir, name), "w");
    try {
      writeSync(fd, first);
      for (let i = 0; i < 300; i++) writeSync(fd, member);
    } finally {
      closeSync(fd);
    }
  }
}

/** A valid task, then one 100 MB line, then another valid task. Written in pieces, never held in memory at once. */
function hundredMbLine(file: string): void {
  const fd = openSync(file, "w");
  try {
    writeSync(fd, `${JSON.stringify({ id: "big/1", kind: "math-answer", prompt: "What is 2 + 2?", answer: "4" })}\n`);
    writeSync(fd, '{"id": "big/2", "kind": "math-answer", "answer": "4", "prompt": "');
    const chunk = Buffer.alloc(1 << 20, 0x61);
    for (let i = 0; i < 100; i++) writeSync(fd, chunk);
    writeSync(fd, '"}\n');
    writeSync(fd, `${JSON.stringify({ id: "big/3", kind: "math-answer", prompt: "What is 3 + 4?", answer: "7" })}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Top-level entries of the system temp folder that carry the escape token (a traversal that got out). */
function escapedFiles(ws: string): string[] {
  const inTmp = readdirSync(os.tmpdir()).filter((n) => n.includes(escapeToken)).map((n) => path.join(os.tmpdir(), n));
  const inWs = filesUnder(ws).filter((f) => path.basename(f).includes(escapeToken) || path.dirname(f).includes(escapeToken));
  return [...inTmp, ...inWs];
}

describe("reliability: hostile skills, task files and run files", () => {
  let ws: string;
  let server: ScriptedServer;
  let out: string;

  before(async () => {
    ws = tempDir("sf-rel-hostile-");
    cpSync(path.join(fixtures, "skills"), path.join(ws, "skills"), { recursive: true });
    generateSkills(path.join(ws, "skills"));
    cpSync(path.join(fixtures, "tasks"), path.join(ws, "tasks"), { recursive: true });
    hundredMbLine(path.join(ws, "tasks/hundred-mb-line.jsonl"));
    gzipBomb(path.join(ws, "tasks/bomb.jsonl.gz"));
    lineBombs(path.join(ws, "tasks"));
    writeFileSync(path.join(ws, "tasks/binary.jsonl"), Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 131) % 256)));
    writeFileSync(
      path.join(ws, "tasks/utf16.jsonl"),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${JSON.stringify({ id: "u/1", kind: "math-answer", prompt: "What is 1 + 1?", answer: "2" })}\n`, "utf16le")]),
    );
    mkdirSync(path.join(ws, "only-bad"), { recursive: true });
    for (const name of ["bad-yaml", "binary", "traversal-name", "slash-name"]) cpSync(path.join(ws, "skills", name), path.join(ws, "only-bad", name), { recursive: true });
    out = path.join(ws, "out");
    // Every task: the enabled run loads good-skill, then both conditions answer 4.
    server = await startScriptedServer({ script: taskPlanScript(() => ({ disabled: boxedAnswer("4"), enabled: [{ loadSkill: "good-skill" }, { answer: boxedAnswer("4") }] })) });
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  /** Runs the CLI and checks the invariants every hostile case shares. */
  async function hostile(args: string[], expectedCode: number) {
    const before = snapshot(ws);
    const r = await runCli(args, { cwd: ws, apiKey: KEY, baseUrl: server.url, timeoutMs: 60_000 });
    assert.notEqual(r.signal, "SIGKILL", `the CLI hung (killed after 60 s)\n${r.stderr.slice(0, 2000)}`);
    const shown = `exit ${r.code}\n--- stderr ---\n${r.stderr.slice(0, 4000)}`;
    assert.equal(r.code, expectedCode, shown);
    assert.doesNotMatch(r.stderr, STACK_TRACE, `no stack trace\n${shown}`);
    assert.doesNotMatch(r.stdout, STACK_TRACE, "no stack trace on stdout");
    assert.deepEqual(changedOutside(ws, before, [out]), [], "nothing written outside the output folder");
    assert.deepEqual(escapedFiles(ws), [], "no file named after a hostile skill name");
    return r;
  }
  const runArgs = (skills: string, tasks: string, name: string) => ["run", "--skills", skills, "--tasks", tasks, "--model", "scripted-model", "--concurrency", "2", "--out", path.join(out, `${name}.jsonl`), "--cache-dir", path.join(out, "cache")];
  const locatedIn = (stderr: string, file: string, what: string) => {
    const re = new RegExp(`${escapeRe(file)}:\\d+`);
    assert.match(stderr, re, `${what}: a located message for ${file}`);
  };

  it("a library of malformed skills: each bad one is skipped with file:line, the good ones run (exit 0)", async () => {
    const r = await hostile(runArgs("skills", "tasks/broken-lines.jsonl", "skills"), 0);
    const skillFile = (name: string) => path.join(ws, "skills", name, "SKILL.md");
    const expected: Record<string, string> = {
      "bad-yaml": "yaml-syntax",
      "no-frontmatter": "frontmatter-missing",
      "unclosed-frontmatter": "frontmatter-unterminated",
      "traversal-name": "name-unsafe",
      "slash-name": "name-unsafe",
      "alias-bomb": "description-missing",
      "no-description": "description-missing",
      "tab-indented": "yaml-syntax",
      huge: "file-too-large",
      binary: "binary-file",
      utf16: "binary-file",
      latin1: "encoding",
      empty: "frontmatter-missing",
      "name-mismatch": "name-folder-mismatch",
      ...(process.platform === "linux" ? { "dev-zero": "read-error", fifo: "read-error" } : {}),
    };
    for (const [bad, code] of Object.entries(expected)) {
      assert.match(r.stderr, new RegExp(`${escapeRe(skillFile(bad))}:\\d+:\\d+: .*\\[${code}\\]`), `${bad}: located ${code} finding`);
    }
    assert.doesNotMatch(r.stderr, new RegExp(escapeRe(skillFile("crlf-ok"))), "a CRLF skill loads without findings");
    assert.match(r.stdout, /good-skill/, "the report shows the usable skill that was loaded");
  });

  it("a task file with broken lines and wrong types: each bad line located, the rest runs (exit 0)", async () => {
    const r = await hostile(runArgs("skills/good-skill", "tasks/broken-lines.jsonl", "broken-lines"), 0);
    const file = path.join(ws, "tasks/broken-lines.jsonl");
    for (const line of [2, 3, 4, 5, 6, 7, 8, 10]) assert.match(r.stderr, new RegExp(`${escapeRe(file)}:${line}: `), `line ${line} is reported`);
    assert.doesNotMatch(r.stderr, new RegExp(`${escapeRe(file)}:(1|11): `), "the good lines load silently");
  });

  it("task ids that look like paths, NUL bytes, markup or 5,000 characters: run and report, nothing written elsewhere", async () => {
    const r = await hostile(runArgs("skills/good-skill", "tasks/hostile-ids.jsonl", "hostile-ids"), 0);
    assert.match(r.stdout, /6 planned, 6 complete/);
    for (const format of ["json", "html", "junit", "markdown", "csv"]) {
      await hostile(["report", path.join(out, "hostile-ids.jsonl"), "--format", format, "--out", path.join(out, `hostile-ids.${format}`)], 0);
    }
    const html = readFileSync(path.join(out, "hostile-ids.html"), "utf8");
    assert.ok(!html.includes("<script>alert(1)</script>") && !html.includes("<img src=x"), "markup from task ids and prompts is escaped in the HTML report");
  });

  it("only malformed skills: refused with exit 2 and located findings", async () => {
    const r = await hostile(runArgs("only-bad", "tasks/broken-lines.jsonl", "only-bad"), 2);
    assert.match(r.stderr, /no usable skills/);
    locatedIn(r.stderr, path.join(ws, "only-bad/bad-yaml/SKILL.md"), "bad-yaml");
  });

  it("a 100 MB line is skipped with its line number; the other tasks run (exit 0)", async () => {
    const r = await hostile(runArgs("skills/good-skill", "tasks/hundred-mb-line.jsonl", "hundred-mb"), 0);
    assert.match(r.stderr, new RegExp(`${escapeRe(path.join(ws, "tasks/hundred-mb-line.jsonl"))}:2: `));
  });

  for (const [name, file] of [
    ["a gzip bomb", "tasks/bomb.jsonl.gz"],
    ["a gzip bomb of blank lines", "tasks/blank-lines-bomb.jsonl.gz"],
    ["a gzip bomb of broken lines after a valid one", "tasks/broken-lines-bomb.jsonl.gz"],
    ["a binary file", "tasks/binary.jsonl"],
    ["a UTF-16 file", "tasks/utf16.jsonl"],
    ["a JSONL file that is not a task set", "tasks/not-a-task-set.jsonl"],
  ] as const) {
    it(`${name} as the task set: refused with exit 2 and a located message`, async () => {
      const r = await hostile(runArgs("skills/good-skill", file, `refused-${path.basename(file)}`), 2);
      locatedIn(r.stderr, path.join(ws, file), name);
    });
  }

  it("an --out that cannot be created (its parent is a file): exit 2 with the path, for run and report", async () => {
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, "not-a-folder"), "");
    const r = await hostile(["run", "--skills", "skills/good-skill", "--tasks", "tasks/broken-lines.jsonl", "--model", "scripted-model", "--cache-dir", path.join(out, "cache"), "--out", path.join(out, "not-a-folder", "run.jsonl")], 2);
    assert.match(r.stderr, /not-a-folder\/run\.jsonl: cannot create the run file/);
    const rep = await hostile(["report", path.join(out, "broken-lines.jsonl"), "--format", "html", "--out", path.join(out, "not-a-folder", "report.html")], 2);
    assert.match(rep.stderr, /not-a-folder\/report\.html: cannot write the report/);
  });

  it("a missing task file and a folder as the task file: exit 2, no stack trace", async () => {
    await hostile(runArgs("skills/good-skill", "tasks/does-not-exist.jsonl", "missing"), 2);
    await hostile(runArgs("skills/good-skill", "tasks", "folder"), 2);
  });

  it("report on hostile run files: garbage is refused (exit 2), a torn last line is a warning (exit 0)", async () => {
    mkdirSync(out, { recursive: true });
    const garbage = path.join(out, "garbage.jsonl");
    writeFileSync(garbage, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 17) % 256)));
    const g = await hostile(["report", garbage, "--format", "json"], 2);
    locatedIn(g.stderr, garbage, "garbage run file");

    const good = path.join(out, "skills.jsonl");
    assert.ok(existsSync(good), "the first case wrote a run file");
    const torn = path.join(out, "torn.jsonl");
    cpSync(good, torn);
    writeFileSync(torn, '{"type": "run", "key": "cut-off-mid-wr', { flag: "a" });
    const folder = path.join(out, "a-folder.jsonl");
    mkdirSync(folder, { recursive: true });
    const f = await hostile(["report", folder], 2);
    assert.match(f.stderr, /a-folder\.jsonl: not a run file/);
    const resumeFolder = await hostile([...runArgs("skills/good-skill", "tasks/broken-lines.jsonl", "unused"), "--out", folder, "--resume"], 2);
    assert.match(resumeFolder.stderr, /a-folder\.jsonl: not a run file/);

    // A header, then two million junk lines: the first bad lines are listed, the rest counted (it took 41 s and
    // 2.9 GB for 5M lines when every one was kept and printed).
    const junk = path.join(out, "junk.jsonl");
    writeFileSync(junk, `${readFileSync(good, "utf8").split("\n")[0]}\n${"x\n".repeat(2_000_000)}`);
    const j = await hostile(["report", junk, "--format", "json"], 0);
    assert.ok(j.stderr.split("\n").length < 200, `a bounded number of warnings (${j.stderr.split("\n").length} lines)`);
    assert.match(j.stderr, /more bad lines not listed/);

    const t = await hostile(["report", torn, "--format", "json"], 0);
    assert.match(t.stderr, new RegExp(`${escapeRe(torn)}:\\d+: .*torn`));
    assert.ok(JSON.parse(t.stdout), "the report is still valid JSON");
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
