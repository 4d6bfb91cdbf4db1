import type { DownloadProgress } from "../core/models/local/download.js";

/**
 * A download progress bar on stderr: redrawn in place on a terminal (at most ten times a second), one line per 10%
 * otherwise (CI logs, pipes), so a 500 MB first download never looks like a hang.
 */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): { update(p: DownloadProgress): void; done(): void } {
  const tty = stream.isTTY === true;
  const started = Date.now();
  let lastDraw = 0;
  let lastDecile = -1;
  let drawn = false;
  const mb = (b: number): string => (b / 1_000_000).toFixed(0);
  return {
    update(p) {
      const fraction = p.total > 0 ? p.received / p.total : 0;
      const now = Date.now();
      const seconds = Math.max(0.001, (now - started) / 1000);
      const rate = (p.received - p.resumedFrom) / 1_000_000 / seconds;
      const text = `${label} ${(fraction * 100).toFixed(0).padStart(3)}% ${mb(p.received)}/${mb(p.total)} MB${rate > 0 ? ` · ${rate.toFixed(1)} MB/s` : ""}`;
      if (tty) {
        if (now - lastDraw < 100 && p.received < p.total) return;
        lastDraw = now;
        const width = 24;
        const full = Math.round(fraction * width);
        stream.write(`\r[${"#".repeat(full)}${".".repeat(width - full)}] ${text}\x1b[K`);
        drawn = true;
      } else {
        const decile = Math.floor(fraction * 10);
        if (decile === lastDecile) return;
        lastDecile = decile;
        stream.write(`${text}\n`);
      }
    },
    done() {
      if (tty && drawn) stream.write("\n");
    },
  };
}
