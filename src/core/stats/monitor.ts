/**
 * SequentialMonitor — the `--stop-when decided` rule (docs/stats-spec.md §7.1, §7.3, §7.5).
 *
 * API
 *   const mon = new SequentialMonitor({ alpha: 0.05, scope: "retrieved", skills: 1 });
 *   const state = mon.observe({ outcome: "rescued" | "harmed" | "concordant", retrieved: boolean });
 *   state.decided   "helpful" | "harmful" | null   — sticky once a threshold is crossed
 *   state.eHelp     E_help of the beta-binomial mixture over discordant pairs (§7.1)
 *   state.eHarm     E_harm
 *   state.cs        [lo, hi] anytime-valid betting CS for θ (RAE when scope = "retrieved", OAE when "all")
 *   state.threshold 2K/α (α/2 per side, Bonferroni over K monitored skills/effects)
 *   state.precisionReached  true once the CS is narrower than `precision` (option; §7.5 "precision reached")
 *   state.observed / state.discordant / state.rescued / state.harmed counts in scope
 *   mon.state()     the same snapshot without feeding anything
 *
 * Feed tasks in the run's recorded shuffled order (the guarantee needs a pre-registered order, α and K), one
 * call per task once both conditions are graded. With scope "retrieved" (the default, RAE's question) tasks whose
 * enabled run retrieved nothing are counted in `skipped` and do not move the e-process or the CS. The decision is
 * made at the first crossing of E_help ≥ 2K/α or E_harm ≥ 2K/α; observations after that still update e-values and
 * CS (they stay valid at any stopping time) but never change `decided`. Pure computation: no I/O, no clock.
 */
import { BettingCS, mixtureEValues } from "./sequential.js";

export type PairOutcomeKind = "rescued" | "harmed" | "concordant";
export type Decision = "helpful" | "harmful";

export interface MonitorObservation {
  outcome: PairOutcomeKind;
  retrieved: boolean;
}

export interface MonitorState {
  decided: Decision | null;
  /** 1-based index (within scope) of the observation that decided, or null. */
  decidedAt: number | null;
  eHelp: number;
  eHarm: number;
  cs: [number, number];
  threshold: number;
  /** CS width < options.precision (false when no precision target was set). */
  precisionReached: boolean;
  observed: number;
  skipped: number;
  discordant: number;
  rescued: number;
  harmed: number;
}

export interface MonitorOptions {
  alpha?: number;
  /** "retrieved": RAE (default); "all": OAE. */
  scope?: "retrieved" | "all";
  /** Number of effects monitored at once (Bonferroni): threshold 2K/α. */
  skills?: number;
  /** Optional CS width target (θ scale) for the "precision reached" stopping rule. */
  precision?: number;
  /**
   * Size of the finite benchmark being streamed (scope "all": the number of tasks), for the without-replacement CS.
   * Leave unset for scope "retrieved", whose in-scope count is not known in advance (the CS is then for the
   * population the tasks are drawn from).
   */
  populationSize?: number;
}

export class SequentialMonitor {
  readonly alpha: number;
  readonly scope: "retrieved" | "all";
  readonly threshold: number;
  readonly precision: number | undefined;
  private readonly cs: BettingCS;
  private rescued = 0;
  private harmed = 0;
  private observed = 0;
  private skipped = 0;
  private decided: Decision | null = null;
  private decidedAt: number | null = null;

  constructor(options: MonitorOptions = {}) {
    this.alpha = options.alpha ?? 0.05;
    this.scope = options.scope ?? "retrieved";
    const k = Math.max(1, options.skills ?? 1);
    if (!(this.alpha > 0 && this.alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${this.alpha}`);
    this.threshold = (2 * k) / this.alpha;
    this.precision = options.precision;
    this.cs = new BettingCS(this.alpha, 1000, options.populationSize);
  }

  observe(o: MonitorObservation): MonitorState {
    if (this.scope === "retrieved" && !o.retrieved) {
      this.skipped++;
      return this.state();
    }
    this.observed++;
    if (o.outcome === "rescued") this.rescued++;
    else if (o.outcome === "harmed") this.harmed++;
    this.cs.push(o.outcome === "rescued" ? 1 : o.outcome === "harmed" ? 0 : 0.5);
    const s = this.state();
    if (this.decided === null) {
      if (s.eHelp >= this.threshold) this.decided = "helpful";
      else if (s.eHarm >= this.threshold) this.decided = "harmful";
      if (this.decided !== null) this.decidedAt = this.observed;
    }
    return { ...s, decided: this.decided, decidedAt: this.decidedAt };
  }

  state(): MonitorState {
    const e = mixtureEValues(this.rescued, this.harmed);
    const cs = this.cs.thetaInterval();
    return {
      decided: this.decided,
      decidedAt: this.decidedAt,
      eHelp: e.eHelpful,
      eHarm: e.eHarmful,
      cs,
      threshold: this.threshold,
      precisionReached: this.precision !== undefined && cs[1] - cs[0] < this.precision,
      observed: this.observed,
      skipped: this.skipped,
      discordant: this.rescued + this.harmed,
      rescued: this.rescued,
      harmed: this.harmed,
    };
  }
}
