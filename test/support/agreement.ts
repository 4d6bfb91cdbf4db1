/**
 * The judge votes the CLI judge-repeats test scripts (test/unit/skill-evals/cli.test.ts): ten graded items, three
 * repeats each. Shared so the statistics are checked on the same numbers in a unit test.
 */
export function agreementRows(): boolean[][] {
  const T = true;
  const F = false;
  return [
    [T, T, T], // release-notes/1 enabled
    [T, T, T], // release-notes/1 disabled
    [T, F, T], // release-notes/2 enabled
    [T, F, T], // release-notes/2 disabled
    [F, F, F], // release-notes/3 enabled
    [T, T, T], // release-notes/3 disabled
    [F, F, F], // csv-report/empty enabled
    [F, F, F], // csv-report/empty disabled
    [T, T, F], // commit-style/1 enabled
    [T, T, T], // commit-style/1 disabled
  ];
}
