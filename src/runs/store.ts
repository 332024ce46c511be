/**
 * The statements behind a reply that lives in the database from its first moment: created
 * `in_progress` with its `start` event, grown by flushes (events + content + lease in ONE
 * statement), ended by one final statement, and swept to `failed` by any instance once its
 * lease has passed. Every write to a running reply is conditional on `status = 'in_progress'`,
 * so a reply swept by another instance can never be written to again, nor finished twice.
 * Each statement that adds events also NOTIFYs `parley_runs` with `e:<message id>`.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Usage } from "../agent/types.ts";
import type { Db } from "../db/client.ts";
import type { MessageRow } from "../db/schema.ts";
import { conversations, messages } from "../db/schema.ts";

/** The channel every instance LISTENs on (PostgreSQL); payload `e:<id>` (events) or `s:<id>` (stop). */
export const CHANNEL = "parley_runs";

/** One stored event: its sequence number (SSE id) and the exact JSON of its data line. */
export interface StoredEvent {
  seq: number;
  data: string;
}

/** Rows of a raw statement, whichever driver ran it (postgres.js: an array; PGlite: `.rows`). */
export async function rowsOf<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

const ts = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
const eventsJson = (events: StoredEvent[]) => JSON.stringify(events);
/** Inserts `events` for the message that `from` (a CTE) returned, if it returned one. */
const insertEvents = (from: string, events: StoredEvent[]) =>
  sql`insert into message_events (message_id, seq, data)
      select ${sql.raw(from)}.id, e.seq, e.data from ${sql.raw(from)}, json_to_recordset(${eventsJson(events)}::json) as e(seq integer, data text)`;

/** Creates the running reply with its `start` event (seq 1); throws 23503 when the conversation is gone. */
export async function createReply(
  db: Db,
  r: {
    id: string;
    conversationId: string;
    createdAt: number;
    leaseUntil: number;
    start: string;
    idempotency?: { keyId: string; idemKey: string };
  },
): Promise<void> {
  // The Idempotency-Key record (if any) points at the reply in the same statement: a retry never
  // sees one without the other.
  const idem = r.idempotency
    ? sql`, i as (update idempotency_keys set message_id = (select id from m) where key_id = ${r.idempotency.keyId} and idem_key = ${r.idempotency.idemKey})`
    : sql``;
  await db.execute(sql`
    with m as (
      insert into messages (id, conversation_id, role, content, sources, status, created_at, lease_until, last_seq)
      values (${r.id}, ${r.conversationId}, 'assistant', '', '[]'::jsonb, 'in_progress', ${ts(r.createdAt)}, ${ts(r.leaseUntil)}, 1)
      returning id, conversation_id
    ),
    ev as (${insertEvents("m", [{ seq: 1, data: r.start }])}),
    c as (update conversations set updated_at = greatest(updated_at, ${ts(r.createdAt)}) where id in (select conversation_id from m))
    ${idem}
    select pg_notify(${CHANNEL}, 'e:' || m.id) from m`);
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
): Promise<FlushResult> {
  const rows = await rowsOf<{ stop_requested: boolean }>(
    db,
    sql`
    with m as (
      update messages set content = content || ${r.delta}, last_seq = ${r.lastSeq}, lease_until = ${ts(r.leaseUntil)}
      where id = ${r.id} and status = 'in_progress'
      returning id, stop_requested
    ),
    ev as (${insertEvents("m", r.events)})
    select m.stop_requested, ${r.events.length ? sql`pg_notify(${CHANNEL}, 'e:' || m.id)` : sql`null`} as n from m`,
  );
  if (!rows[0]) return "gone";
  return rows[0].stop_requested ? "stop" : "running";
}

/** Renews the leases of running replies `ids`; returns those still running, with their stop flags. */
export async function renewLeases(
  db: Db,
  ids: string[],
  leaseUntil: number,
): Promise<{ id: string; stop_requested: boolean }[]> {
  return rowsOf(
    db,
    sql`
    update messages set lease_until = ${ts(leaseUntil)}
    where id in (select json_array_elements_text(${JSON.stringify(ids)}::json)) and status = 'in_progress'
    returning id, stop_requested`,
  );
}

