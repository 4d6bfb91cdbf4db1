import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildReport, ReportSchema } from "../../../src/core/report/index.js";
import type { RunRecord } from "../../../src/core/runs/types.js";
import { header, rec } from "./fixtures.js";

const SKILLS = ["a", "b", "c"];
const task = fc.record({
  yMinus: fc.boolean(),
  yPlus: fc.boolean(),
  skills: fc.subarray(SKILLS),
  // About a third of tasks lack the disabled side (run in progress or cancelled).
  hasDisabled: fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)),
});

test("random logs: tables add up, per-skill tables are subsets of 'retrieved', identities hold, JSON validates", () => {
  fc.assert(
    fc.property(fc.array(task, { maxLength: 40 }), fc.boolean(), (tasks, exact) => {
      const ids = tasks.map((_, i) => `t${i}`);
      const records: RunRecord[] = [];
      tasks.forEach((t, i) => {
        records.push(rec(ids[i]!, "enabled", t.yPlus, t.skills));
        if (t.hasDisabled) records.push(rec(ids[i]!, "disabled", t.yMinus));
      });
      const report = buildReport([{ header: header({ taskIds: ids }, SKILLS), records }], { exact });
      ReportSchema.parse(JSON.parse(JSON.stringify(report)));
      const e = report.evaluations[0]!;
      const o = e.overall!;
      const r = e.retrieved;
      const nr = e.notRetrieved!;
      for (const k of ["n", "bothPass", "rescued", "harmed", "bothFail"] as const) assert.equal(o[k], r[k] + nr[k], k);
      assert.equal(o.n, tasks.filter((t) => t.hasDisabled).length);
      assert.equal(e.tasks.complete + e.tasks.incomplete, tasks.length);
      for (const s of e.skills) {
        assert.ok(s.table.n <= r.n && s.table.rescued <= r.rescued && s.table.harmed <= r.harmed);
        assert.equal(s.rescuedTasks.length, s.table.rescued);
        assert.equal(s.harmedTasks.length, s.table.harmed);
        if (s.pHolm !== null) assert.ok(s.pHolm >= (exact ? s.table.pExact! : s.table.pMid!) - 1e-15);
      }
      const m = e.metrics;
      if (m.OAE !== null && m.RAE !== null && m.NRAE !== null) {
        assert.ok(Math.abs(m.retrievalRate! * m.RAE + (1 - m.retrievalRate!) * m.NRAE - m.OAE) < 1e-12);
        assert.ok(Math.abs(m.selectionTerm! + m.RAE - m.NRAE - e.lift!) < 1e-12);
      }
      assert.equal(m.paradox, e.lift !== null && m.RAE !== null && e.lift * m.RAE < 0);
      assert.equal(e.pairs.length, o.n);
      assert.equal(e.taskRows.length, o.rescued + o.harmed);
    }),
    { numRuns: 150, seed: 4 },
  );
});
