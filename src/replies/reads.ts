/**
 * Reads of a reply: its stored events, its status, and the authorization reads that find a
 * reply only through a conversation the caller's key owns (another key's reply is
 * indistinguishable from one that does not exist).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import type { MessageRow } from "../db/schema.ts";
import { conversations, messages } from "../db/schema.ts";
import type { StoredEvent } from "./batcher.ts";
import { rowsOf } from "./statements.ts";

/** Events after `after`, in order (at most `limit`). */
export async function readEvents(db: Db, id: string, after: number, limit = 1_000): Promise<StoredEvent[]> {
  return rowsOf<StoredEvent>(
    db,
    sql`
    select seq, data from message_events where message_id = ${id} and seq > ${after} order by seq limit ${limit}`,
  );
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

/** The assistant message `id` if key `keyId` owns it (through its conversation, `conversationId` when given). */
export async function findOwnedReply(
  db: Db,
  keyId: string,
  id: string,
  conversationId?: string,
): Promise<MessageRow | null> {
  const [row] = await db
    .select({ m: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(
      and(
        eq(messages.id, id),
        conversationId === undefined ? undefined : eq(messages.conversationId, conversationId),
        eq(conversations.keyId, keyId),
        eq(messages.role, "assistant"),
      ),
    );
  return row?.m ?? null;
}
