/**
 * Liveness that does not depend on the event loop it vouches for. /healthz, timers and the
 * SIGTERM handler all run on the main thread's event loop: when a synchronous loop holds it
 * (PGlite spinning inside its WebAssembly module is one), probes time out but the process lives
 * on for good, ignoring SIGTERM. So a Worker thread watches a counter the main thread moves every
 * BEAT_MS; when it has not moved for `ms`, the worker writes one log line (stderr, the logger's
 * format) and kills the process with SIGKILL, the one signal that needs no JavaScript to act. A
 * supervisor (systemd, Docker's restart policy, Kubernetes) starts it again; PGlite then replays
 * its WAL as after any kill -9, so nothing acknowledged is lost. A pause of the whole process
 * (SIGSTOP, a suspended host) holds the worker too: it notices its own late tick and starts over.
 * The worker's code is inline (a Blob URL): the compiled binary carries no separate file.
 * Bun-only (Worker with Bun's process object).
 */
import type { LogFormat } from "../config/logger.ts";

/** How often the main thread proves it runs. */
const BEAT_MS = 250;

const WORKER = `
const { writeSync } = require("node:fs");
self.onmessage = ({ data: { beat, ms, format, every } }) => {
  let seen = Atomics.load(beat, 0);
  let since = Date.now();
  let ticked = since;
  setInterval(() => {
    const at = Date.now();
    // This thread was held too (SIGSTOP, docker pause, a suspended host): the time does not count.
    if (at - ticked > 4 * every) since = at;
    ticked = at;
    const now = Atomics.load(beat, 0);
    if (now !== seen) {
      seen = now;
      since = at;
      return;
    }
    const stalled = at - since;
    if (stalled < ms) return;
    const time = new Date().toISOString();
    const msg = "the event loop has not run for " + stalled + " ms: killing the process so that its supervisor restarts it";
    const line = format === "json"
      ? JSON.stringify({ time, level: "error", msg, stalled_ms: stalled, watchdog_ms: ms })
      : time + " ERROR " + JSON.stringify(msg) + " stalled_ms=" + stalled + " watchdog_ms=" + ms;
    try { writeSync(2, line + "\\n"); } finally { process.kill(process.pid, "SIGKILL"); }
  }, every);
};
`;

export interface Watchdog {
  stop(): void;
}

/** Starts watching this process's event loop: killed once it stalls for `ms` (see above). */
export function startWatchdog(ms: number, format: LogFormat): Watchdog {
  const beat = new Int32Array(new SharedArrayBuffer(4));
  const url = URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }));
  const worker = new Worker(url);
  worker.postMessage({ beat, ms, format, every: Math.min(BEAT_MS, Math.max(50, Math.floor(ms / 4))) });
  // Neither keeps the process alive: a server that stops, stops.
  (worker as Worker & { unref(): void }).unref(); // Bun's Worker has it; the DOM type does not
  const timer = setInterval(() => Atomics.add(beat, 0, 1), Math.min(BEAT_MS, Math.max(25, Math.floor(ms / 8))));
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
}
