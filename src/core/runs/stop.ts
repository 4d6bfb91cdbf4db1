import type { RunRecord } from "./types.js";

type Outcome = "rescued" | "harmed" | "concordant";

/**
 * Tracks paired outcomes while a run is in progress: the running RAE shown in progress, and (with
 * `--stop-when decided`) the anytime-valid decision on the sign of the effect on retrieved tasks.
 * Pairs use sample 0 of each condition; a task counts once, when its pair completes.
 */
export class StopMonitor {
  private readonly enabled = new Map<string, RunRecord>();
  private readonly disabled = new Map<string, RunRecord>();
  private readonly paired = new Set<string>();
  private retrievedPairs = 0;
  private rescued = 0;
  private harmed = 0;
  private decided: string | undefined;

  constructor(readonly alpha: number) {}

  add(record: RunRecord): void {
    if (record.sample !== 0 || this.paired.has(record.taskId)) return;
    (record.condition === "enabled" ? this.enabled : this.disabled).set(record.taskId, record);
    const e = this.enabled.get(record.taskId);
    const d = this.disabled.get(record.taskId);
    if (!e || !d) return;
    this.paired.add(record.taskId);
    if (e.retrieved.length === 0) return;
    const outcome: Outcome = e.verdict.pass === d.verdict.pass ? "concordant" : e.verdict.pass ? "rescued" : "harmed";
    this.retrievedPairs++;
    if (outcome === "rescued") this.rescued++;
    if (outcome === "harmed") this.harmed++;
    this.observe(outcome);
  }

  runningRae(): number | null {
    return this.retrievedPairs === 0 ? null : (this.rescued - this.harmed) / this.retrievedPairs;
  }

  pairsDone(): number {
    return this.paired.size;
  }

  /** The stopping reason once the sign is decided, else undefined. */
  decision(): string | undefined {
    return this.decided;
  }

  private observe(_outcome: Outcome): void {
    // Wired to the stats module's sequential monitor (stats-spec §7.1) once it lands.
  }
}
