/**
 * Host-side inputs in linear time (issue 10 item 5): what the model writes (answer extraction) and what a skill
 * author writes (SKILL.md parse, lint, hash and section split) is read by the host, in the editor on every
 * keystroke. Each is bounded in CPU work per character, at the largest input the product reads, on hostile shapes
 * and on random mixes of hostile fragments. The code these functions replaced breaks the same bounds (last block).
 * CPU time, never elapsed time: see test/support/work-bound.ts.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import MarkdownIt from "markdown-it";
import fc from "fast-check";
import { MAX_REPLY_CHARS, extractPythonCode } from "../../../src/core/agent/extract.js";
import { createMathGrader, extractMathAnswer } from "../../../src/core/grading/math.js";
import { MAX_FRONTMATTER_BYTES } from "../../../src/core/skills/frontmatter.js";
import { MAX_SKILL_FILE_BYTES, parseSkill } from "../../../src/core/skills/parse.js";
import { splitSkillSections } from "../../../src/core/skills/sections.js";
import { normaliseSkillContent } from "../../../src/core/skills/hash.js";
import type { MathAnswerTask } from "../../../src/core/tasks/schema.js";
import { oldExtractPythonCode, oldGroupBlocks, oldLastAnswerLine, oldNormaliseSkillContent, oldReadFrontmatter } from "../../support/pre-linear.js";
import { cpuMicros, cpuMicrosAsync, describeWork, fill, machineFactor, work, type Work } from "../../support/work-bound.js";

// Budgets in CPU ns per character on the reference machine, about 5x the worst shape measured there (in brackets),
// so they fail only on super-linear work; scaled up on a slower machine.
const EXTRACT_NS = 1_000; // answer extraction, python and math [~140]
const FRONTMATTER_NS = 15_000; // the YAML parser's constant per character is large [~6,000]
const BODY_NS = 8_000; // markdown block parse, one section per line in the worst shapes [~3,100]
const budget = (ns: number) => (ns * machineFactor()) / 1000; // µs per char

/** Asserts the bound and reports the measure (node:test prints diagnostics with the test). */
function assertWithin(t: TestContext, name: string, w: Work, ns: number): void {
  t.diagnostic(`${name}: ${describeWork(w)}`);
  assert.ok(w.perChar <= budget(ns), `${name}: ${describeWork(w)}, over the budget of ${(budget(ns) * 1000).toFixed(0)} ns/char`);
}

/**
 * Asserts that replaced code does super-linear work: per character, its work at twice the size is at least 1.25× its
 * work at the size (quadratic code doubles; linear code stays level, within noise; the old duplicate-key check, whose
 * linear YAML parse still weighs at these sizes, measured 1.48–1.69). Both sizes are measured moments apart, so a
 * busy or fast machine moves both alike; used where the old code's constant is small enough that, at sizes a test can
 * afford, it sits near the budget (one CI run measured it under, another 60% over).
 */
function assertGrows(t: TestContext, chars: number, prepare: (chars: number) => () => unknown): void {
  prepare(4096)();
  const measure = (n: number): Work => {
    const run = prepare(n);
    const best = Math.min(cpuMicros(run), cpuMicros(run));
    return { perChar: best / n, cpuMs: best / 1000, chars: n };
  };
  const small = measure(chars);
  const large = measure(2 * chars);
  t.diagnostic(`${describeWork(small)}; ${describeWork(large)}`);
  assert.ok(large.perChar >= 1.25 * small.perChar, `work per character did not grow with the size: ${describeWork(small)}; ${describeWork(large)}`);
}

/** Asserts that replaced code breaks a bound by `factor`, and reports the measure. */
function assertBreaks(t: TestContext, w: Work, ns: number, factor = 1): void {
  t.diagnostic(describeWork(w));
  assert.ok(w.perChar > budget(ns) * factor, `${describeWork(w)}: within ${factor}x the budget of ${(budget(ns) * 1000).toFixed(0)} ns/char`);
}

const REPLY_SHAPES: Record<string, string> = {
  "unclosed fences with an info string": "````x\n",
  "bare fences": "```\n",
  "fences of growing length": Array.from({ length: 300 }, (_, i) => "`".repeat(3 + i) + "\n").join(""),
  "deeply indented openers": " ".repeat(2000) + "```python\n",
  "code with long trailing blanks": "```python\nx = 1" + " ".repeat(4000) + "\n```\n",
  "tilde fences of two lengths": "~~~~\n~~~\n",
  "CRLF python blocks": "```py\r\nx\r\n",
  "mixed fences": "```python\ncode\n````\n~~~\n```\n",
  "bare Answer: lines with a backtick": "Answer: `\n`\n",
  "a backtick run": "`",
  "unclosed boxes": "\\boxed{",
  "boxes without braces": "\\boxed ",
  "hash lines": "#### \n",
  "answer lines": "final answer is : \n",
  "number-like runs": "1,234,",
  "dollars": "$$",
};

