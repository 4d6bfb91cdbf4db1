/**
 * The file formats of a skill's own evals, as zod schemas, and a JSON reader whose every error names a line and a
 * column. `EvalsFileSchema` accepts both spellings in use: skill-creator's `{skill_name, evals: [{id, prompt,
 * expected_output, files, expectations}]}` and the Agent Skills guide's, which calls them `assertions`. An assertion
 * is a string (graded by the LLM judge) or a typed `{name?, type, value}` (a deterministic check). The same schema,
 * as JSON Schema, is what VS Code completes and checks `**\/evals/evals.json` with (esbuild.mjs writes it).
 *
 * agent-skills-eval's files (npm `agent-skills-eval`, its src/skill.ts) are read whole: its top-level `defaults`
 * (target and judge model params, tools), its assertion objects `{text}`, `{criterion}` and untyped `{value}` (a
 * sentence for the judge, as it reads them), and its per-case fields (`params`, `tools`, `tool_choice`,
 * `tool_assertions`, `runtime_checks`, `verification`, `captured_files`). What this tool does not apply (model
 * params, custom tools and their assertions, runtime checks) is accepted and reported as not applied, never a reason
 * to skip a case.
 */
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { z } from "zod";
import { firstTooDeep, tooDeepMessage } from "../../shared/nesting.js";
import { CheckTypeSchema } from "../../shared/vocabulary/index.js";

const KNOWN_TYPES = CheckTypeSchema.options.join(", ");

/** A deterministic check. `value` is required for every type but json_valid. */
export const TypedAssertionSchema = z
  .strictObject({
    name: z.string().optional().describe("A short name shown in results instead of the check itself."),
    type: z
      .enum(CheckTypeSchema.options, {
        error: (issue) =>
          issue.input === undefined
            ? `an assertion object needs a type (${KNOWN_TYPES}), or its statement under text or criterion`
            : `unknown assertion type ${JSON.stringify(issue.input)}; the known types are ${KNOWN_TYPES}`,
      })
      .describe(`The check: ${KNOWN_TYPES}. Free-text expectations are plain strings instead.`),
    value: z.union([z.string(), z.number(), z.boolean()]).optional().describe("What the check compares the output with (a regular expression for regex)."),
    flags: z
      .string()
      .regex(/^[dgimsuvy]*$/, "regex flags are letters among d, g, i, m, s, u, v, y")
      .optional()
      .describe("regex only: JavaScript flags such as i or m."),
  })
  .superRefine((a, ctx) => {
    if (a.type !== "json_valid" && a.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: `a ${a.type} assertion needs a value` });
    if (a.flags !== undefined && a.type !== "regex") ctx.addIssue({ code: "custom", path: ["flags"], message: "flags apply to regex assertions only" });
    if (a.type === "regex" && a.value !== undefined) {
      try {
        new RegExp(String(a.value), a.flags ?? "");
      } catch (e) {
        ctx.addIssue({ code: "custom", path: ["value"], message: `not a valid regular expression: ${(e as Error).message}` });
      }
    }
  });

const judgeText = (what: string) => z.string().min(1, `${what} cannot be empty`);

/**
 * agent-skills-eval's assertion objects: a sentence for the judge under `text`, `criterion` or (untyped) `value`.
 * `type` is refused outright here (not merely unknown), so an object with a `type` is judged as a typed assertion and
 * its error names the type, not "unknown field".
 */
const noType = z.never({ error: "a typed assertion" }).optional();
export const TextAssertionSchema = z.union([
  z.strictObject({ text: judgeText("text").describe("A statement graded by the LLM judge (agent-skills-eval's object form)."), name: z.string().optional(), type: noType }),
  z.strictObject({ criterion: judgeText("criterion").describe("A statement graded by the LLM judge (agent-skills-eval's object form)."), name: z.string().optional(), type: noType }),
  z.strictObject({ value: judgeText("value").describe("Without a type: a statement graded by the LLM judge, as agent-skills-eval reads it."), name: z.string().optional(), type: noType }),
]);

export const AssertionSchema = z.union([
  z.string().min(1, "an expectation cannot be empty").describe("A verifiable statement about the output, graded by the LLM judge."),
  TypedAssertionSchema,
  TextAssertionSchema,
]);
export type EvalAssertion = z.infer<typeof AssertionSchema>;

/** agent-skills-eval's per-case fields this tool reads but does not apply (reported as such; the case still loads). */
export const NOT_APPLIED_CASE_FIELDS = ["params", "tools", "tool_choice", "tool_assertions", "runtime_checks", "verification", "captured_files"] as const;

