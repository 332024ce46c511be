/**
 * "Something happened to reply X" across instances. Statements that add events or ask for a
 * stop NOTIFY `parley_runs` (runs/store.ts). On PostgreSQL each process LISTENs on one extra
 * connection (postgres.js `listen`, which reconnects by itself) and dispatches to its local
 * subscribers; on PGlite there is one process, so the writer dispatches in-process after its
 * statement. Subscribers never rely on a notification alone: followers also poll (runs/tail.ts),
 * so a notification lost while the LISTEN connection reconnects only costs latency.
 */
import type { Db } from "../db/client.ts";
import { memo } from "../memo.ts";
import { CHANNEL } from "./store.ts";

export interface Notifier {
  /** Calls `fn` on every notification `topic` (`e:<id>` or `s:<id>`); returns the unsubscribe. */
  on(topic: string, fn: () => void): () => void;
  /** Resolves once notifications are being received (the LISTEN is in place). */
  readonly ready: Promise<void>;
  /** Call after a statement that notified `topic`: reaches this process's subscribers where LISTEN does not. */
  local(topic: string): void;
}

interface PgListen {
  listen(channel: string, fn: (payload: string) => void): Promise<unknown>;
}

class Bus implements Notifier {
  private readonly subs = new Map<string, Set<() => void>>();
  private listening: Promise<void> | undefined;

  constructor(private readonly pg: PgListen | null) {}

  get ready(): Promise<void> {
    if (!this.pg) return Promise.resolve();
    // Lazily, on first use: a process that never runs or follows a reply needs no extra connection.
    this.listening ??= this.pg
      .listen(CHANNEL, (payload) => this.dispatch(payload))
      .then(
        () => {},
        (error) => {
          this.listening = undefined; // try again next time; followers poll meanwhile
          throw error;
        },
      );
    return this.listening;
  }

  on(topic: string, fn: () => void): () => void {
    void this.ready.catch(() => {});
    const set = memo(this.subs, topic, () => new Set<() => void>());
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.subs.get(topic) === set) this.subs.delete(topic);
    };
  }

  local(topic: string): void {
    if (!this.pg) this.dispatch(topic);
  }

  private dispatch(topic: string): void {
    for (const fn of [...(this.subs.get(topic) ?? [])]) {
      try {
        fn();
      } catch {
        // one subscriber's failure is its own
      }
    }
  }
}

const buses = new WeakMap<Db, Bus>();

/** The notifier of this database handle (one per pool, shared by everything using it). */
export function notifierFor(db: Db): Notifier {
  return memo(buses, db, () => {
    const client = (db as unknown as { $client?: { listen?: unknown; unsafe?: unknown } }).$client;
    // postgres.js has `unsafe`; PGlite (one process) does not and uses the in-process bus.
    const pg =
      client && typeof client.unsafe === "function" && typeof client.listen === "function"
        ? (client as PgListen)
        : null;
    return new Bus(pg);
  });
}