describe("answer extraction reads a reply at the cap in linear time", () => {
  for (const [name, unit] of Object.entries(REPLY_SHAPES)) {
    it(name, (t) => {
      const text = fill(unit, MAX_REPLY_CHARS);
      assertWithin(t, `python, ${name}`, work(text, extractPythonCode), EXTRACT_NS);
      assertWithin(t, `math, ${name}`, work(text, extractMathAnswer), EXTRACT_NS);
    });
  }

  it("the math grader's whole path (extract, then compare) on hostile replies", async (t) => {
    const grader = createMathGrader();
    const task: MathAnswerTask = { id: "m/1", kind: "math-answer", prompt: "p", answer: "\\frac{1}{2}" };
    for (const unit of ["\n \n", "{}", "\\frac{1}{", "1 ", "Answer: x`", "(", "\\left("]) {
      const reply = `\\boxed{${fill(unit, MAX_REPLY_CHARS - 10)}}`;
      const us = await cpuMicrosAsync(() => grader.grade(task, extractMathAnswer(reply)));
      t.diagnostic(`${JSON.stringify(unit)}: ${(us / 1000).toFixed(1)} ms of CPU`);
      assert.ok(us / reply.length <= budget(EXTRACT_NS) * 2, `${JSON.stringify(unit)}: ${(us / 1000).toFixed(0)} ms of CPU`);
    }
  });

  it("random mixes of hostile fragments, up to the cap", (t) => {
    const fragment = fc.constantFrom("```", "````", "~~~", "```python", "```py", "\n", "\n", " ", "\t", "`", "x", "\r\n", "Answer:", "final answer is", "\\boxed{", "\\boxed", "{", "}", "####", "$", "**", "1,234", ".5");
    fc.assert(
      fc.property(fc.array(fragment, { minLength: 1, maxLength: 40 }), fc.integer({ min: MAX_REPLY_CHARS / 4, max: MAX_REPLY_CHARS }), (parts, size) => {
        const text = fill(parts.join(""), size);
        assertWithin(t, `python ${JSON.stringify(parts.join(""))}`, work(text, extractPythonCode, 1), EXTRACT_NS);
        assertWithin(t, `math ${JSON.stringify(parts.join(""))}`, work(text, extractMathAnswer, 1), EXTRACT_NS);
      }),
      { numRuns: 12, seed: 10_5 },
    );
  });
});

const skill = (frontmatter: string, body = "Body.\n") => `---\nname: a\ndescription: b\n${frontmatter}\n---\n${body}`;
/** Frontmatter fills up to just under the cap, so the parser reads the most it ever reads. */
const FM = MAX_FRONTMATTER_BYTES - 64;
const keys = (chars: number) => {
  const out: string[] = [];
  for (let i = 0, n = 0; n < chars; i++) {
    const line = `k${i}: v`;
    out.push(line);
    n += line.length + 1;
  }
  return out.join("\n").slice(0, chars);
};

const FRONTMATTER_SHAPES: Record<string, string> = {
  "thousands of unknown fields": keys(FM),
  "one key repeated": fill("a: 1\n", FM),
  "anchors": fill("&a ", FM),
  "tags": fill("!t ", FM),
  "double quotes": fill('"', FM),
  "flow brackets": fill("[", FM),
  "flow maps": fill("{a: ", FM),
  "metadata with thousands of entries": "metadata:\n" + keys(Math.floor((FM - 20) / 1.3)).replace(/^/gm, "  "),
  "block sequences": fill(" - ", FM),
  "implicit keys in a row": fill("a: b: c\n", FM),
  "explicit keys": fill("? ", FM),
  "lines of blanks": fill(" ".repeat(3000) + "x\n", FM),
};

describe("SKILL.md parse, lint and section split read a frontmatter at the cap in linear time", () => {
  for (const [name, fm] of Object.entries(FRONTMATTER_SHAPES)) {
    it(name, (t) => {
      const text = skill(fm);
      assertWithin(t, `parse, ${name}`, work(text, (x) => parseSkill("/s/a/SKILL.md", x)), FRONTMATTER_NS);
      assertWithin(t, `sections, ${name}`, work(text, splitSkillSections), FRONTMATTER_NS);
    });
  }
  it("a frontmatter over the cap is refused before the YAML parser sees it (the 589 KB, 60,000-field file)", (t) => {
    const text = skill(keys(589 * 1024));
    const w = work(text, (x) => parseSkill("/s/a/SKILL.md", x));
    assertWithin(t, "parse, 60,000 fields", w, BODY_NS);
    assert.deepEqual(parseSkill("/s/a/SKILL.md", text).findings.map((f) => f.code), ["frontmatter-too-large"]);
  });
});

