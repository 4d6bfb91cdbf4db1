/**
 * Reference answers to the shipped example skills' own evals (skills/<name>/evals/evals.json), a good one and a bad
 * one per case (test code only): the examples test holds every check to them, and the code-server test's scripted
 * model answers with them.
 */
/** A good and a bad answer per case: every check passes the good one; at least one fails the bad one. */
export const REFERENCE: Record<string, { good: string; bad: string }> = {
  "release-notes/1": {
    good: "## 2.0.0\n\n### Breaking changes\nThe --legacy flag is removed. To upgrade, use --format v1 instead.\n\n### Features\nAdds `export --csv` for spreadsheets.\n\n### Fixes\nFixed a crash when the config file is empty (#212).\nFixed the wrong exit code when --help is given (#215).\n",
    bad: "- feat!: remove the --legacy flag\n- chore: bump eslint to 9.12\n- fix: crash when the config file is empty\n",
  },
  "release-notes/2": {
    good: "## 2.0.1\n\n### Fixes\nFixed a crash when the config file is empty (#212).\nFixed the wrong exit code on --help (#215).\n",
    bad: "## 2.0.1\n\n### Breaking changes\nNone.\n",
  },
  "release-notes/3": { good: "- Removed an old option\n- Added CSV export\n- Fixed two bugs", bad: "### Features\n- CSV export" },
  "regex-pitfalls/validate-zip": {
    good: '```python\nimport re\n\ndef is_zip(s):\n    return bool(re.fullmatch(r"\\d{5}", s))\n```',
    bad: '```python\nimport re\n\ndef is_zip(s):\n    return re.match("\\\\d{5}$", s)\n```',
  },
  "regex-pitfalls/strip-tags": { good: 're.sub(r"<.*?>", "", s)  # lazy: stops at the first >', bad: 're.sub(r"<.*>", "", s)' },
  "regex-pitfalls/split-words": { good: 're.split(r",\\s*", "a, b,c")', bad: 're.split(r"(,)\\s*", "a, b,c")' },
  "word-problem-units/1": { good: "20 minutes is 1/3 hour, so 90 × 1/3 = 30 km.\n30", bad: "90 × 20 = 1800\n1800" },
  "word-problem-units/2": { good: "12 × 75 cents = 900 cents = $9.00", bad: "12 × 75 = 900 dollars" },
  "word-problem-units/3": { good: "0.15 × 80 = 12", bad: "0.15 × 80 = 1.2" },
};

