/**
 * `lint` speed (issue 27): the target is a real corpus of 879 SKILL.md files linted in under 2 s. That corpus
 * is not in this repository, so this benchmark generates one of the same size from the shipped example skills
 * (skills/): each copy renamed to its folder, bodies repeated 1–4 times for a spread of lengths, a realistic share of
 * problems (every 10th description holds `->`, every 15th an unknown field, every 20th a bad name, every 25th broken
 * YAML), and the evals/evals.json and reference files of the skills that have them. Measured: the in-process lint
 * (scan, parse, quick fixes, evals checks; median of 3 after a warm-up) and the built CLI's wall time for
 * `lint <corpus> --format sarif` (node start-up and SARIF output included).
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

export async function benchLint(count = 879): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sf-bench-lint-"));
  try {
    const { evals } = writeLintCorpus(dir, count);
    const corpus = `${count} generated SKILL.md + ${evals} evals.json`;
    await lintSkills([path.join(dir, "skills")]);
    const times: number[] = [];
    let findings = 0;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      findings = (await lintSkills([path.join(dir, "skills")])).findings.length;
      times.push(performance.now() - t0);
    }
    const inProcess = [...times].sort((a, b) => a - b)[1]!;
    const rows: BenchRow[] = [{ group: "lint", metric: `in-process lint, ${corpus}`, value: Math.round(inProcess), unit: "ms", reference: "< 2000 ms", note: `${findings} findings; median of 3` }];
    const cli = path.join(repoRoot, "dist", "cli.js");
    if (!existsSync(cli)) return [...rows, { group: "lint", metric: "CLI lint --format sarif", value: "not run", note: "dist/cli.js is not built" }];
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, "lint", "skills", "--format", "sarif", "--out", "lint.sarif", "--quiet"], { cwd: dir, encoding: "utf8" });
    const wall = performance.now() - t0;
    const ok = r.status === 0 || r.status === 1;
    rows.push({ group: "lint", metric: `CLI lint --format sarif, ${corpus}`, value: ok ? Math.round(wall) : "failed", unit: ok ? "ms" : undefined, reference: "< 2000 ms", note: ok ? `wall time with node start-up; exit ${r.status}` : r.stderr.split("\n")[0] });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
