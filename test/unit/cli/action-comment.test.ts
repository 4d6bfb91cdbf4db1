/**
 * The GitHub Action's pull-request comment (action.yml `comment: true`, dist/pr-comment.js), run through action.yml's
 * own steps as a runner would (test/support/github-action.ts: the event payload in GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
 * GITHUB_API_URL, `github.token` as the github-token input's default) against a fake GitHub API over real HTTP
 * (test/support/fake-github.ts): one comment per key, found again by its marker across pages and updated in place; a
 * token that cannot write and a failing or unreachable API are warnings, never a failed job; the token reaches no output, no file and
 * no other host; a report longer than GitHub's limit is cut with a note.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { commentBody, GITHUB_COMMENT_LIMIT, marker } from "../../../src/cli/pr-comment.js";
import { startFakeGitHub, type FakeGitHub } from "../../support/fake-github.js";
import { runAction, type RunnerContext } from "../../support/github-action.js";
import { closedPort } from "../../support/ports.js";
import { libraryRun, LIBRARY, type SkillOutcomes } from "../../support/report-fixture.js";
import { repoRoot } from "./harness.js";

const TOKEN = "ghs_TEST-token-0123456789abcdefXYZ";
const REPO = "acme/skills";
const PR = 7;
let gh: FakeGitHub;

before(async () => {
  gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
});
after(async () => {
  await gh?.close();
});

function workspace(skills: SkillOutcomes[] = LIBRARY): string {
  const ws = mkdtempSync(path.join(os.tmpdir(), "sf-action-comment-"));
  const run = libraryRun(skills);
  writeFileSync(path.join(ws, "run.jsonl"), `${[run.header, ...run.records].map((x) => JSON.stringify(x)).join("\n")}\n`);
  return ws;
}

const runner = (over: Partial<RunnerContext> = {}): RunnerContext => ({
  token: TOKEN,
  eventName: "pull_request",
  event: { action: "synchronize", number: PR, pull_request: { number: PR } },
  repository: REPO,
  apiUrl: gh.url,
  serverUrl: "https://github.example",
  runId: "4242",
  workflow: "skills",
  job: "report",
  ...over,
});

async function report(ws: string, inputs: Record<string, string>, over: Partial<RunnerContext> = {}) {
  const summary = path.join(ws, "summary.md");
  const r = await runAction(repoRoot, { command: "report", runs: "run.jsonl", out: "report.md", comment: "true", ...inputs }, { workspace: ws, env: { PATH: process.env.PATH ?? "", HOME: ws }, summary, runner: runner(over) });
  return { ...r, commented: r.steps.find((s) => s.step === "Comment on the pull request")?.status };
}

/** Every file under `dir`, read whole: the token must be in none of them. */
function filesHolding(dir: string, needle: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(path.join(dir, f)).isFile() && readFileSync(path.join(dir, f), "utf8").includes(needle));
}

const ours = (key: string) => gh.comments(PR).filter((c) => c.body.startsWith(marker(key)));