/** Ends the reply: last events (the terminal one included), content, status, sources. False when gone. */
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
    at: number;
  },
): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    with m as (
      update messages set content = content || ${r.delta}, last_seq = ${r.lastSeq}, lease_until = null,
        status = ${r.status}, sources = ${JSON.stringify(r.sources)}::jsonb,
        input_tokens = ${r.usage?.input_tokens ?? null}, output_tokens = ${r.usage?.output_tokens ?? null}
      where id = ${r.id} and status = 'in_progress'
      returning id, conversation_id
    ),
    ev as (${insertEvents("m", r.events)}),
    c as (update conversations set updated_at = greatest(updated_at, ${ts(r.at)}) where id in (select conversation_id from m))
    select m.id, pg_notify(${CHANNEL}, 'e:' || m.id) from m`,
  );
  return rows.length === 1;
}

/** The terminal event a swept reply ends with. */
export const ORPHANED_EVENT = JSON.stringify({
  type: "error",
  error: {
    type: "api_error",
    code: "generation_failed",
    message: "The instance generating this reply stopped before finishing it; the reply is incomplete.",
  },
});

/**
 * Ends as `failed` every running reply whose lease passed before `now` (or only `id`'s): a
 * conditional UPDATE, so of several instances sweeping at once exactly one ends each reply,
 * and a reply whose instance renewed its lease meanwhile is left alone. Returns the ids ended.
 */
export async function sweepExpired(db: Db, now: number, id?: string): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    with m as (
      update messages set status = 'failed', lease_until = null, last_seq = last_seq + 1
      where status = 'in_progress' and lease_until < ${ts(now)} ${id ? sql`and id = ${id}` : sql``}
      returning id, last_seq
    ),
    ev as (insert into message_events (message_id, seq, data) select id, last_seq, ${ORPHANED_EVENT} from m)
    select m.id, pg_notify(${CHANNEL}, 'e:' || m.id) from m`,
  );
  return rows.map((r) => r.id);
}

/**
 * Sweeps the running replies among `rows` whose lease has passed (a read that shows a dead
 * instance's reply ends it first); true when one was ended, so the caller reads again.
 */
export async function sweepStale(
  db: Db,
  rows: Pick<MessageRow, "id" | "status" | "leaseUntil">[],
  now: number,
): Promise<boolean> {
  let swept = false;
  for (const m of rows) {
    if (m.status === "in_progress" && m.leaseUntil && m.leaseUntil.getTime() < now) {
      swept = (await sweepExpired(db, now, m.id)).length > 0 || swept;
    }
  }
  return swept;
}

/** Asks the reply to stop (any instance); true when it was running. */
export async function requestStop(db: Db, id: string): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    update messages set stop_requested = true where id = ${id} and status = 'in_progress'
    returning id, pg_notify(${CHANNEL}, 's:' || id)`,
  );
  return rows.length === 1;
}

/** Events after `after`, in order (at most `limit`). */
export async function readEvents(db: Db, id: string, after: number, limit = 1_000): Promise<StoredEvent[]> {
  return rowsOf<StoredEvent>(
    db,
    sql`
    select seq, data from message_events where message_id = ${id} and seq > ${after} order by seq limit ${limit}`,
  );
}

/** The assistant message `id` of conversation `conversationId`, if the key owns it. */
export async function findOwnedReply(
  db: Db,
  keyId: string,
  conversationId: string,
  id: string,
): Promise<MessageRow | null> {
  const [row] = await db
    .select({ m: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(
      and(
        eq(messages.id, id),
        eq(messages.conversationId, conversationId),
        eq(conversations.keyId, keyId),
        eq(messages.role, "assistant"),
      ),
    );
  return row?.m ?? null;
}

/** The assistant message `id`, if the key owns it (through its conversation). */
export async function findReplyOfKey(db: Db, keyId: string, id: string): Promise<MessageRow | null> {
  const [row] = await db
    .select({ m: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(messages.id, id), eq(conversations.keyId, keyId), eq(messages.role, "assistant")));
  return row?.m ?? null;
}

/** The reply's last stored event (its terminal one once it has ended). */
export async function lastEvent(db: Db, id: string): Promise<StoredEvent | null> {
  const rows = await rowsOf<StoredEvent>(
    db,
    sql`select seq, data from message_events where message_id = ${id} order by seq desc limit 1`,
  );
  return rows[0] ?? null;
}

/** The reply's status, or null when it no longer exists. */
export async function replyStatus(db: Db, id: string): Promise<MessageRow["status"] | null> {
  const rows = await rowsOf<{ status: MessageRow["status"] }>(db, sql`select status from messages where id = ${id}`);
  return rows[0]?.status ?? null;
}
