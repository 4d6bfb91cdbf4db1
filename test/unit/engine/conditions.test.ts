import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { firstRequest } from "../../../src/core/agent/loop.js";
import { extractPythonCode } from "../../../src/core/agent/extract.js";
import { SkillLibrary } from "../../../src/core/retrieval/library.js";
import { mathTask, pythonTask, skill } from "./helpers.js";

const lib = (mode: "catalog" | "search") =>
  new SkillLibrary([skill("edge-cases", "Handle empty lists and None.", "Check len(xs) == 0 first.")], mode);

describe("the two conditions differ only in skill access", () => {
  for (const mode of ["catalog", "search"] as const) {
    for (const task of [pythonTask("t/1", "add", "def add(a, b):\n    return a + b\n", [[1, 2]]), mathTask("m/1", "What is 2+2?", "4")]) {
      it(`${mode} mode, ${task.kind}`, () => {
        const params = { temperature: 0.2, seed: 7, maxTokens: 512 };
        const enabled = firstRequest({ task, condition: "enabled", library: lib(mode), model: "m", params });
        const disabled = firstRequest({ task, condition: "disabled", library: lib(mode), model: "m", params });

        // Disabled has no tools key at all (not an empty list).
        assert.equal("tools" in disabled, false);
        assert.ok(enabled.tools && enabled.tools.length === 1);

        const { tools: _t, messages: em, ...eRest } = enabled;
        const { messages: dm, ...dRest } = disabled;
        assert.deepEqual(eRest, dRest, "model and sampling parameters are identical");
        assert.equal(em.length, 2);
        assert.equal(dm.length, 2);
        assert.deepEqual(em[1], dm[1], "the user message (task prompt + answer format) is identical");
        assert.equal(em[0]!.role, "system");
        const es = em[0]!.content as string;
        const ds = dm[0]!.content as string;
        // The enabled system prompt is the disabled one plus the skill section, nothing else.
        assert.ok(es.startsWith(ds), "enabled system prompt extends the disabled one");
        assert.equal(es.slice(ds.length), `\n\n${lib(mode).systemSection()}`);
        assert.ok(!ds.toLowerCase().includes("skill"), "no skill wording leaks into the disabled prompt");
      });
    }
  }

  it("the user message carries the task prompt verbatim", () => {
    const task = mathTask("m/2", "Janet has 16 eggs.\nShe eats 3. How many are left?", "13");
    const req = firstRequest({ task, condition: "disabled", library: lib("catalog"), model: "m", params: {} });
    assert.ok((req.messages[1]!.content as string).startsWith(task.prompt));
    assert.match(req.messages[1]!.content as string, /\\boxed/);
  });
});

describe("python answer extraction", () => {
  it("takes the last fenced python block", () => {
    const text = "First try:\n```python\ndef f():\n    return 1\n```\nBetter:\n```python\ndef f():\n    return 2\n```\nDone.";
    assert.equal(extractPythonCode(text), "def f():\n    return 2\n");
  });
  it("prefers a tagged python block over a later untagged one", () => {
    const text = "```py\ndef f():\n    return 1\n```\nOutput:\n```\n1\n```";
    assert.equal(extractPythonCode(text), "def f():\n    return 1\n");
  });
  it("falls back to an untagged block, ignores other languages, handles CRLF", () => {
    assert.equal(extractPythonCode("```\r\ndef g(): pass\r\n```\r\n"), "def g(): pass\n");
    assert.equal(extractPythonCode("```js\nlet x = 1\n```"), null);
    assert.equal(extractPythonCode("def f(): return 1"), null);
    assert.equal(extractPythonCode("```python\n\n```"), null);
  });
  it("keeps inner backticks of a longer fence", () => {
    const text = "````python\ns = '```'\ndef f():\n    return s\n````";
    assert.equal(extractPythonCode(text), "s = '```'\ndef f():\n    return s\n");
  });
});