describe("action.yml comment: one pull-request comment per report, updated in place", () => {
  it("posts the report as one comment, finds it again on the second page of 150 comments and updates it; another key gets its own", async () => {
    gh.seed(PR, Array.from({ length: 150 }, (_, i) => `review comment ${i}`));
    const ws = workspace();
    gh.requests.length = 0;
    const first = await report(ws, {});
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.commented, "ran");
    assert.match(first.stdout, /::notice::skill-following: created the pull request's comment https:\/\/github\.example\/acme\/skills\/pull\/0#issuecomment-\d+/);
    const key = "skills/report/report.md";
    assert.equal(ours(key).length, 1);
    assert.equal(ours(key)[0]!.body, `${marker(key)}\n${readFileSync(path.join(ws, "report.md"), "utf8")}`);
    assert.match(ours(key)[0]!.body, /^<!-- skill-following:skills\/report\/report\.md -->\n### Skill Following — model\\-one/);
    assert.deepEqual(
      gh.requests.map((r) => `${r.method} ${r.path}`),
      [`GET /repos/${REPO}/issues/${PR}/comments?per_page=100`, `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`, `POST /repos/${REPO}/issues/${PR}/comments`],
    );

    gh.requests.length = 0;
    const again = await report(workspace([{ name: "money", rescued: 0, harmed: 2, bothPass: 3, bothFail: 0 }]), {});
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /::notice::skill-following: updated the pull request's comment/);
    assert.deepEqual(gh.requests.map((r) => r.method), ["GET", "GET", "PATCH"]);
    assert.equal(gh.requests[2]!.path, `/repos/${REPO}/issues/comments/${ours(key)[0]!.id}`);
    assert.equal(ours(key).length, 1, "still one comment for this key");
    assert.match(ours(key)[0]!.body, /\| money \| 5 \| 0 \| 2 \|/, "the comment now holds the new report");
    assert.equal(gh.comments(PR).length, 151);

    const other = await report(ws, { "comment-key": "model=gpt-4.1-mini" });
    assert.equal(other.code, 0, other.stderr);
    assert.equal(ours("model=gpt-4.1-mini").length, 1);
    assert.equal(ours(key).length, 1);
    assert.equal(gh.comments(PR).length, 152);
    assert.ok(gh.requests.every((r) => r.authorized), "every request carried the github-token input (github.token by default)");
    for (const r of [first, again, other]) assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN), "the token is not printed");
    assert.deepEqual(filesHolding(ws, TOKEN), [], "the token is written to no file");
  });

  it("a fork's read-only token (403), a failing API (502), a refused token (401) and no network are warnings that say why; the job's result stays the report's", async () => {
    const ws = workspace();
    gh.failWrites(403);
    try {
      const fork = await report(ws, { "comment-key": "fork" });
      assert.equal(fork.code, 0, fork.stderr);
      assert.equal(fork.commented, "ran");
      assert.match(fork.stdout, /::warning::skill-following: the pull request's comment was not posted: creating the comment on pull request #7: GitHub's API answered 403 \(Resource not accessible by integration\): the token may not write comments: a pull request from a fork gets a read-only GITHUB_TOKEN/);
      assert.equal(ours("fork").length, 0);

      gh.failWrites(502);
      const harmful = workspace([{ name: "money", rescued: 0, harmed: 10, bothPass: 4, bothFail: 1 }]);
      const down = await report(harmful, { "comment-key": "down", "fail-on": "harmful" });
      assert.equal(down.code, 3, "the gate fails the job, not the comment");
      assert.equal(down.commented, "ran", "the comment is attempted after the gate failed the report step");
      assert.match(down.stdout, /::warning::.*GitHub's API answered 502 \(Server Error\): GitHub's API is unavailable or rate-limited for now/);
      for (const r of [fork, down]) assert.ok(!`${r.stdout}${r.stderr}`.includes(TOKEN));
    } finally {
      gh.failWrites(undefined);
    }
    const refused = await report(ws, { "comment-key": "bad-token", "github-token": "ghs_wrong" });
    assert.equal(refused.code, 0);
    assert.match(refused.stdout, /::warning::.*answered 401 \(Bad credentials\): the token was refused/);
    const offline = await report(ws, {}, { apiUrl: `http://127.0.0.1:${await closedPort()}` });
    assert.equal(offline.code, 0);
    assert.match(offline.stdout, /::warning::skill-following: the pull request's comment was not posted: listing the comments of pull request #7: no answer from http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it("no request at all: on a push event (a notice), with comment: false (the step is skipped), for a report that is not Markdown (a warning)", async () => {
    const ws = workspace();
    gh.requests.length = 0;
    const push = await report(ws, {}, { eventName: "push", event: { ref: "refs/heads/main" } });
    assert.equal(push.code, 0, push.stderr);
    assert.match(push.stdout, /::notice::skill-following: no comment: the event is push, not pull_request/);
    const off = await report(ws, { comment: "false" });
    assert.equal(off.commented, "skipped");
    const json = await report(ws, { format: "json", out: "report.json" });
    assert.match(json.stdout, /::warning::skill-following: comment needs format: markdown \(this report is json\)/);
    assert.deepEqual(gh.requests, []);
  });

  it("a pagination link to another host is not followed: the token goes to the API's origin only", async () => {
    const elsewhere = await startFakeGitHub({ token: TOKEN, repository: REPO });
    gh.nextOrigin(elsewhere.url);
    try {
      const r = await report(workspace(), { "comment-key": "links" });
      assert.equal(r.code, 0);
      assert.match(r.stdout, /::warning::.*refusing to send the token to http:\/\/127\.0\.0\.1:\d+, which is not the API's origin/);
      assert.deepEqual(elsewhere.requests, []);
      assert.equal(ours("links").length, 0);
    } finally {
      gh.nextOrigin(undefined);
      await elsewhere.close();
    }
  });

  it("a report longer than GitHub's 65,536 characters is cut below the limit, with a note linking the run's summary", async () => {
    const ws = workspace(["a", "b", "c"].map((n) => ({ name: `skill-with-a-long-name-${n}`, rescued: 1500, harmed: 1500, bothPass: 10, bothFail: 0 })));
    const r = await report(ws, { "comment-key": "big" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /::notice::skill-following: created the pull request's comment .* \(the report is cut to GitHub's comment limit; the job summary has it whole\)/);
    const full = readFileSync(path.join(ws, "report.md"), "utf8");
    assert.ok(full.length > 2 * GITHUB_COMMENT_LIMIT, "the report is long enough to need the cut");
    assert.equal(readFileSync(path.join(ws, "summary.md"), "utf8"), full, "the job summary has the whole report");
    const body = ours("big")[0]!.body;
    assert.ok(body.length <= GITHUB_COMMENT_LIMIT);
    assert.match(body, new RegExp(`\\*\\*This report is cut\\*\\* at [\\d,]+ of ${full.length.toLocaleString("en-US")} characters .* The whole report is in the \\[workflow run's summary\\]\\(https://github\\.example/acme/skills/actions/runs/4242\\)\\.\\n$`));
    const cut = body.slice(body.indexOf("\n") + 1, body.indexOf("\n\n---\n**This report is cut**"));
    assert.equal((cut.match(/<details>/g) ?? []).length, (cut.match(/<\/details>/g) ?? []).length, "no <details> left open");
  });
});

describe("commentBody", () => {
  const limit = GITHUB_COMMENT_LIMIT;
  it("keeps a report that fits whole, after the marker", () => {
    assert.deepEqual(commentBody("# r\n", "k", ""), { body: "<!-- skill-following:k -->\n# r\n", truncated: false });
  });
  it("cuts at a line end, closes an open code fence, never splits a surrogate pair or leaves a dangling escape", () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `| row ${i} | ${"x".repeat(20)} |`);
    const fenced = commentBody(`intro\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n`, "k", "https://github.example/r/actions/runs/1");
    assert.ok(fenced.truncated && fenced.body.length <= limit);
    assert.match(fenced.body, /\| row \d+ \| x{20} \|\n```\n\n---\n\*\*This report is cut\*\*/);
    const emoji = commentBody(`${"😀".repeat(40_000)}`, "k", "");
    assert.ok(emoji.body.length <= limit);
    assert.doesNotMatch(emoji.body, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, "no lone high surrogate");
    const escaped = commentBody(`ids: ${"a\\_b ".repeat(20_000)}`, "k", "");
    assert.match(escaped.body, /a\\_b …\n\n---\n/);
  });
  it("the marker's key cannot close the HTML comment", () => {
    assert.equal(marker("a --> <b> c"), "<!-- skill-following:a_-_b_c -->");
    assert.equal(marker(""), "<!-- skill-following:report -->");
  });
});