function notApplied(): Record<(typeof NOT_APPLIED_CASE_FIELDS)[number], z.ZodOptional<z.ZodUnknown>> {
  const why: Record<(typeof NOT_APPLIED_CASE_FIELDS)[number], string> = {
    params: "agent-skills-eval: model params for this case. Not applied here: every task runs with the run's settings.",
    tools: "agent-skills-eval: tool definitions for this case. Not applied here: the agent has the skill tools only.",
    tool_choice: "agent-skills-eval: tool choice for this case. Not applied here.",
    tool_assertions: "agent-skills-eval: checks on the calls of its tools. Not applied here (those tools are not offered).",
    runtime_checks: "agent-skills-eval: checks on a coding agent's workspace. Not applied here.",
    verification: "agent-skills-eval: commands run after the case. Not applied here.",
    captured_files: "agent-skills-eval: workspace files to keep. Not applied here.",
  };
  return Object.fromEntries(NOT_APPLIED_CASE_FIELDS.map((k) => [k, z.unknown().optional().describe(why[k])])) as ReturnType<typeof notApplied>;
}

export const EvalCaseSchema = z.strictObject({
  id: z.union([z.number().int().nonnegative(), z.string().min(1)]).describe("Unique within the file: a whole number (skill-creator) or a string."),
  name: z.string().optional().describe("A readable label for the case."),
  eval_name: z.string().optional().describe("A readable label for the case (skill-creator's eval_metadata spelling)."),
  prompt: z.string().min(1, "the prompt cannot be empty").describe("The user message the agent receives."),
  expected_output: z.string().optional().describe("A description of success; context for the judge."),
  files: z.array(z.string().min(1)).optional().describe("Input files, relative to the skill folder (e.g. evals/files/log.txt)."),
  expectations: z.array(AssertionSchema).optional().describe("skill-creator's spelling: statements the output must satisfy."),
  assertions: z.array(AssertionSchema).optional().describe("The Agent Skills guide's spelling of expectations."),
  should_trigger: z.boolean().optional().describe("false marks a near miss: a prompt on which this skill should not be loaded."),
  ...notApplied(),
});
export type EvalCase = z.infer<typeof EvalCaseSchema>;

const paramsOf = (who: string) =>
  z.object({ params: z.record(z.string(), z.unknown()).optional().describe(`Inference params for the ${who} model.`) }).describe(`agent-skills-eval: defaults for the ${who} model. Not applied here.`);

/** agent-skills-eval's top-level `defaults`: read, checked for shape, not applied (the run's settings are). */
export const EvalDefaultsSchema = z
  .object({ target: paramsOf("evaluated").optional(), judge: paramsOf("judge").optional(), tools: z.array(z.unknown()).optional().describe("Tools for every case. Not applied here.") })
  .describe("agent-skills-eval: model params and tools for every case. Read but not applied: every task runs with the run's settings, the judge with its own.");

export const EvalsFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    skill_name: z.string().optional().describe("The skill these evals belong to (its frontmatter name)."),
    description: z.string().optional(),
    defaults: EvalDefaultsSchema.optional(),
    evals: z.array(EvalCaseSchema).describe("The test cases."),
  })
  .describe("A skill's own evals (evals/evals.json): prompts, expected output, files and assertions.");
export type EvalsFile = z.infer<typeof EvalsFileSchema>;

/** The top level alone: the cases are checked one by one, so one bad case does not drop the others. */
export const EvalsFileShellSchema = EvalsFileSchema.extend({ evals: z.array(z.unknown()) });

/** skill-creator's trigger sets: `[{query, should_trigger}]`, or `{skill_name?, evals: [{prompt, should_trigger}]}`. */
export const TriggerCaseSchema = z
  .strictObject({
    id: z.union([z.number().int().nonnegative(), z.string().min(1)]).optional(),
    query: z.string().min(1).optional(),
    prompt: z.string().min(1).optional(),
    should_trigger: z.boolean(),
  })
  .refine((c) => (c.query === undefined) !== (c.prompt === undefined), { message: "give the text as query or as prompt (one of them)" });
export const TriggerSetSchema = z.union([
  z.array(TriggerCaseSchema),
  z.strictObject({ skill_name: z.string().optional(), evals: z.array(TriggerCaseSchema) }),
]);
export type TriggerSet = z.infer<typeof TriggerSetSchema>;

/** The JSON Schema contributed for `**\/evals/evals.json` (written into dist/ at build time). */
export function evalsJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(EvalsFileSchema, { io: "input", unrepresentable: "any", target: "draft-7" }), title: "Skill evals (evals/evals.json)" };
}

/** A 1-based line and column in a text. */
export interface Position {
  line: number;
  column: number;
}

/** JSON text with offsets turned into lines and columns, and zod paths into the node they point at. */
export class LocatedJson {
  private readonly lineStarts: number[] = [0];

