/**
 * The LLM judge of skill evals. It is blind: a request holds the eval's request (prompt and attached files), the
 * author's expected output and the one response to grade, never the condition, a skill's text, the tool calls or
 * the other run. It runs at temperature 0 with structured output (`response_format` json_schema named `grading`)
 * and answers in skill-creator's grading shape, `{expectations: [{text, passed, evidence}]}`.
 */
import { z } from "zod";
import type { ExpectationResult } from "../../shared/vocabulary/index.js";
import { CancelledError, JudgeError } from "../errors.js";
import type { ChatRequest, ChatResponse, ModelClient } from "../models/types.js";
import { skillEvalMessage } from "../tasks/skill-eval-message.js";
import type { SkillEvalTask } from "../tasks/schema.js";

export interface JudgeConfig {
  client: ModelClient;
  /** The model name sent in judge requests. */
  model: string;
  /** Each output is graded this many times (sample indices 0..repeats-1 in the cache key). */
  repeats: number;
  maxTokens?: number;
}

export const JUDGE_SYSTEM = [
  "You grade one response to a user's request against a list of expectations.",
  "For each expectation, decide whether the response satisfies it, and give the evidence: quote the part of the response that decides it, or say what is missing.",
  "Grade only the response shown; it is complete. An expectation passes only with clear evidence in the response; when in doubt, it fails.",
  'Answer with JSON only, of the form {"expectations": [{"text": ..., "passed": true|false, "evidence": ...}]}: one entry per expectation, in the order given, with its text copied exactly.',
].join("\n");

export const GradingSchema = z.object({
  expectations: z.array(z.object({ text: z.string(), passed: z.boolean(), evidence: z.string() })),
});

/** The response_format of every judge call (strict: every field required, nothing else). */
export const GRADING_FORMAT: NonNullable<ChatRequest["responseFormat"]> = {
  type: "json_schema",
  json_schema: {
    name: "grading",
    strict: true,
    schema: {
      type: "object",
      properties: {
        expectations: {
          type: "array",
          items: {
            type: "object",
            properties: { text: { type: "string" }, passed: { type: "boolean" }, evidence: { type: "string" } },
            required: ["text", "passed", "evidence"],
            additionalProperties: false,
          },
        },
      },
      required: ["expectations"],
      additionalProperties: false,
    },
  },
};

/** Delimits the graded response so nothing in it reads as part of the instructions. */
const BEGIN = "<<<RESPONSE";
const END = "RESPONSE>>>";

/** The one judge request for an output. Depends only on the eval and the output, so equal outputs share gradings. */
export function judgeRequest(task: SkillEvalTask, output: string, expectations: readonly string[], judge: Pick<JudgeConfig, "model" | "maxTokens">): ChatRequest {
  const user = [
    "## The user's request",
    skillEvalMessage(task),
    ...(task.expectedOutput ? ["", "## What the author expects (a description of success)", task.expectedOutput.trim()] : []),
    "",
    "## The response to grade",
    BEGIN,
    output.split(END).join("RESPONSE >>>"),
    END,
    "",
    "## Expectations",
    ...expectations.map((e, i) => `${i + 1}. ${e}`),
  ].join("\n");
  return {
    model: judge.model,
    messages: [
      { role: "system", content: JUDGE_SYSTEM },
      { role: "user", content: user },
    ],
    temperature: 0,
    ...(judge.maxTokens !== undefined ? { maxTokens: judge.maxTokens } : {}),
    responseFormat: GRADING_FORMAT,
  };
}

/** A judge reply as gradings of exactly `expectations`, in order, or why it is not one. */
export function parseGrading(content: string | null, expectations: readonly string[]): ExpectationResult[] | { error: string } {
  if (content === null || content.trim() === "") return { error: "the judge answered with no text" };
  let value: unknown;
  try {
    value = JSON.parse(stripFence(content.trim()));
  } catch (e) {
    return { error: `the judge's answer is not JSON (${(e as Error).message})` };
  }
  const parsed = GradingSchema.safeParse(value);
  if (!parsed.success) return { error: `the judge's answer is not a grading: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}` };
  const got = parsed.data.expectations;
  if (got.length !== expectations.length) return { error: `the judge graded ${got.length} expectations, not ${expectations.length}` };
  // Matched by position; the text is ours (judges paraphrase), the verdict and evidence theirs.
  return got.map((g, i) => ({ text: expectations[i]!, passed: g.passed, evidence: g.evidence }));
}

function stripFence(text: string): string {
  const m = /^```[A-Za-z]*\n([\s\S]*?)\n?```$/.exec(text);
  return m ? m[1]! : text;
}

/**
 * Grades `output` against the free-text expectations, `repeats` times. With several repeats an expectation passes
 * on the majority of its votes (a tie fails) and carries every vote. Throws JudgeError when the judge cannot
 * grade (the endpoint failed after its retries, or a reply is not a grading).
 */
export async function judgeOutput(
  task: SkillEvalTask,
  output: string,
  expectations: readonly string[],
  judge: JudgeConfig,
  signal: AbortSignal | undefined,
): Promise<ExpectationResult[]> {
  const request = judgeRequest(task, output, expectations, judge);
  const accept = (r: ChatResponse) => !("error" in parseGrading(r.content, expectations));
  const rounds: ExpectationResult[][] = [];
  for (let r = 0; r < judge.repeats; r++) {
    let response: ChatResponse;
    try {
      response = await judge.client.complete(request, { sampleIndex: r, accept, ...(signal ? { signal } : {}) });
    } catch (e) {
      if (e instanceof CancelledError || signal?.aborted) throw new CancelledError();
      throw new JudgeError(`judge request failed: ${(e as Error).message}`, { cause: e, hintIds: ["log"] });
    }
    const graded = parseGrading(response.content, expectations);
    if ("error" in graded) throw new JudgeError(`${graded.error}; the run stays ungraded and resuming grades it again`, { hintIds: ["log"] });
    rounds.push(graded);
  }
  if (rounds.length === 1) return rounds[0]!;
  return expectations.map((text, i) => {
    const votes = rounds.map((g) => g[i]!.passed);
    const passed = votes.filter(Boolean).length * 2 > votes.length;
    const evidence = rounds.find((g) => g[i]!.passed === passed)![i]!.evidence;
    return { text, passed, evidence, votes };
  });
}
