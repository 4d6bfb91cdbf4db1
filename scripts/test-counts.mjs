// A node:test reporter (node --test --test-reporter=./scripts/test-counts.mjs): counts what node's own runner
// reports, from its events rather than from any reporter's text, and writes one JSON object when the run ends:
//   { passed, failed, cancelled, skipped, todo, skippedSuites: [{ file, name, reason }], failures: [{ file, name }],
//     fileMs: { file: ms } }
// Tests are the leaves (suites are not counted, as in node's own summary). A skipped suite counts once and is named,
// since its tests never run and so are never reported. A suite that fails outside its tests (a hook, a file that
// throws) counts as a failure; "subtests failed" does not count twice. fileMs sums each file's top-level durations.
export default async function* counts(source) {
  const c = { passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, skippedSuites: [], failures: [], fileMs: {} };
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const d = event.data;
    const suite = d.details?.type === "suite";
    const file = d.file ?? "(unknown file)";
    if (d.nesting === 0) c.fileMs[file] = (c.fileMs[file] ?? 0) + (d.details?.duration_ms ?? 0);
    const todo = d.todo !== undefined && d.todo !== false;
    if (event.type === "test:fail" && todo) {
      c.todo++;
      continue;
    }
    if (event.type === "test:fail") {
      const kind = d.details?.error?.failureType;
      if (kind === "cancelledByParent") c.cancelled++;
      else if (!suite || kind !== "subtestsFailed") {
        c.failed++;
        c.failures.push({ file, name: d.name });
      }
      continue;
    }
    if (d.skip !== undefined && d.skip !== false) {
      c.skipped++;
      if (suite || d.nesting === 0) c.skippedSuites.push({ file, name: d.name, reason: typeof d.skip === "string" ? d.skip : "" });
    } else if (todo) {
      if (!suite) c.todo++;
    } else if (!suite) {
      c.passed++;
    }
  }
  yield `${JSON.stringify(c)}\n`;
}