const BODY = MAX_SKILL_FILE_BYTES - 1024;
const BODY_SHAPES: Record<string, string> = {
  "code fences": "```\n",
  "setext headings": "a\n===\n",
  "thematic breaks": "---\n",
  "reference definitions": "[a]:\n",
  "open brackets": "[a\n",
  "nested lists": "- a\n  ",
  "lazy quotes": "> a\nb\n",
  "unclosed comments": "<!--\n",
  "emphasis": "*a",
  "lines of blanks": " ".repeat(5000) + "x\n",
};

describe("SKILL.md parse, hash and section split read a body in linear time", () => {
  // A quarter of the file cap per shape (the per-character cost of super-linear code grows with the size, and at a
  // quarter of the cap it is already far over the budget); the worst shape at the full cap.
  for (const [name, unit] of Object.entries(BODY_SHAPES)) {
    it(name, (t) => {
      const text = skill("", fill(unit, BODY / 4));
      assertWithin(t, `parse, ${name}`, work(text, (x) => parseSkill("/s/a/SKILL.md", x), 1), BODY_NS);
      assertWithin(t, `sections, ${name}`, work(text, splitSkillSections, 1), BODY_NS);
    });
  }
  it("a heading on every line, at the 1 MB cap", (t) => {
    const text = skill("", fill("# h\n", BODY));
    assertWithin(t, "parse, headings", work(text, (x) => parseSkill("/s/a/SKILL.md", x), 1), BODY_NS);
    assertWithin(t, "sections, headings", work(text, splitSkillSections, 1), BODY_NS);
  });

  it("random mixes of markdown and YAML fragments, the frontmatter at its cap", (t) => {
    const md = fc.constantFrom("# ", "## ", "```", "~~~", "\n", "\n", " ", "    ", "- ", "> ", "* * *", "===", "[a]: ", "<div>", "<!--", "*", "`", "x", "\t", "|");
    const yaml = fc.constantFrom("a: ", "b: ", "\n", " ", "- ", "? ", "[", "{", "]", "}", "&a ", "*a", "!t ", '"', "'", "#", ",", "x");
    fc.assert(
      fc.property(fc.array(yaml, { minLength: 1, maxLength: 30 }), fc.array(md, { minLength: 1, maxLength: 30 }), fc.integer({ min: BODY / 16, max: BODY / 4 }), (fm, body, size) => {
        const text = skill(fill(fm.join(""), FM).replace(/^---$/gm, "- -"), fill(body.join(""), size));
        const name = `${JSON.stringify(fm.join(""))} / ${JSON.stringify(body.join(""))}`;
        assertWithin(t, `parse ${name}`, work(text, (x) => parseSkill("/s/a/SKILL.md", x), 1), FRONTMATTER_NS);
        assertWithin(t, `sections ${name}`, work(text, splitSkillSections, 1), FRONTMATTER_NS);
      }),
      { numRuns: 8, seed: 10_5 },
    );
  });

  it("content hashing of a line of 1 MB of blanks", (t) => {
    assertWithin(t, "hash", work(fill(" ".repeat(BODY - 1) + "x\n", BODY), normaliseSkillContent), EXTRACT_NS);
  });
});

describe("the code these functions replaced breaks the same bounds", () => {
  // Sizes far below the caps, chosen so that each old function finishes within a few seconds of CPU.
  it("the fence regex on unclosed fences (a 320 KB reply took 109 s)", (t) => {
    assertBreaks(t, work(fill("````x\n", 32 * 1024), oldExtractPythonCode, 1), EXTRACT_NS, 4);
  });
  it("the fence regex's trailing-blank trim", (t) => {
    assertBreaks(t, work("```\nx" + " ".repeat(24 * 1024) + "y\n```\n", oldExtractPythonCode, 1), EXTRACT_NS, 4);
  });
  it("the Answer: line search (a 1 MB reply took 72 s)", (t) => {
    assertBreaks(t, work(fill("Answer: `\n`\n", 160 * 1024), oldLastAnswerLine, 1), EXTRACT_NS);
  });
  it("the backtick strip of an Answer: line", (t) => {
    assertBreaks(t, work(`Answer: x${"`".repeat(16 * 1024)}y`, oldLastAnswerLine, 1), EXTRACT_NS, 4);
  });
  it("the library's duplicate-key check without a frontmatter cap (589 KB took 67 s)", (t) => {
    assertGrows(t, 128 * 1024, (n) => {
      const text = skill(keys(n));
      return () => oldReadFrontmatter(text);
    });
  });
  it("the per-line trailing-blank regex of the content hash", (t) => {
    assertBreaks(t, work(" ".repeat(24 * 1024) + "x", oldNormaliseSkillContent, 1), BODY_NS);
  });
  it("the section grouping of code blocks", (t) => {
    // The markdown parse is set-up, not timed: the old grouping read its token list.
    assertGrows(t, 96 * 1024, (n) => {
      const types = new MarkdownIt("commonmark").parse(fill("```\n", n), {}).filter((k) => k.level === 0 && k.nesting !== -1).map((k) => k.type);
      return () => oldGroupBlocks(types);
    });
  });
});
