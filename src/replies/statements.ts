/**
 * The lease protocol's statements, and every other write to a reply. A reply lives in the
 * database from its first moment: created `in_progress` with its `start` event and a lease
 * (`lease_until`), grown by flushes (events + content + lease renewal in ONE statement), ended by
 * one final statement, and swept to `failed` by any instance once its lease has passed (the
 * generating instance died or stalled). The generating instance renews the lease with each
 * flush and, while the agent is silent, every quarter lease (replies/live-runs.ts). Every write to a
 * running reply is conditional on `status = 'in_progress'`, so a swept reply can never be
 * written to again, nor finished twice; of several instances sweeping at once, exactly one ends
 * each reply. Each statement that adds events or asks for a stop notifies (replies/notify.ts)
 * and returns the topics it notified, which the store dispatches in process (below).
 *
 * Tables: replies/ writes `message_events` and the run columns of an assistant message (content
 * growth, status, lease, stop flag, last seq). Other tables are written by their owners'
 * fragments, passed in and run inside these statements (`ReplyWrite`), so atomicity stays.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Certainty } from "../contract/analytics.ts";
import type { Usage } from "../contract/events.ts";
import type { Db } from "../db/client.ts";
import { preparedRows, rowsOf } from "../db/rows.ts";
import { compactEvents } from "./compact.ts";
import { ORPHANED_EVENT } from "./event-log.ts";
import type { StoredEvent } from "./generate.ts";
import type { Notifier } from "./notify.ts";
import { CHANNEL, EVENTS_PREFIX, STOP_PREFIX } from "./notify.ts";

/**
 * A write another folder owns, run inside a reply statement: given the name of the CTE that
 * returned the reply's row (`id`, `conversation_id`), a data-modifying statement.
 */
export type ReplyWrite = (reply: SQL) => SQL;

export { rowsOf };

/** What a write notified: the topics the after-write dispatch hands to the notifier. */
export interface Notified {
  topic: string | null;
}

const ts = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
const eventsJson = (events: StoredEvent[]) => JSON.stringify(events);
/** Inserts `events` for the message that `from` (a CTE) returned, if it returned one. */
const insertEvents = (from: SQL, events: StoredEvent[]) =>
  sql`insert into message_events (message_id, seq, data)
      select ${from}.id, e.seq, e.data from ${from}, json_to_recordset(${eventsJson(events)}::json) as e(seq integer, data text)`;
/** The owners' writes as CTEs after the reply's own (`m`). */
const others = (writes: ReplyWrite[]) =>
  sql.join(writes.map((w, i) => sql`, ${sql.raw(`w${i}`)} as (${w(sql.raw("m"))})`));
const notifyEvents = sql`pg_notify(${CHANNEL}, ${EVENTS_PREFIX} || m.id)`;
const eventsTopicOf = sql`${EVENTS_PREFIX} || m.id`;

/** Creates the running reply with its `start` event (seq 1); throws 23503 when the conversation is gone. */
export async function createReply(
  db: Db,
  r: { id: string; conversationId: string; createdAt: number; leaseUntil: number; start: string; also: ReplyWrite[] },
): Promise<Notified[]> {
  return preparedRows(
    db,
    sql`
    with m as (
      insert into messages (id, conversation_id, role, content, sources, status, created_at, lease_until, last_seq)
      values (${r.id}, ${r.conversationId}, 'assistant', '', '[]'::jsonb, 'in_progress', ${ts(r.createdAt)}, ${ts(r.leaseUntil)}, 1)
      returning id, conversation_id
    ),
    ev as (${insertEvents(sql.raw("m"), [{ seq: 1, data: r.start }])})
    ${others(r.also)}
    select ${eventsTopicOf} as topic, ${notifyEvents} from m`,
  );
}

/** What a flush found: the reply still runs (and whether a stop was asked), or it is no longer ours. */
export type FlushResult = "running" | "stop" | "gone";

/**
 * Appends events and content and renews the lease, in one statement: all of it or none.
 * "gone": the reply was deleted or is no longer in_progress (swept after a lost lease).
 */
export async function flushReply(
  db: Db,
  r: { id: string; events: StoredEvent[]; delta: string; lastSeq: number; leaseUntil: number },
): Promise<(Notified & { stop_requested: boolean })[]> {
  const any = r.events.length > 0;
  return preparedRows(
    db,
    sql`
    with m as (
      update messages set content = content || ${r.delta}, last_seq = ${r.lastSeq}, lease_until = ${ts(r.leaseUntil)}
      where id = ${r.id} and status = 'in_progress'
      returning id, stop_requested
    ),
    ev as (${insertEvents(sql.raw("m"), r.events)})
    select m.stop_requested, ${any ? eventsTopicOf : sql`null`} as topic, ${any ? notifyEvents : sql`null`} as n from m`,
  );
}

