/**
 * The GitHub Action's pull-request comment (action.yml, `comment: true`): one comment per report key, found again by
 * a hidden marker and updated in place, so a re-run or a new push edits the comment instead of adding one. GitHub's
 * REST API through Node's own fetch. Nothing here fails the job: a token that cannot write (a fork's read-only
 * GITHUB_TOKEN, a job without `pull-requests: write`), an API error or no network becomes a warning that says why.
 * The token goes into the Authorization header of requests to the API's own origin and nowhere else: not into a
 * message, a file or a request to any other host (a pagination link elsewhere is not followed).
 */
import { readFileSync } from "node:fs";

/** GitHub refuses a comment body longer than 65,536 characters; the cut leaves room for the marker and the note. */
export const GITHUB_COMMENT_LIMIT = 65_536;
const BODY_BUDGET = GITHUB_COMMENT_LIMIT - 1_024;
const PER_PAGE = 100;
/** A runaway pagination (a server whose `next` never ends) stops here: 100 pages of 100 comments. */
const MAX_PAGES = 100;

export interface CommentEnv {
  token: string;
  /** The report file (Markdown). */
  report: string;
  /** What keeps this comment apart from the other reports' comments on the pull request (e.g. a matrix cell's). */
  key: string;
  eventName: string;
  eventPath: string;
  repository: string;
  apiUrl: string;
  /** Where the job summary and the run's artifacts are: the workflow run's page. */
  runUrl: string;
}

export type CommentOutcome =
  | { kind: "created" | "updated"; url: string; truncated: boolean }
  | { kind: "skipped"; reason: string }
  | { kind: "failed"; reason: string };

/** `<!-- skill-following:<key> -->`: the key keeps only characters that cannot end an HTML comment or break a line. */
export function marker(key: string): string {
  const clean = key.replace(/[^\w./:@+=-]+/g, "_").replace(/-{2,}/g, "-").slice(0, 200);
  return `<!-- skill-following:${clean || "report"} -->`;
}

/**
 * The comment: marker, then the report; a report too long for GitHub is cut at a line end (never inside a surrogate
 * pair, an open code fence closed) and says so, with a link to the run where the job summary holds it whole.
 */
