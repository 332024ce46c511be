/**
 * The notify protocol: "something happened to reply X", across instances. Each statement that
 * adds events to a reply or asks it to stop runs `pg_notify` on CHANNEL with a topic —
 * `eventsTopic(id)` or `stopTopic(id)` — in the same statement (replies/statements.ts). On
 * PostgreSQL the notifier LISTENs (postgres.js `listen`: one extra connection per pool, which
 * reconnects by itself) and dispatches each payload to its subscribers. On PGlite (one process,
 * no LISTEN) the store's after-write dispatch (replies/statements.ts) hands the topics of every write
 * to `local()`, so no write path can forget it. Nobody relies on a notification alone: followers
 * also poll (replies/tail.ts) and runs read their stop flag at each flush and lease beat, so a
 * notification lost while the connection reconnects only costs latency. One notifier per
 * `createReplies`; `close()` ends its LISTEN.
 */
import type { Db } from "../db/client.ts";
import { withTimeout } from "../primitives.ts";

/** How long `close()` waits for the UNLISTEN. */
const CLOSE_WAIT_MS = 1_000;

/** The channel every instance LISTENs on (PostgreSQL). */
export const CHANNEL = "parley_runs";
/** Topic prefixes as the statements write them (`'e:' || id`). */
export const EVENTS_PREFIX = "e:";
export const STOP_PREFIX = "s:";
/** New events of reply `id` were stored. */
export const eventsTopic = (id: string) => `${EVENTS_PREFIX}${id}`;
/** Reply `id` was asked to stop. */
export const stopTopic = (id: string) => `${STOP_PREFIX}${id}`;

export interface Notifier {
  /** Calls `fn` on every notification of `topic`, until `off(topic, fn)`. */
  on(topic: string, fn: () => void): void;
  off(topic: string, fn: () => void): void;
  /** Resolves once notifications are being received (the LISTEN is in place). */
  readonly ready: Promise<void>;
  /** After a statement that notified `topic`: reaches this notifier's subscribers where LISTEN does not. */
  local(topic: string): void;
  /** Ends the LISTEN (if any) and drops every subscriber. */
  close(): Promise<void>;
}

/** What the notifier needs of postgres.js. */
export interface PgListen {
  listen(channel: string, fn: (payload: string) => void): Promise<{ unlisten(): Promise<unknown> }>;
}

/** The LISTEN-capable client behind `db` (postgres.js), or null (PGlite). */
export function listenerOf(db: Db): PgListen | null {
  const client = (db as unknown as { $client?: { listen?: unknown; unsafe?: unknown } }).$client;
  // postgres.js has `unsafe`; PGlite (one process) does not and dispatches in process.
  return client && typeof client.unsafe === "function" && typeof client.listen === "function"
    ? (client as PgListen)
    : null;
}

export function createNotifier(pg: PgListen | null): Notifier {
  // A topic's one subscriber (the usual case: a run's stop, a tail's events) is kept as it is, a
  // Set only for more: thousands of waiting runs each had a Set and an unsubscribe closure.
  const subs = new Map<string, (() => void) | Set<() => void>>();
  let listening: Promise<{ unlisten(): Promise<unknown> }> | undefined;
  let closed = false;

  const dispatch = (topic: string) => {
    const found = subs.get(topic);
    if (!found) return;
    for (const fn of typeof found === "function" ? [found] : [...found]) {
      try {
        fn();
      } catch {
        // one subscriber's failure is its own
      }
    }
  };

  const notifier: Notifier = {
    get ready(): Promise<void> {
      if (!pg || closed) return Promise.resolve();
      // Lazily, on first use: a process that never runs or follows a reply needs no extra connection.
      listening ??= pg.listen(CHANNEL, dispatch).catch((error) => {
        listening = undefined; // try again next time; followers poll meanwhile
        throw error;
      });
      return listening.then(() => {});
    },
    on(topic, fn) {
      void notifier.ready.catch(() => {});
      const found = subs.get(topic);
      if (!found) subs.set(topic, fn);
      else if (typeof found === "function") subs.set(topic, new Set([found, fn]));
      else found.add(fn);
    },
    off(topic, fn) {
      const found = subs.get(topic);
      if (found === fn) subs.delete(topic);
      else if (typeof found === "object") {
        found.delete(fn);
        if (found.size === 0) subs.delete(topic);
      }
    },
    local(topic) {
      if (!pg) dispatch(topic);
    },
    async close() {
      closed = true;
      subs.clear();
      const pending = listening;
      listening = undefined;
      if (!pending) return;
      // UNLISTEN is a statement: with the database away it could wait for a reconnection, and
      // close() must not hold a shutdown. The pool's end drops the connection in any case.
      const unlisten = pending
        .then((h) => h.unlisten())
        .then(
          () => {},
          () => {},
        );
      await withTimeout(unlisten, CLOSE_WAIT_MS, undefined);
    },
  };
  return notifier;
}
