/**
 * Report scale (DESIGN §5): a synthetic 10,000-task × 20-skill paired run. Report-model build time and JSON
 * size in-process; then the CLI's wall time and peak RSS for `report <run file> --format json` in a child
 * (GNU time -v when present, else the child's own resourceUsage via a wrapper).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildReport, renderJson } from "../src/core/report/index.js";
import { syntheticRun, writeRunFile } from "./synthetic-run.js";
import type { BenchRow } from "./types.js";

const repoRoot = path.resolve(__dirname, "..");

export async function benchReportScale(tasks = 10_000, skills = 20): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const label = `${tasks} tasks × ${skills} skills`;
  const run = syntheticRun({ tasks, skills });
  // Warm once (JIT), then time the median of three builds.
  buildReport([{ header: run.header, records: run.records }]);
  const times: number[] = [];
  let json = "";
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const report = buildReport([{ header: run.header, records: run.records }]);
    times.push(performance.now() - t0);
    if (i === 0) {
      const t1 = performance.now();
      json = renderJson(report);
      rows.push({ group: "report", metric: "JSON render time", value: Math.round(performance.now() - t1), unit: "ms", note: label });
    }
  }
  times.sort((a, b) => a - b);
  rows.unshift({ group: "report", metric: "report-model build time (median of 3)", value: Math.round(times[1] ?? 0), unit: "ms", note: `${label}, ${run.records.length} records in memory` });
  rows.push({ group: "report", metric: "JSON report size", value: Math.round(Buffer.byteLength(json) / 1024), unit: "KiB", note: label });

  const tmp = mkdtempSync(path.join(os.tmpdir(), "sf-bench-report-"));
  try {
    const file = path.join(tmp, "run.jsonl");
    const bytes = await writeRunFile(run, file);
    rows.push({ group: "report", metric: "run file size", value: Math.round(bytes / 2 ** 20), unit: "MiB", note: label });
    const measured = await measureCli([path.join(repoRoot, "dist", "cli.js"), "report", file, "--format", "json"]);
    rows.push({ group: "report", metric: "CLI `report --format json` wall", value: Math.round(measured.wallMs), unit: "ms", note: `exit ${measured.code}; read + validate + build + render` });
    rows.push({ group: "report", metric: "CLI `report --format json` peak RSS", value: Math.round(measured.maxRssKb / 1024), unit: "MiB", note: measured.how });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

async function measureCli(args: string[]): Promise<{ wallMs: number; maxRssKb: number; code: number | null; how: string }> {
  const gnuTime = "/usr/bin/time";
  const useTime = existsSync(gnuTime);
  const argv = useTime ? ["-v", process.execPath, ...args] : ["--import", RSS_HOOK, ...args];
  const t0 = performance.now();
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(useTime ? gnuTime : process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (c) => resolve({ code: c, stderr: err }));
  });
  const wallMs = performance.now() - t0;
  const m = useTime ? /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr) : /maxRSS=(\d+)/.exec(stderr);
  const exit = useTime ? /Exit status: (\d+)/.exec(stderr) : null;
  return { wallMs, maxRssKb: Number(m?.[1] ?? NaN), code: exit ? Number(exit[1]) : code, how: useTime ? "/usr/bin/time -v" : "child resourceUsage().maxRSS" };
}

/** Without GNU time: the child reports its own peak RSS (kB) on stderr as it exits. */
const RSS_HOOK = `data:text/javascript,process.on("exit",()=>process.stderr.write("maxRSS="+process.resourceUsage().maxRSS+"\\n"))`;
