/**
 * A loopback stand-in for the part of GitHub's REST API the action's pull-request comment uses (test code only), over
 * real HTTP: list an issue's comments (per_page/page with a `Link: <…>; rel="next"` header, as GitHub paginates),
 * create a comment, update one. It checks the bearer token like GitHub does (401 otherwise) and can refuse writes
 * the way a fork's read-only token is refused (403) or answer 5xx. `requests` records method, path and whether the
 * right token came, so a test sees exactly what the action asked.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeComment {
  id: number;
  body: string;
  user: string;
}

export interface FakeGitHub {
  readonly url: string;
  readonly requests: Array<{ method: string; path: string; authorized: boolean }>;
  /** Comments by pull request number, in creation order. */
  comments(pr: number): FakeComment[];
  /** Adds comments written by someone else (to fill pages). */
  seed(pr: number, bodies: string[], user?: string): void;
  /** Writes (POST, PATCH) answer this status from now on (403: a fork's read-only token; 502: GitHub is down). */
  failWrites(status: number | undefined): void;
  /** The `next` links point at this origin instead of the server's own (a link that must not be followed). */
  nextOrigin(origin: string | undefined): void;
  close(): Promise<void>;
}

const MESSAGES: Record<number, string> = { 403: "Resource not accessible by integration", 502: "Server Error" };

export async function startFakeGitHub(opts: { token: string; repository: string }): Promise<FakeGitHub> {
  const byPr = new Map<number, FakeComment[]>();
  const requests: FakeGitHub["requests"] = [];
  let nextId = 1000;
  let writeStatus: number | undefined;
  let linkOrigin: string | undefined;
  const list = (pr: number) => byPr.get(pr) ?? (byPr.set(pr, []), byPr.get(pr)!);
  const prefix = `/repos/${opts.repository}/issues/`;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const authorized = req.headers.authorization === `Bearer ${opts.token}`;
    requests.push({ method: req.method ?? "", path: url.pathname + url.search, authorized });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", ...headers });
      res.end(JSON.stringify(body));
    };
    let text = "";
    req.on("data", (d: Buffer) => (text += d.toString()));
    req.on("end", () => {
      if (!authorized) return send(401, { message: "Bad credentials" });
      if (req.headers.accept !== "application/vnd.github+json") return send(415, { message: "Accept: application/vnd.github+json expected" });
      const origin = `http://${req.headers.host}`;
      const view = (c: FakeComment) => ({ id: c.id, body: c.body, user: { login: c.user }, html_url: `https://github.example/${opts.repository}/pull/0#issuecomment-${c.id}` });
      const listMatch = new RegExp(`^${prefix}(\\d+)/comments$`).exec(url.pathname);
      const editMatch = new RegExp(`^${prefix}comments/(\\d+)$`).exec(url.pathname);
      if (req.method === "GET" && listMatch) {
        const all = list(Number(listMatch[1]));
        const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? 30));
        const page = Number(url.searchParams.get("page") ?? 1);
        const slice = all.slice((page - 1) * perPage, page * perPage);
        const headers: Record<string, string> = {};
        if (page * perPage < all.length) {
          const next = new URL(url.pathname, linkOrigin ?? origin);
          next.searchParams.set("per_page", String(perPage));
          next.searchParams.set("page", String(page + 1));
          headers.Link = `<${next.href}>; rel="next", <${next.href.replace(/page=\d+$/, `page=${Math.ceil(all.length / perPage)}`)}>; rel="last"`;
        }
        return send(200, slice.map(view), headers);
      }
      if ((req.method === "POST" && listMatch) || (req.method === "PATCH" && editMatch)) {
        if (writeStatus !== undefined) return send(writeStatus, { message: MESSAGES[writeStatus] ?? "error", documentation_url: "https://docs.github.com/rest" });
        let body: unknown;
        try {
          body = (JSON.parse(text) as { body?: unknown }).body;
        } catch {
          return send(400, { message: "Problems parsing JSON" });
        }
        if (typeof body !== "string" || body.length > 65_536) return send(422, { message: "Validation Failed", errors: [{ field: "body", code: "custom" }] });
        if (listMatch) {
          const c = { id: nextId++, body, user: "github-actions[bot]" };
          list(Number(listMatch[1])).push(c);
          return send(201, view(c));
        }
        const id = Number(editMatch![1]);
        const c = [...byPr.values()].flat().find((x) => x.id === id);
        if (!c) return send(404, { message: "Not Found" });
        c.body = body;
        return send(200, view(c));
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    comments: (pr) => list(pr),
    seed(pr, bodies, user = "someone") {
      for (const body of bodies) list(pr).push({ id: nextId++, body, user });
    },
    failWrites: (status) => (writeStatus = status),
    nextOrigin: (origin) => (linkOrigin = origin),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
