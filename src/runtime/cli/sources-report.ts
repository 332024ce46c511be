/**
 * What `sources …` prints: a source's line (`list`), a sync's counts, and the wait for a sync's
 * end (`--wait`). Counts are named as in the JSON (`not_modified 3`), so scripts can grep them.
 */
import type { Source, SourceSync, SyncPages } from "../../contract/sources.ts";
import type { Db } from "../../db/client.ts";
import { readSync } from "../../sources/index.ts";
import type { Io } from "./io.ts";

const ORDER: (keyof SyncPages)[] = [
  "discovered",
  "fetched",
  "not_modified",
  "created",
  "updated",
  "unchanged",
  "deleted",
  "skipped",
  "failed",
];

export const countsLine = (pages: SyncPages): string => ORDER.map((k) => `${k} ${pages[k]}`).join(" ");

/** One source: id, type, its last sync (status, when it ended, counts, errors), documents, URL. */
export function sourceLine(s: Source): string {
  const sync = s.last_sync;
  const last = sync
    ? `${sync.status.padEnd(9)} ${(sync.finished_at ?? `since ${sync.started_at}`).padEnd(30)} ${countsLine(sync.pages)} errors ${sync.errors.length}`
    : "never synced";
  return `${s.id}  ${s.type.padEnd(8)} ${last}  documents ${s.document_count}  ${s.url}`;
}

/**
 * A sync that has ended: its counts on stdout, why it did not complete (or what it declined to
 * do) and the URLs it could not store on stderr. Exit code: 0 when it completed, else 1.
 */
export function reportSync(sync: SourceSync, io: Io): number {
  io.out(`${sync.id} ${sync.status}: ${countsLine(sync.pages)}`);
  if (sync.error) io.err(`${sync.status === "completed" ? "note" : "error"}: ${sync.error}`);
  for (const e of sync.errors) io.err(`  ${e.url}: ${e.reason}`);
  return sync.status === "completed" ? 0 : 1;
}

const POLL_MS = 500;
const PROGRESS_MS = 2_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The sync once it has ended, read from the store (so it works for a sync this process runs and
 * for one a server runs). `progress`: a counts line on stderr every few seconds while it runs
 * (only where stderr is read live: not for a forwarded command, whose output comes at its end).
 * `signal` ends the wait early: the sync as it is then.
 */
export async function waitForSync(
  db: Db,
  id: string,
  io: Io,
  opts: { progress: boolean; signal?: AbortSignal },
): Promise<SourceSync | undefined> {
  let printed = Date.now();
  for (;;) {
    const sync = await readSync(db, id);
    if (sync?.status !== "running" || opts.signal?.aborted) return sync;
    if (opts.progress && Date.now() - printed >= PROGRESS_MS) {
      printed = Date.now();
      io.err(`${id} running: ${countsLine(sync.pages)}`);
    }
    await pause(POLL_MS, opts.signal);
  }
}
