/**
 * Reads of a reply: its stored events, its status, and the authorization reads that find a
 * reply only through a conversation the caller's key owns (another key's reply is
 * indistinguishable from one that does not exist).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { type Owner, ownedBy } from "../db/owner.ts";
import type { MessageRow } from "../db/schema.ts";
import { conversations, messages } from "../db/schema.ts";
import type { StoredEvent } from "./generate.ts";
import { rowsOf } from "./statements.ts";

/**
 * Events after `after`, in order (at most `limit`). A compacted reply's (compact.ts) are rebuilt
 * in the same statement: its kept events, and one token event with its last token's id carrying
 * the text after the client's position (offsets count characters, sliced by `substr` alike).
 */
export async function readEvents(db: Db, id: string, after: number, limit = 1_000): Promise<StoredEvent[]> {
  const rows = await rowsOf<{ seq: number; data: string | null; missing: string | null }>(
    db,
    sql`select seq, data, missing from (${eventsAfter(id, after, limit)}) as e order by seq`,
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    data: r.data ?? JSON.stringify({ type: "token", content: r.missing ?? "" }),
  }));
}

/**
 * The same events as `readEvents`, as one value: `seq` and `data` on alternate lines (an event's
 * JSON has no raw newline). A replay page is then one string built by the database, not `limit`
 * row objects to build and collect (rows per page had 50 concurrent replays of a 20,000-event
 * reply add up to twice the memory: bench/replay-memory.ts); replay.ts frames it. A rebuilt
 * token's JSON is written as JSON.stringify writes it (to_json escapes alike).
 */
export async function readPage(
  db: Db,
  id: string,
  after: number,
  limit: number,
): Promise<{ events: string; last: number | null; count: number }> {
  const data = sql.raw(`coalesce(data, '{"type":"token","content":' || to_json(missing)::text || '}')`);
  const rows = await rowsOf<{ events: string | null; last: number | null; count: number }>(
    db,
    sql`select string_agg(seq || E'\n' || ${data}, E'\n' order by seq) as events,
      max(seq) as last, count(*)::int as count
    from (${eventsAfter(id, after, limit)}) as e`,
  );
  const row = rows[0];
  return {
    events: row?.events ?? "",
    last: row?.last == null ? null : Number(row.last),
    count: Number(row?.count ?? 0),
  };
}

/** The first `limit` events after `after` (seq, data; or the rebuilt text as `missing`), compacted or not. */
const eventsAfter = (id: string, after: number, limit: number) => sql`
    select seq, data, missing from (
      (select seq, data, null::text as missing from message_events
        where message_id = ${id} and seq > ${after}::int order by seq limit ${limit})
      union all
      (select (k.pair ->> 0)::int as seq, k.pair ->> 1 as data, null::text as missing
        from messages m cross join lateral jsonb_array_elements(m.compacted_events -> 'kept') as k(pair)
        where m.id = ${id} and m.token_offsets is not null and (k.pair ->> 0)::int > ${after}::int)
      union all
      (select c.last as seq, null::text as data,
          substr(coalesce(m.compacted_events ->> 'text', m.content),
            1 + case when ${after}::int < c.first then 0 else m.token_offsets[${after}::int - c.first + 1] end) as missing
        from messages m
        cross join lateral (select (m.compacted_events ->> 'first')::int as first,
          (m.compacted_events ->> 'first')::int + cardinality(m.token_offsets) - 1 as last) as c
        where m.id = ${id} and cardinality(m.token_offsets) > 0 and c.last > ${after}::int)
    ) as u order by seq limit ${limit}`;

/** The reply's last stored event (its terminal one once it has ended), compacted or not. */
export async function lastEvent(db: Db, id: string): Promise<StoredEvent | null> {
  const rows = await rowsOf<StoredEvent>(
    db,
    sql`
    select seq, data from (
      (select seq, data from message_events where message_id = ${id} order by seq desc limit 1)
      union all
      (select (compacted_events -> 'kept' -> -1 ->> 0)::int, compacted_events -> 'kept' -> -1 ->> 1 from messages
        where id = ${id} and token_offsets is not null and jsonb_array_length(compacted_events -> 'kept') > 0)
    ) as e order by seq desc limit 1`,
  );
  return rows[0] ? { seq: Number(rows[0].seq), data: rows[0].data } : null;
}

/** The reply's status, or null when it no longer exists. */
export async function replyStatus(db: Db, id: string): Promise<MessageRow["status"] | null> {
  const rows = await rowsOf<{ status: MessageRow["status"] }>(db, sql`select status from messages where id = ${id}`);
  return rows[0]?.status ?? null;
}

/** What resuming or stopping a reply needs of it: not its text, which a long reply makes large. */
export type ReplyState = Pick<MessageRow, "id" | "conversationId" | "status" | "lastSeq" | "leaseUntil">;
const STATE_COLUMNS = {
  id: messages.id,
  conversationId: messages.conversationId,
  status: messages.status,
  lastSeq: messages.lastSeq,
  leaseUntil: messages.leaseUntil,
};

/** The assistant message `id` if `owner` owns it (through its conversation, `conversationId` when given). */
export async function findOwnedReply(
  db: Db,
  owner: Owner,
  id: string,
  conversationId?: string,
): Promise<MessageRow | null> {
  const [row] = await db
    .select({ m: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(ownedReply(owner, id, conversationId));
  return row?.m ?? null;
}

/** `findOwnedReply`'s state columns only. */
export async function findOwnedReplyState(
  db: Db,
  owner: Owner,
  id: string,
  conversationId?: string,
): Promise<ReplyState | null> {
  const [row] = await db
    .select(STATE_COLUMNS)
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(ownedReply(owner, id, conversationId));
  return row ?? null;
}

/** The key that owns reply `id` of conversation `conversationId` (a resume token's), or null. */
export async function replyOwner(db: Db, id: string, conversationId: string): Promise<string | null> {
  const [row] = await db
    .select({ keyId: conversations.keyId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(messages.id, id), eq(messages.conversationId, conversationId), eq(messages.role, "assistant")));
  return row?.keyId ?? null;
}

/** Message `id`, an assistant's, in a conversation `owner` owns (`conversationId` when given). */
const ownedReply = (owner: Owner, id: string, conversationId?: string) =>
  and(
    eq(messages.id, id),
    conversationId === undefined ? undefined : eq(messages.conversationId, conversationId),
    ownedBy(owner),
    eq(messages.role, "assistant"),
  );
