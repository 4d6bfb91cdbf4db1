import { z } from "zod";
import { TaskSchema, type MathAnswerTask, type Task, type TaskImporter } from "./schema.js";

/** Formats a zod error as `field "a.b": message` (up to three issues), the reason part of `file:line: reason`. */
export function zodReason(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((i) => `${i.path.length ? `field "${i.path.join(".")}"` : "record"}: ${i.message}`);
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : "";
  return parts.join("; ") + more;
}

/** Our own JSONL format: one TaskSchema object per line. */
export const nativeImporter: TaskImporter = {
  format: "native",
  setName: "",
  // Recognised by its keys rather than a valid `kind`, so a typo in line 1 is a located issue, not a refusal.
  detect: (r) => "kind" in r && "id" in r && "prompt" in r,
  convert(record): Task {
    const r = TaskSchema.safeParse(record);
    if (!r.success) throw new Error(zodReason(r.error));
    return r.data;
  },
};

const Gsm8kSchema = z.object({
  question: z.string().min(1),
  answer: z.string().min(1),
});

/** `#### 1,234` / `#### -5` / `#### 2.5` at the end of a GSM8K worked solution. */
const GSM8K_FINAL = /####\s*(-?[\d,]*\.?\d+)\s*$/;

export function gsm8kFinalAnswer(answer: string): string | undefined {
  const m = GSM8K_FINAL.exec(answer.trimEnd());
  return m?.[1]?.replace(/,/g, "");
}

/** GSM8K (openai/grade-school-math): `{question, answer}`; the answer ends with `#### N`. Ids are `gsm8k/<line index>`. */
export const gsm8kImporter: TaskImporter = {
  format: "gsm8k",
  setName: "gsm8k",
  // Keys only: a first record with a malformed answer is a located issue, not a refusal of the whole file.
  detect: (r) => typeof r.question === "string" && typeof r.answer === "string",
  convert(record, index): MathAnswerTask {
    const r = Gsm8kSchema.safeParse(record);
    if (!r.success) throw new Error(`GSM8K record: ${zodReason(r.error)}`);
    const answer = gsm8kFinalAnswer(r.data.answer);
    if (answer === undefined) throw new Error('GSM8K record: field "answer": does not end with "#### <number>"');
    return { id: `gsm8k/${index}`, kind: "math-answer", prompt: r.data.question, answer, tags: ["gsm8k"] };
  },
};

const Math500Schema = z.object({
  problem: z.string().min(1),
  answer: z.string().min(1),
  unique_id: z.string().min(1),
  subject: z.string().optional(),
  level: z.union([z.number(), z.string()]).optional(),
});

/** MATH-500 (PRM800K test split): `{problem, solution, answer, subject, level, unique_id}`; id = unique_id. */
export const math500Importer: TaskImporter = {
  format: "math500",
  setName: "math500",
  detect: (r) => typeof r.problem === "string" && typeof r.answer === "string" && typeof r.unique_id === "string",
  convert(record): MathAnswerTask {
    const r = Math500Schema.safeParse(record);
    if (!r.success) throw new Error(`MATH-500 record: ${zodReason(r.error)}`);
    const tags = ["math500"];
    if (r.data.subject) tags.push(`subject:${r.data.subject}`);
    if (r.data.level !== undefined) tags.push(`level:${r.data.level}`);
    return { id: r.data.unique_id, kind: "math-answer", prompt: r.data.problem, answer: r.data.answer, tags };
  },
};

/** What a refused file is told it could have been. */
export const ACCEPTED_FORMATS = [
  'our task JSONL (one {"id", "kind": "python-function" | "math-answer", "prompt", ...} per line)',
  "EvalPlus MBPP+ / HumanEval+ (.jsonl or .jsonl.gz; EvalPlus or OriginFmt layout)",
  'GSM8K ({"question", "answer" ending in "#### N"})',
  'MATH-500 ({"problem", "solution", "answer", "subject", "level", "unique_id"})',
];
