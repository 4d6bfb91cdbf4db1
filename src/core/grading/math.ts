import type { Task } from "../tasks/schema.js";
import { extractMathAnswer } from "./math-extract.js";
import { mathAnswersEqual, normaliseMathAnswer } from "../math/normalise.js";
import type { GradeOptions, Grader, Verdict } from "./types.js";

export { extractMathAnswer } from "./math-extract.js";
export { mathAnswersEqual, normaliseMathAnswer } from "../math/normalise.js";
export { evaluateRational } from "../math/rational.js";

/**
 * Whether `answer` still looks like a whole model response rather than an extracted final answer. The agent
 * loop passes extracted answers, but a caller may pass the full text; extracting from an extracted answer
 * must not turn `\frac{1}{2}` into its last number, so only text that carries a marker or reads like prose
 * is extracted again.
 */
function looksLikeFullText(answer: string): boolean {
  if (/\\(?:boxed|fbox)(?![A-Za-z])|(?:^|[^A-Za-z])answer\s*(?:is\s*)?[:：]|^\s*####/im.test(answer)) return true;
  // Words inside \text{…} are part of an answer (`\text{no real solutions}`), not prose around it.
  const bare = answer.replace(/\\(?:text|mbox|mathrm|textbf)\s*\{[^{}]*\}/g, "").replace(/\\[A-Za-z]+/g, "");
  return /\n/.test(answer.trim()) || answer.length > 160 || /[A-Za-z]{3,}\s+[A-Za-z]{3,}\s+[A-Za-z]{3,}/.test(bare);
}

const shown = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

/** Grades `math-answer` tasks (GSM8K, MATH-500, our own) by normalised final-answer equivalence. */
export function createMathGrader(): Grader {
  return {
    async grade(task: Task, answer: string | null, options?: GradeOptions): Promise<Verdict> {
      if (task.kind !== "math-answer") throw new Error(`math grader got a ${task.kind} task (${task.id}); use the python grader for it`);
      options?.signal?.throwIfAborted();
      const expected = task.answer;
      // A reference nothing can match is a broken task, not a wrong model: say so instead of failing every run.
      if (normaliseMathAnswer(expected) === "") throw new Error(`task ${task.id}: reference answer ${JSON.stringify(expected)} is empty after normalisation; fix the task file`);
      const text = answer?.trim() ?? "";
      const final = text === "" ? null : looksLikeFullText(text) ? extractMathAnswer(text) : text;
      if (final === null || final.trim() === "") {
        return {
          pass: false,
          reason: `no final answer found (expected ${shown(expected)}): end the answer with \\boxed{...}`,
          failure: { kind: "no-answer", expected },
        };
      }
      if (mathAnswersEqual(final, expected)) return { pass: true, reason: `expected ${shown(expected)}, got ${shown(final)}` };
      return {
        pass: false,
        reason: `expected ${shown(expected)}, got ${shown(final)}`,
        failure: { kind: "wrong-answer", expected, actual: final },
      };
    },
    async dispose() {},
  };
}