  private constructor(
    readonly text: string,
    readonly root: Node | undefined,
    readonly value: unknown,
  ) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  /**
   * Parses strict JSON (no comments, no trailing commas); the first syntax error is returned located. Nesting past
   * MAX_JSON_NESTING is refused first, at the bracket that goes too deep: the tree parser and zod recurse per level.
   */
  static parse(text: string): { json: LocatedJson } | { error: string; at: Position } {
    const deep = firstTooDeep(text);
    if (deep !== undefined) return { error: tooDeepMessage(), at: new LocatedJson(text, undefined, undefined).position(deep) };
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const shell = new LocatedJson(text, root, undefined);
    const first = errors[0];
    if (first) return { error: `not valid JSON: ${describeParseError(printParseErrorCode(first.error))}`, at: shell.position(first.offset) };
    if (!root) return { error: "the file is empty", at: { line: 1, column: 1 } };
    return { json: new LocatedJson(text, root, JSON.parse(text) as unknown) };
  }

  position(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.lineStarts[lo]! + 1 };
  }

  /** Where a zod issue points: the value at its path (an unknown key: that key), else the nearest enclosing node. */
  locate(path: readonly PropertyKey[], unknownKey?: string): Position {
    if (!this.root) return { line: 1, column: 1 };
    const segments = path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
    for (let n = segments.length; n >= 0; n--) {
      const node = findNodeAtLocation(this.root, segments.slice(0, n));
      if (!node) continue;
      if (n === segments.length && unknownKey !== undefined && node.type === "object") {
        const prop = node.children?.find((c) => c.children?.[0]?.value === unknownKey);
        if (prop) return this.position(prop.offset);
      }
      // A member's value is located at its key, where an editor's squiggle starts.
      const at = node.parent?.type === "property" ? node.parent : node;
      return this.position(at.offset);
    }
    return this.position(this.root.offset);
  }
}

function describeParseError(code: string): string {
  const words: Record<string, string> = {
    InvalidSymbol: "unexpected character",
    InvalidNumberFormat: "malformed number",
    PropertyNameExpected: "a property name in double quotes was expected",
    ValueExpected: "a value was expected",
    ColonExpected: "a colon was expected",
    CommaExpected: "a comma was expected",
    CloseBraceExpected: "a closing } was expected",
    CloseBracketExpected: "a closing ] was expected",
    EndOfFileExpected: "text after the end of the JSON value",
    InvalidCommentToken: "comments are not allowed in JSON",
    UnexpectedEndOfComment: "unterminated comment",
    UnexpectedEndOfString: "unterminated string",
    UnexpectedEndOfNumber: "unterminated number",
    InvalidUnicode: "invalid \\u escape",
    InvalidEscapeCharacter: "invalid escape character",
    InvalidCharacter: "invalid character in a string",
  };
  return words[code] ?? code;
}

/** A zod error as located reasons, first few only: `{at, message}` each, the message naming the field. */
export function locatedIssues(json: LocatedJson, error: z.ZodError, basePath: readonly PropertyKey[] = [], max = 3): Array<{ at: Position; message: string }> {
  const scoped = valueAt(json.value, basePath);
  return error.issues.flatMap((i) => unwrapUnion(i, scoped)).slice(0, max).map((issue) => {
    const path = [...basePath, ...issue.path];
    const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
    const field = path.length ? `field "${path.map(String).join(".")}"` : "the file";
    const missing = issue.code === "invalid_type" && valueAt(json.value, path) === undefined;
    const message =
      issue.code === "unrecognized_keys"
        ? `${field}: unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}${suggest(issue.keys[0] ?? "")}`
        : missing
          ? `${field}: missing (required)`
          : `${field}: ${issue.message}`;
    return { at: json.locate(path, unknownKey), message };
  });
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/**
 * zod reports a failed union as one "Invalid input"; the useful reason is in the branch whose type the value has
 * (an object given for string | object fails in the object branch). Branch issues get the union's path prefixed.
 */
function unwrapUnion(issue: z.core.$ZodIssue, value: unknown): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const typeMatched = issue.errors.find((branch) => !branch.some((i) => i.path.length === 0 && i.code === "invalid_type"));
  if (!typeMatched) {
    // No branch takes this kind of value: say which kinds would do.
    const expected = [...new Set(issue.errors.flatMap((b) => b.flatMap((i) => (i.code === "invalid_type" && i.path.length === 0 ? [i.expected === "int" ? "whole number" : i.expected] : []))))];
    return [{ ...issue, message: `Invalid input: expected ${expected.join(" or ")}, received ${kindOf(valueAt(value, issue.path))}` }];
  }
  return typeMatched.flatMap((i) => unwrapUnion({ ...i, path: [...issue.path, ...i.path] }, value));
}

const FIELD_NAMES = ["id", "name", "eval_name", "prompt", "expected_output", "files", "expectations", "assertions", "should_trigger", "skill_name", "evals", "defaults", "type", "value", "flags", "text", "criterion"];

/** A likely intended field for a typo (`expectation` → `expectations`). */
function suggest(key: string): string {
  const k = key.toLowerCase();
  const hit = FIELD_NAMES.find((f) => f !== k && (f.startsWith(k) || k.startsWith(f) || editDistance(f, k) <= 2));
  return hit ? ` (did you mean "${hit}"?)` : "";
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}
