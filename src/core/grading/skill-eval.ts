import type { ExpectationResult } from "../../shared/vocabulary/index.js";
import type { SkillEvalTask, Task } from "../tasks/schema.js";
import { runCheck } from "./checks.js";
import { judgeOutput, type JudgeConfig } from "./judge.js";
import type { GradeOptions, Grader, Verdict } from "./types.js";

/**
 * Grades skill evals: the deterministic checks, then the free-text expectations by the judge, all reported in the
 * eval file's order as skill-creator's expectations. The task passes when every one passes, so the paired outcome
 * stays binary; the expectation pass rate is reported beside it. A trigger case has nothing to grade and passes.
 */
export function createSkillEvalGrader(): Grader {
  return {
    async grade(task: Task, answer: string | null, options?: GradeOptions): Promise<Verdict> {
      if (task.kind !== "skill-eval") throw new Error(`skill-eval grader got a ${task.kind} task (${task.id})`);
      options?.signal?.throwIfAborted();
      return gradeSkillEval(task, answer, options?.judge, options?.signal);
    },
    async dispose() {},
  };
}

async function gradeSkillEval(task: SkillEvalTask, answer: string | null, judge: JudgeConfig | undefined, signal: AbortSignal | undefined): Promise<Verdict> {
  if (task.criteria.length === 0) return { pass: true, reason: "trigger case: nothing to grade (only whether the skill was loaded counts)", expectations: [] };
  const output = answer ?? "";
  const judged = task.criteria.flatMap((c) => (c.type === "judge" ? [c.text] : []));
  let graded: ExpectationResult[] = [];
  if (judged.length > 0) {
    if (output.trim() === "") graded = judged.map((text) => ({ text, passed: false, evidence: "there is no response to grade" }));
    else {
      if (!judge) throw new Error(`task ${task.id} has free-text expectations, but no judge model is configured`);
      graded = await judgeOutput(task, output, judged, judge, signal);
    }
  }
  let k = 0;
  const expectations = task.criteria.map((c) => (c.type === "judge" ? graded[k++]! : runCheck(c, output)));
  const failed = expectations.filter((e) => !e.passed);
  const n = expectations.length;
  if (answer === null || answer.trim() === "") {
    return { pass: false, reason: `no response (0/${n} expectations passed)`, failure: { kind: "no-answer" }, expectations };
  }
  if (failed.length === 0) return { pass: true, reason: `all ${n} expectations passed`, expectations };
  const first = failed[0]!;
  return {
    pass: false,
    reason: `${n - failed.length}/${n} expectations passed; failed: ${first.text}`,
    failure: { kind: "wrong-answer", expected: first.text, actual: first.evidence },
    expectations,
  };
}