export function commentBody(report: string, key: string, runUrl: string): { body: string; truncated: boolean } {
  const head = `${marker(key)}\n`;
  if (head.length + report.length <= GITHUB_COMMENT_LIMIT) return { body: head + report, truncated: false };
  let cut = report.slice(0, BODY_BUDGET - head.length);
  const lastLine = cut.lastIndexOf("\n");
  if (lastLine > cut.length / 2) {
    cut = cut.slice(0, lastLine);
  } else {
    // One long line (a list of task ids): cut after a word, never inside a Markdown escape or a surrogate pair.
    const lastSpace = cut.search(/\s\S*$/);
    if (lastSpace > cut.length / 2) cut = cut.slice(0, lastSpace);
    cut = `${cut.replace(/[\uD800-\uDBFF]$/, "").replace(/\\+$/, "")} …`;
  }
  const fences = cut.split("\n").filter((l) => /^\s*(```|~~~)/.test(l)).length;
  if (fences % 2 === 1) cut += "\n```";
  // The report folds its task lists into <details>: close what the cut left open, so the note below is not folded in.
  const open = (cut.match(/<details\b/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < open; i++) cut += "\n\n</details>";
  const where = runUrl ? `the [workflow run's summary](${runUrl})` : "the job summary";
  const note = `\n\n---\n**This report is cut** at ${cut.length.toLocaleString("en-US")} of ${report.length.toLocaleString("en-US")} characters (GitHub's limit for a comment is ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")}). The whole report is in ${where}.\n`;
  return { body: head + cut + note, truncated: true };
}

/** The pull request's number from the event payload, or why there is none. */
export function pullRequestNumber(eventName: string, eventPath: string): number | string {
  if (eventName !== "pull_request" && eventName !== "pull_request_target") return `the event is ${eventName || "unknown"}, not pull_request: no pull request to comment on`;
  if (!eventPath) return "GITHUB_EVENT_PATH is not set: no pull request to comment on";
  let event: unknown;
  try {
    event = JSON.parse(readFileSync(eventPath, "utf8"));
  } catch (e) {
    return `cannot read the event payload ${eventPath}: ${(e as Error).message}`;
  }
  const n = (event as { pull_request?: { number?: unknown }; number?: unknown }).pull_request?.number ?? (event as { number?: unknown }).number;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : `the event payload ${eventPath} has no pull_request.number`;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly what: string,
    readonly apiMessage: string,
  ) {
    super(`${what}: GitHub's API answered ${status}${apiMessage ? ` (${apiMessage})` : ""}`);
  }
}

interface IssueComment {
  id: number;
  body?: string;
  html_url?: string;
}

function nextLink(link: string | null): string | undefined {
  for (const part of (link ?? "").split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/** GitHub's REST API for one repository, with the token sent only to the API's origin. */
function client(env: CommentEnv) {
  const base = new URL(env.apiUrl.replace(/\/+$/, "") + "/");
  const headers = { Authorization: `Bearer ${env.token}`, Accept: "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "skill-following-action" };
  const request = async (what: string, url: URL, init: { method: string; body?: unknown }) => {
    if (url.origin !== base.origin) throw new Error(`${what}: refusing to send the token to ${url.origin}, which is not the API's origin ${base.origin}`);
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method,
        headers: init.body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`${what}: no answer from ${base.origin} (${cause?.code ?? cause?.message ?? (e as Error).message})`, { cause: e });
    }
    const text = await res.text();
    if (!res.ok) {
      let message: string;
      try {
        const m = (JSON.parse(text) as { message?: unknown }).message;
        message = typeof m === "string" ? m : "";
      } catch {
        message = text.replace(/\s+/g, " ").slice(0, 200);
      }
      throw new ApiError(res.status, what, message.slice(0, 300));
    }
    return { json: text ? (JSON.parse(text) as unknown) : undefined, link: res.headers.get("link") };
  };
  const repo = env.repository.split("/").map(encodeURIComponent).join("/");
  return {
    async listComments(pr: number): Promise<IssueComment[]> {
      const all: IssueComment[] = [];
      let url: URL | undefined = new URL(`repos/${repo}/issues/${pr}/comments?per_page=${PER_PAGE}`, base);
      for (let page = 0; url && page < MAX_PAGES; page++) {
        const r = await request(`listing the comments of pull request #${pr}`, url, { method: "GET" });
        if (!Array.isArray(r.json)) throw new Error(`listing the comments of pull request #${pr}: the answer is not a list`);
        all.push(...(r.json as IssueComment[]));
        const next = nextLink(r.link);
        url = next === undefined ? undefined : new URL(next, base);
      }
      return all;
    },
    create: async (pr: number, body: string) => (await request(`creating the comment on pull request #${pr}`, new URL(`repos/${repo}/issues/${pr}/comments`, base), { method: "POST", body: { body } })).json as IssueComment,
    update: async (id: number, body: string) => (await request(`updating comment ${id}`, new URL(`repos/${repo}/issues/comments/${id}`, base), { method: "PATCH", body: { body } })).json as IssueComment,
  };
}

/** What a failed request means for the person reading the job's warning. */
function explain(e: unknown): string {
  if (!(e instanceof ApiError)) return (e as Error).message;
  const why =
    e.status === 401
      ? "the token was refused: check the github-token input"
      : e.status === 403
        ? "the token may not write comments: a pull request from a fork gets a read-only GITHUB_TOKEN, and a job needs `permissions: pull-requests: write`"
        : e.status === 404
          ? "the repository or pull request is not visible to this token (a private repository needs `permissions: pull-requests: write` or a token with access)"
          : e.status === 422
            ? "GitHub refused the comment's content"
            : e.status === 429 || e.status >= 500
              ? "GitHub's API is unavailable or rate-limited for now; the next run will update the comment"
              : "unexpected answer";
  return `${e.message}: ${why}`;
}

/** Posts the report as the pull request's comment for this key, or updates the one posted before. */
export async function upsertComment(env: CommentEnv): Promise<CommentOutcome> {
  const pr = pullRequestNumber(env.eventName, env.eventPath);
  if (typeof pr === "string") return { kind: "skipped", reason: pr };
  if (!env.token) return { kind: "failed", reason: "no token: set the github-token input (its default is the job's GITHUB_TOKEN)" };
  if (!/^[^/\s]+\/[^/\s]+$/.test(env.repository)) return { kind: "failed", reason: `GITHUB_REPOSITORY is '${env.repository}', not owner/name` };
  let report: string;
  try {
    report = readFileSync(env.report, "utf8");
  } catch (e) {
    return { kind: "failed", reason: `cannot read the report ${env.report}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  const { body, truncated } = commentBody(report, env.key, env.runUrl);
  const api = client(env);
  const mark = marker(env.key);
  try {
    const mine = (await api.listComments(pr)).find((c) => typeof c.body === "string" && c.body.startsWith(mark));
    if (mine) return { kind: "updated", url: (await api.update(mine.id, body)).html_url ?? "", truncated };
    return { kind: "created", url: (await api.create(pr, body)).html_url ?? "", truncated };
  } catch (e) {
    return { kind: "failed", reason: explain(e) };
  }
}

/** The environment a GitHub runner gives the action's comment step. */
export function commentEnvFrom(env: NodeJS.ProcessEnv): CommentEnv {
  const server = (env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/+$/, "");
  const repository = env.GITHUB_REPOSITORY ?? "";
  return {
    token: env.INPUT_GITHUB_TOKEN ?? "",
    report: env.INPUT_REPORT ?? "",
    key: env.INPUT_COMMENT_KEY || `${env.GITHUB_WORKFLOW ?? ""}/${env.GITHUB_JOB ?? ""}/${env.INPUT_REPORT ?? ""}`,
    eventName: env.GITHUB_EVENT_NAME ?? "",
    eventPath: env.GITHUB_EVENT_PATH ?? "",
    repository,
    apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
    runUrl: repository && env.GITHUB_RUN_ID ? `${server}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` : "",
  };
}

/** One line for the job's log: a notice when done or skipped, a warning (an annotation on the run) when it failed. */
export function logLine(outcome: CommentOutcome): string {
  const clean = (s: string) => s.replace(/\r?\n/g, " ");
  switch (outcome.kind) {
    case "created":
    case "updated":
      return `::notice::skill-following: ${outcome.kind} the pull request's comment ${outcome.url}${outcome.truncated ? " (the report is cut to GitHub's comment limit; the job summary has it whole)" : ""}`;
    case "skipped":
      return `::notice::skill-following: no comment: ${clean(outcome.reason)}`;
    case "failed":
      return `::warning::skill-following: the pull request's comment was not posted: ${clean(outcome.reason)}`;
  }
}
