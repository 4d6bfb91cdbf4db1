/**
 * skill-creator's file formats, transcribed from anthropics/skills skills/skill-creator/references/schemas.md
 * (grading.json, timing.json, benchmark.json, and the eval_metadata.json of its SKILL.md), for checking our export
 * (test code only). Where the document marks a field required for the viewer ("The viewer reads these field names
 * exactly"), it is required here; the rest is optional as documented.
 */
import { z } from "zod";

const ExpectationSchema = z.object({ text: z.string(), passed: z.boolean(), evidence: z.string() });

export const GradingJsonSchema = z.object({
  expectations: z.array(ExpectationSchema),
  summary: z.object({ passed: z.number().int(), failed: z.number().int(), total: z.number().int(), pass_rate: z.number().min(0).max(1) }),
  execution_metrics: z
    .object({
      tool_calls: z.record(z.string(), z.number().int()),
      total_tool_calls: z.number().int(),
      total_steps: z.number().int(),
      errors_encountered: z.number().int(),
      output_chars: z.number().int(),
      transcript_chars: z.number().int(),
    })
    .optional(),
  timing: z.object({ executor_duration_seconds: z.number(), grader_duration_seconds: z.number().optional(), total_duration_seconds: z.number() }).partial().optional(),
  claims: z.array(z.object({ claim: z.string(), type: z.string(), verified: z.boolean(), evidence: z.string() })).optional(),
  user_notes_summary: z.object({ uncertainties: z.array(z.string()), needs_review: z.array(z.string()), workarounds: z.array(z.string()) }).optional(),
  eval_feedback: z.object({ suggestions: z.array(z.object({ assertion: z.string(), reason: z.string() })), overall: z.string() }).optional(),
});

export const TimingJsonSchema = z.object({
  total_tokens: z.number().int(),
  duration_ms: z.number().int(),
  total_duration_seconds: z.number(),
  executor_start: z.string().optional(),
  executor_end: z.string().optional(),
  executor_duration_seconds: z.number().optional(),
  grader_start: z.string().optional(),
  grader_end: z.string().optional(),
  grader_duration_seconds: z.number().optional(),
});

export const EvalMetadataSchema = z.object({ eval_id: z.number().int(), eval_name: z.string(), prompt: z.string(), assertions: z.array(z.string()) });

const Stat = z.object({ mean: z.number(), stddev: z.number(), min: z.number().optional(), max: z.number().optional() });
const ConfigSummary = z.object({ pass_rate: Stat, time_seconds: Stat, tokens: Stat });

export const BenchmarkJsonSchema = z.object({
  metadata: z.object({
    skill_name: z.string(),
    skill_path: z.string().optional(),
    executor_model: z.string().optional(),
    analyzer_model: z.string().optional(),
    timestamp: z.string(),
    evals_run: z.array(z.union([z.number(), z.string()])),
    runs_per_configuration: z.number().int(),
  }),
  runs: z.array(
    z.object({
      eval_id: z.number(),
      eval_name: z.string(),
      configuration: z.enum(["with_skill", "without_skill"]),
      run_number: z.number().int().positive(),
      result: z.object({
        pass_rate: z.number(),
        passed: z.number().int(),
        failed: z.number().int().optional(),
        total: z.number().int(),
        time_seconds: z.number(),
        tokens: z.number(),
        tool_calls: z.number().int().optional(),
        errors: z.number().int(),
      }),
      expectations: z.array(ExpectationSchema),
      notes: z.array(z.string()).optional(),
    }),
  ),
  run_summary: z.object({
    with_skill: ConfigSummary,
    without_skill: ConfigSummary,
    delta: z.object({ pass_rate: z.string().regex(/^[+-]\d+\.\d{2}$/), time_seconds: z.string().regex(/^[+-]\d+\.\d$/), tokens: z.string().regex(/^[+-]\d+$/) }),
  }),
  notes: z.array(z.string()),
});