/** Renews the leases of running replies `ids`; returns those still running, with their stop flags. */
export async function renewLeases(
  db: Db,
  ids: string[],
  leaseUntil: number,
): Promise<{ id: string; stop_requested: boolean }[]> {
  return preparedRows(
    db,
    sql`
    update messages set lease_until = ${ts(leaseUntil)}
    where id in (select json_array_elements_text(${JSON.stringify(ids)}::json)) and status = 'in_progress'
    returning id, stop_requested`,
  );
}

/** Ends the reply: last events (the terminal one included), content, status, sources. No row when gone. */
export async function finishReply(
  db: Db,
  r: {
    id: string;
    events: StoredEvent[];
    delta: string;
    lastSeq: number;
    status: "completed" | "failed" | "stopped" | "length";
    sources: string[];
    usage: Usage | null;
    /** Null for a failed reply (it answered nothing). */
    certainty: Certainty | null;
    also: ReplyWrite[];
  },
): Promise<Notified[]> {
  return preparedRows(
    db,
    sql`
    with m as (
      update messages set content = content || ${r.delta}, last_seq = ${r.lastSeq}, lease_until = null,
        status = ${r.status}, sources = ${JSON.stringify(r.sources)}::jsonb, certainty = ${r.certainty},
        input_tokens = ${r.usage?.input_tokens ?? null}, output_tokens = ${r.usage?.output_tokens ?? null}
      where id = ${r.id} and status = 'in_progress'
      returning id, conversation_id
    ),
    ev as (${insertEvents(sql.raw("m"), r.events)})
    ${others(r.also)}
    select ${eventsTopicOf} as topic, ${notifyEvents} from m`,
  );
}

/**
 * Ends as `failed` every running reply whose lease passed before `now` (or only `id`'s), with
 * the orphaned terminal event and the last `sources` event it stored as its sources (what its
 * clients were shown its text cites): a conditional UPDATE, so of several instances sweeping at once
 * exactly one ends each reply, and a reply whose instance renewed its lease meanwhile is left alone.
 */
export async function expireReplies(db: Db, now: number, id?: string): Promise<(Notified & { id: string })[]> {
  return rowsOf(
    db,
    sql`
    with m as (
      update messages set status = 'failed', lease_until = null, last_seq = last_seq + 1,
        sources = coalesce((select e.data::jsonb -> 'sources' from message_events e
          where e.message_id = messages.id and e.data like '{"type":"sources"%' order by e.seq desc limit 1), sources)
      where status = 'in_progress' and lease_until < ${ts(now)} ${id ? sql`and id = ${id}` : sql``}
      returning id, last_seq
    ),
    ev as (insert into message_events (message_id, seq, data) select id, last_seq, ${ORPHANED_EVENT} from m)
    select m.id, ${eventsTopicOf} as topic, ${notifyEvents} from m`,
  );
}

/** Sets the reply's stop flag (any instance); a row when it was running. */
export async function requestStop(db: Db, id: string): Promise<Notified[]> {
  return rowsOf(
    db,
    sql`
    update messages set stop_requested = true where id = ${id} and status = 'in_progress'
    returning ${STOP_PREFIX} || id as topic, pg_notify(${CHANNEL}, ${STOP_PREFIX} || id)`,
  );
}

/**
 * The reply store: every write statement above, each followed by the one after-write dispatch —
 * the topics the statement notified go to the notifier's `local()`, so this process's
 * subscribers hear them where LISTEN does not (PGlite). Nothing else in replies/ runs a write
 * statement, so no write path can forget the notify.
 */
export type ReplyStore = ReturnType<typeof createReplyStore>;

export function createReplyStore(db: Db, notifier: Notifier) {
  /** The after-write dispatch. */
  const dispatched = <R extends Notified>(rows: R[]): R[] => {
    for (const row of rows) if (row.topic) notifier.local(row.topic);
    return rows;
  };
  return {
    db,
    create: async (r: Parameters<typeof createReply>[1]) => {
      dispatched(await createReply(db, r));
    },
    /** One flush: "gone" when the reply is no longer ours (deleted, or swept). */
    flush: async (r: Parameters<typeof flushReply>[1]): Promise<FlushResult> => {
      const [row] = dispatched(await flushReply(db, r));
      if (!row) return "gone";
      return row.stop_requested ? "stop" : "running";
    },
    /** The final statement; false when the reply was no longer ours. */
    finish: async (r: Parameters<typeof finishReply>[1]): Promise<boolean> =>
      dispatched(await finishReply(db, r)).length === 1,
    renew: (ids: string[], leaseUntil: number) => renewLeases(db, ids, leaseUntil),
    /** Sweeps expired replies (all, or only `id`); the ids ended. */
    expire: async (now: number, id?: string): Promise<string[]> =>
      dispatched(await expireReplies(db, now, id)).map((r) => r.id),
    /** Compacts the events of a batch of ended replies created before `cutoff` (compact.ts); nobody follows them. */
    compact: (cutoff: number, limit?: number) => compactEvents(db, cutoff, limit),
    /** Sets the stop flag; true when the reply was running. */
    requestStop: async (id: string): Promise<boolean> => dispatched(await requestStop(db, id)).length === 1,
  };
}
