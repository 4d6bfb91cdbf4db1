import { pct, pLabel, signed } from "./format.js";

/**
 * The words the report uses to explain itself, one source for the webview and the exported HTML: a one-line
 * definition under each headline number, and the "?" explainer (what the pair table means, why the aggregate lift
 * misleads, what Holm does), written with this report's own numbers.
 */

export const CARD_DEFINITIONS = {
  rae: "Where the agent loaded a skill: share of tasks it rescued minus share it harmed.",
  oae: "Over every task: the same difference, whether or not a skill was loaded.",
  lift: "Accuracy where a skill was loaded minus where none was. Different tasks: not an effect.",
  retrieved: "Tasks whose enabled run got a skill back (a load, or a search that returned one).",
  flips: "Tasks that failed without skills and passed with them / passed without and failed with.",
} as const;

export type CardId = keyof typeof CARD_DEFINITIONS;

/** What the explainer needs from a report: the retrieved pair table, the lift decomposition, the Holm family. */
export interface ExplainerNumbers {
  /** Where retrieved: the four cells of the pair table. */
  bothPass: number;
  rescued: number;
  harmed: number;
  bothFail: number;
  rae: number | null;
  lift: number | null;
  /** acc⁻(retrieved) − acc⁻(not retrieved): how much easier or harder the retrieving tasks are without skills. */
  selectionTerm: number | null;
  nrae: number | null;
  alpha: number;
  /** Skills in the Holm family. */
  family: number;
  /** The skill whose p-value Holm changes most, to show what Holm does with this report's numbers. */
  holmExample?: { name: string; p: number | null; pHolm: number | null };
}

export interface ExplainerPart {
  id: "pairs" | "lift" | "holm";
  title: string;
  paragraphs: string[];
}

export function explainer(x: ExplainerNumbers): ExplainerPart[] {
  const n = x.bothPass + x.rescued + x.harmed + x.bothFail;
  const pairs: ExplainerPart = {
    id: "pairs",
    title: "What the pair table means",
    paragraphs: [
      "Every task runs twice with the same model and settings: once with the skills available (enabled), once without (disabled). Each task gives a pair of outcomes.",
      `Where a skill was loaded (${n} tasks here): ${x.bothPass} passed both ways, ${x.bothFail} failed both ways, ${x.rescued} were rescued (failed without skills, passed with them) and ${x.harmed} were harmed (passed without, failed with).`,
      `Only rescued and harmed tasks say anything about the skill. RAE = (rescued − harmed) / n = (${x.rescued} − ${x.harmed}) / ${n} = ${signed(x.rae)}. Its p-value (McNemar mid-p) asks how often ${x.rescued} against ${x.harmed} would come out this lopsided if the skill made no difference.`,
    ],
  };
  const lift: ExplainerPart = {
    id: "lift",
    title: "Why the aggregate lift misleads",
    paragraphs: [
      "The aggregate retrieval lift compares accuracy on the tasks where a skill was loaded with accuracy on the tasks where none was. Those are different tasks: an agent loads a skill on tasks that differ, easier or harder, so the lift mixes the skill's effect with the tasks' difficulty.",
      x.lift === null || x.selectionTerm === null || x.rae === null
        ? "Here it cannot be split: it needs tasks both with and without retrieval, in both conditions."
        : `Here: lift ${signed(x.lift)} = difficulty gap ${signed(x.selectionTerm)} (how the two groups differ without skills) + RAE ${signed(x.rae)} − NRAE ${signed(x.nrae)} (the effect where nothing was loaded).`,
      "RAE compares each task with itself, so difficulty cancels out. When lift and RAE disagree in sign, the report flags the paradox: the skill looks good in aggregate but hurts where it is used (or the reverse).",
    ],
  };
  const holm: ExplainerPart = {
    id: "holm",
    title: "What Holm does",
    paragraphs: [
      `Test many skills and some will look harmful or helpful by chance: at α = ${x.alpha}, about ${pct(x.alpha)} of skills with no effect reach p < α.`,
      `Holm's correction raises the p-values for the number of skills tested (${x.family} here), smallest first, so that the chance of calling any skill harmful or helpful by mistake stays below α. A skill is flagged harmful or helpful only when its Holm-adjusted p is below α.`,
      x.holmExample && x.holmExample.p !== null && x.holmExample.pHolm !== null && x.family > 1
        ? `Here: ${x.holmExample.name} has ${pLabel(x.holmExample.p)} on its own and ${pLabel(x.holmExample.pHolm, "Holm p")} among ${x.family} skills. Evaluating a skill alone (a family of one) leaves its p as it is, which is why a verdict can change between a single-skill and a library run.`
        : "With one skill there is nothing to correct: its p-value is used as it is. In a library run the same numbers can give a weaker verdict.",
    ],
  };
  return [pairs, lift, holm];
}
