/**
 * The reply store: every write statement of replies/statements.ts, each followed by the one
 * after-write dispatch — the topics the statement notified go to the notifier's `local()`, so
 * this process's subscribers hear them where LISTEN does not (PGlite). Nothing else in replies/
 * runs a write statement, so no write path can forget the notify.
 */
import type { Db } from "../db/client.ts";
import type { StoredEvent } from "./batcher.ts";
import { compactEvents } from "./compact.ts";
import type { Notifier } from "./notify.ts";
import * as statements from "./statements.ts";

export type ReplyStore = ReturnType<typeof createReplyStore>;

export function createReplyStore(db: Db, notifier: Notifier) {
  /** The after-write dispatch. */
  const dispatched = <R extends statements.Notified>(rows: R[]): R[] => {
    for (const row of rows) if (row.topic) notifier.local(row.topic);
    return rows;
  };
  return {
    db,
    create: async (r: Parameters<typeof statements.createReply>[1]) => {
      dispatched(await statements.createReply(db, r));
    },
    /** One flush: "gone" when the reply is no longer ours (deleted, or swept). */
    flush: async (r: Parameters<typeof statements.flushReply>[1]): Promise<statements.FlushResult> => {
      const [row] = dispatched(await statements.flushReply(db, r));
      if (!row) return "gone";
      return row.stop_requested ? "stop" : "running";
    },
    /** The final statement; false when the reply was no longer ours. */
    finish: async (r: Parameters<typeof statements.finishReply>[1]): Promise<boolean> =>
      dispatched(await statements.finishReply(db, r)).length === 1,
    renew: (ids: string[], leaseUntil: number) => statements.renewLeases(db, ids, leaseUntil),
    /** Sweeps expired replies (all, or only `id`); the ids ended. */
    expire: async (now: number, id?: string): Promise<string[]> =>
      dispatched(await statements.expireReplies(db, now, id)).map((r) => r.id),
    /** Compacts the events of a batch of ended replies created before `cutoff` (compact.ts); nobody follows them. */
    compact: (cutoff: number, limit?: number) => compactEvents(db, cutoff, limit),
    /** Sets the stop flag; true when the reply was running. */
    requestStop: async (id: string): Promise<boolean> => dispatched(await statements.requestStop(db, id)).length === 1,
  };
}

export type { StoredEvent };
