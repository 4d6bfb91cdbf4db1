/**
 * `lint` speed (issue 27): the target is a real corpus of 879 SKILL.md files linted in under 2 s. That corpus
 * is not in this repository, so this benchmark generates one of the same size from the shipped example skills
 * (skills/): each copy renamed to its folder, bodies repeated 1–4 times for a spread of lengths, a realistic share of
 * problems (every 10th description holds `->`, every 15th an unknown field, every 20th a bad name, every 25th broken
 * YAML), and the evals/evals.json and reference files of the skills that have them. Measured: the in-process lint
 * (scan, parse, quick fixes, evals checks; median of 3 after a warm-up) and the built CLI's time for
 * `lint <corpus> --format sarif` (node start-up and SARIF output included), each as CPU time beside the wall time.
 * `SF_LINT_CORPUS=<folder>` adds a real corpus: every folder under it holding a SKILL.md, linted as it is.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { lintSkills } from "../src/cli/lint.js";
import type { BenchRow } from "./types.js";

const repoRoot = path.resolve(__dirname, "..");

/** Writes `count` skills generated from the shipped ones into `<dir>/skills`; returns how many evals.json files it wrote. */
export function writeLintCorpus(dir: string, count: number): { evals: number } {
  const shipped = readdirSync(path.join(repoRoot, "skills")).filter((d) => existsSync(path.join(repoRoot, "skills", d, "SKILL.md")));
  let evals = 0;
  for (let i = 0; i < count; i++) {
    const base = shipped[i % shipped.length]!;
    const from = path.join(repoRoot, "skills", base);
    const name = i % 20 === 7 ? `${base}_V${i}` : `${base}-v${i}`;
    const to = path.join(dir, "skills", i % 20 === 7 ? `${base}-v${i}` : name);
    mkdirSync(to, { recursive: true });
    for (const ent of readdirSync(from, { withFileTypes: true })) if (ent.isDirectory()) cpSync(path.join(from, ent.name), path.join(to, ent.name), { recursive: true });
    if (existsSync(path.join(to, "evals", "evals.json"))) {
      const json = JSON.parse(readFileSync(path.join(to, "evals", "evals.json"), "utf8")) as { skill_name?: string };
      if (json.skill_name !== undefined) json.skill_name = name;
      writeFileSync(path.join(to, "evals", "evals.json"), JSON.stringify(json, null, 2));
      evals++;
    }
    const text = readFileSync(path.join(from, "SKILL.md"), "utf8");
    const close = text.indexOf("\n---", 4);
    let front = text.slice(0, close).replace(/^name:.*$/m, `name: ${name}`);
    const body = text.slice(close);
    if (i % 10 === 3) front = front.replace(/^description: (.*)$/m, "description: $1 Input -> output.");
    if (i % 15 === 4) front += "\nversion: 1.0";
    if (i % 25 === 9) front = front.replace(/^description: (.*)$/m, "description: Use when: $1");
    const extra = body.replace(/^\n---\n/, "\n").repeat(i % 4);
    writeFileSync(path.join(to, "SKILL.md"), `${front}${body}${extra}`);
  }
  return { evals };
}

/** Every folder under `root` that holds a SKILL.md (a real corpus: each publisher's repository as it is). */
export function skillDirsUnder(root: string): string[] {
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => path.basename(f) === "SKILL.md")
    .map((f) => path.join(root, path.dirname(f)))
    .sort();
}

/**
 * Lints `paths` in process (median of 3 after a warm-up; wall and CPU time) and with the built CLI (`lint --format
 * sarif`, node start-up included; wall and the child's user + system CPU time from bash's `time`). CPU time is what
 * to compare on a shared machine: wall time grows with the load.
 */
async function measure(label: string, cwd: string, paths: string[]): Promise<BenchRow[]> {
  await lintSkills(paths);
  const runs: Array<{ wall: number; cpu: number }> = [];
  let result = { findings: [] as unknown[], files: 0, skills: 0 };
  for (let k = 0; k < 3; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    result = await lintSkills(paths);
    const c = process.cpuUsage(c0);
    runs.push({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 });
  }
  const median = [...runs].sort((a, b) => a.cpu - b.cpu)[1]!;
  const corpus = `${label} (${result.files} files, ${result.skills} skills)`;
  const rows: BenchRow[] = [
    { group: "lint", metric: `in-process lint, ${corpus}`, value: Math.round(median.cpu), unit: "ms CPU", reference: "< 2000 ms", note: `wall ${Math.round(median.wall)} ms; ${result.findings.length} findings; median of 3` },
  ];
  const cli = path.join(repoRoot, "dist", "cli.js");
  if (!existsSync(cli)) return [...rows, { group: "lint", metric: `CLI lint --format sarif, ${label}`, value: "not run", note: "dist/cli.js is not built" }];
  const sarif = path.join(mkdtempSync(path.join(os.tmpdir(), "sf-bench-lint-out-")), "lint.sarif");
  const script = `TIMEFORMAT="%R %U %S"; { time "$0" "$@" >/dev/null 2>&1; } 2>&1; echo "exit $?"`;
  const r = spawnSync("bash", ["-c", script, process.execPath, cli, "lint", ...paths, "--format", "sarif", "--out", sarif, "--quiet"], { cwd, encoding: "utf8" });
  const m = /^([\d.]+) ([\d.]+) ([\d.]+)\s*\nexit (\d+)/m.exec(r.stdout);
  const ok = m !== null && (m[4] === "0" || m[4] === "1");
  rows.push(
    ok
      ? { group: "lint", metric: `CLI lint --format sarif, ${corpus}`, value: Math.round((Number(m[2]) + Number(m[3])) * 1000), unit: "ms CPU", reference: "< 2000 ms", note: `wall ${Math.round(Number(m[1]) * 1000)} ms with node start-up; exit ${m[4]}` }
      : { group: "lint", metric: `CLI lint --format sarif, ${label}`, value: "failed", note: (r.stdout + r.stderr).split("\n")[0] },
  );
  rmSync(path.dirname(sarif), { recursive: true, force: true });
  return rows;
}

/**
 * The generated corpus of `count` skills, and, when SF_LINT_CORPUS names a folder, a real one: every folder under
 * it that holds a SKILL.md (e.g. publishers' skill repositories checked out side by side), linted as it is.
 */
export async function benchLint(count = 879): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-lint-"));
  const rows: BenchRow[] = [];
  try {
    const { evals } = writeLintCorpus(dir, count);
    rows.push(...(await measure(`${count} generated SKILL.md + ${evals} evals.json`, dir, [path.join(dir, "skills")])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const real = process.env.SF_LINT_CORPUS;
  if (real) {
    const root = path.resolve(real);
    const dirs = existsSync(root) ? skillDirsUnder(root) : [];
    if (dirs.length === 0) rows.push({ group: "lint", metric: `real corpus ${root}`, value: "not run", note: "SF_LINT_CORPUS holds no SKILL.md" });
    else rows.push(...(await measure(`real corpus: SF_LINT_CORPUS, ${new Set(dirs.map((d) => path.relative(root, d).split(path.sep)[0])).size} top-level folders`, root, dirs)));
  }
  return rows;
}
