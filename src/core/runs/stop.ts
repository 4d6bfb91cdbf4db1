import { SequentialMonitor, type MonitorState, type PairOutcomeKind } from "../stats/index.js";
import type { Design } from "../../shared/vocabulary/index.js";
import type { RunSummary } from "./types.js";

/** What the monitor keeps of a run: its verdict and whether it retrieved (a few bytes, not the record). */
interface Outcome {
  pass: boolean;
  retrieved: boolean;
}

/**
 * Tracks paired outcomes while a run is in progress: the running RAE shown in progress, and (with
 * `--stop-when decided`) the anytime-valid decision on the sign of the effect on retrieved tasks.
 * Pairs use sample 0 of each condition. Pairs complete out of order under concurrency, but the e-process is fed
 * strictly in the run's pre-registered (seeded, shuffled) task order, so its guarantee holds (stats-spec §7).
 */
export class StopMonitor {
  private readonly enabled = new Map<string, Outcome>();
  private readonly disabled = new Map<string, Outcome>();
  private readonly monitor: SequentialMonitor;
  private next = 0;
  private retrievedPairs = 0;
  private rescued = 0;
  private harmed = 0;
  private last: MonitorState;

  constructor(
    private readonly taskOrder: readonly string[],
    private readonly design: Design,
    alpha: number,
  ) {
    this.monitor = new SequentialMonitor({ alpha, scope: "retrieved" });
    this.last = this.monitor.state();
  }

  add(record: Pick<RunSummary, "taskId" | "condition" | "sample" | "retrieved" | "verdict">): void {
    if (record.sample !== 0) return;
    (record.condition === "enabled" ? this.enabled : this.disabled).set(record.taskId, { pass: record.verdict.pass, retrieved: record.retrieved.length > 0 });
    for (;;) {
      const id = this.taskOrder[this.next];
      if (id === undefined) return;
      const e = this.enabled.get(id);
      if (!e) return;
      const retrieved = e.retrieved;
      const d = this.disabled.get(id);
      // In the RAE-only design a task without retrieval never gets a disabled run: it is complete as it is.
      if (!d && (this.design === "paired" || retrieved)) return;
      this.next++;
      // Fed pairs are never looked at again: drop them, so the maps hold only pairs still waiting for their turn.
      this.enabled.delete(id);
      this.disabled.delete(id);
      const outcome: PairOutcomeKind = !d || e.pass === d.pass ? "concordant" : e.pass ? "rescued" : "harmed";
      if (retrieved && d) {
        this.retrievedPairs++;
        if (outcome === "rescued") this.rescued++;
        if (outcome === "harmed") this.harmed++;
      }
      this.last = this.monitor.observe({ outcome, retrieved: retrieved && d !== undefined });
    }
  }

  /** RAE over the retrieved tasks whose pair is complete (in task order), or null before any. */
  runningRae(): number | null {
    return this.retrievedPairs === 0 ? null : (this.rescued - this.harmed) / this.retrievedPairs;
  }

  /** Tasks fed to the monitor so far. */
  /** The pairs the running RAE is over. */
  runningRaeN(): number {
    return this.retrievedPairs;
  }

  pairsDone(): number {
    return this.next;
  }

  state(): MonitorState {
    return this.last;
  }

  /** The stopping reason once the sign is decided, else undefined. */
  decision(): string | undefined {
    const s = this.last;
    if (!s.decided) return undefined;
    const cs = `[${s.cs[0].toFixed(3)}, ${s.cs[1].toFixed(3)}]`;
    return `decided: ${s.decided} after ${s.observed} retrieved task pairs (${s.rescued} rescued, ${s.harmed} harmed; E = ${(s.decided === "helpful" ? s.eHelp : s.eHarm).toFixed(1)} ≥ ${s.threshold.toFixed(0)}; anytime-valid RAE interval ${cs})`;
  }
}
