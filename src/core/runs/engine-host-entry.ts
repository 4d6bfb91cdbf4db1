/**
 * dist/engine-host.js: the engine process a host starts with child_process.fork (IPC, structured-clone
 * serialization) to run one evaluation outside its own event loop (engine-protocol.ts). It exits once the
 * evaluation's last message is sent, or when its host goes away.
 */
import { serveEngine } from "./engine-serve.js";
import type { EngineToHost } from "./engine-protocol.js";

if (!process.send) {
  process.stderr.write("engine-host.js is started by the Skill Following extension (child_process.fork), not by hand; use dist/cli.js.\n");
  process.exit(2);
}
// The host went away (window closed, extension host restarted): nothing is left to report to.
process.on("disconnect", () => process.exit(0));
// The last message is written out before the channel closes.
let sent: Promise<void> = Promise.resolve();
const send = (message: EngineToHost) => {
  sent = new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
};
serveEngine({ send, onMessage: (listener) => process.on("message", listener) }).then(
  () => sent.then(() => process.disconnect()),
  (err: unknown) => {
    process.stderr.write(`engine-host: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
