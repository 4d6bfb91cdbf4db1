/**
 * Entry of dist/pr-comment.js, the GitHub Action's comment step (action.yml): posts or updates the pull request's
 * comment with the Markdown report. It always exits 0: a comment that cannot be posted is a warning on the run, and
 * the job's result stays the report's.
 */
import { commentEnvFrom, logLine, upsertComment } from "./pr-comment.js";

upsertComment(commentEnvFrom(process.env))
  .then((outcome) => process.stdout.write(`${logLine(outcome)}\n`))
  .catch((e: unknown) => process.stdout.write(`${logLine({ kind: "failed", reason: (e as Error).message })}\n`));
