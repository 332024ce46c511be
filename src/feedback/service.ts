/**
 * Ratings of assistant replies. A rating is written by ONE conditional upsert that names the
 * owning key, the conversation and the rules (an assistant message that has ended), so no
 * check can go stale before the write; only when it writes nothing is the message read, to
 * say why.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Rating } from "../contract/operate.ts";
import type { Db } from "../db/client.ts";
import { type Owner, ownedBy, ownedByRaw } from "../db/owner.ts";
import { rowsOf } from "../db/rows.ts";
import { conversations, messages } from "../db/schema.ts";

export interface StoredFeedback {
  rating: Rating;
  comment: string | null;
}

/** Why a rating was not written: no such message (for this key), a user message, or a running reply. */
export type Refusal = "not_found" | "not_assistant" | "in_progress";

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

export async function putFeedback(
  db: Db,
  r: { owner: Owner; conversationId: string; messageId: string; rating: Rating; comment: string | null; at: Date },
): Promise<StoredFeedback | Refusal> {
  const rows = await rowsOf<StoredFeedback>(
    db,
    sql`
    insert into message_feedback (message_id, key_id, rating, comment, updated_at)
    select m.id, c.key_id, ${r.rating}, ${r.comment}, ${ts(r.at)}
    from messages m join conversations c on c.id = m.conversation_id
    where m.id = ${r.messageId} and m.conversation_id = ${r.conversationId} and ${ownedByRaw("c", r.owner)}
      and m.role = 'assistant' and m.status <> 'in_progress'
    on conflict (message_id) do update
      set rating = excluded.rating, comment = excluded.comment, updated_at = excluded.updated_at
    returning rating, comment`,
  );
  if (rows[0]) return rows[0];
  return whyNot(db, r);
}

/** Removes the rating; false when the message is not this key's (a message without one: true). */
export async function deleteFeedback(
  db: Db,
  r: { owner: Owner; conversationId: string; messageId: string },
): Promise<boolean | Refusal> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    with m as (
      select m.id from messages m join conversations c on c.id = m.conversation_id
      where m.id = ${r.messageId} and m.conversation_id = ${r.conversationId} and ${ownedByRaw("c", r.owner)}
        and m.role = 'assistant'
    ),
    d as (delete from message_feedback where message_id in (select id from m))
    select id from m`,
  );
  return rows.length === 1 ? true : whyNot(db, r);
}

async function whyNot(db: Db, r: { owner: Owner; conversationId: string; messageId: string }): Promise<Refusal> {
  const [m] = await db
    .select({ role: messages.role, status: messages.status })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(messages.id, r.messageId), eq(messages.conversationId, r.conversationId), ownedBy(r.owner)));
  if (!m) return "not_found";
  if (m.role !== "assistant") return "not_assistant";
  return "in_progress";
}

/** What GET /v1/feedback filters on. */
export interface FeedbackFilter {
  rating?: Rating;
  keyId?: string;
  /** Ratings given at or after / before these instants (ms). */
  from?: number;
  to?: number;
}

/** One rated reply with its question, answer and sources. */
export interface FeedbackListRow {
  message_id: string;
  conversation_id: string;
  key_id: string;
  rating: Rating;
  comment: string | null;
  updated_ms: string | number;
  created_ms: string | number;
  question: string | null;
  answer: string;
  sources: string[] | string;
  status: string;
}

/**
 * Ratings, newest first, by keyset on (updated_at, message_id) after `cursor`. The question is
 * the latest user message before the reply in its conversation (one index probe per row).
 */
export async function listFeedback(
  db: Db,
  f: FeedbackFilter,
  limit: number,
  cursor: { createdAt: number; id: string } | null,
): Promise<FeedbackListRow[]> {
  const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
  const where = [
    sql`true`,
    f.rating ? sql`f.rating = ${f.rating}` : undefined,
    f.keyId ? sql`f.key_id = ${f.keyId}` : undefined,
    f.from !== undefined ? sql`f.updated_at >= ${at(f.from)}` : undefined,
    f.to !== undefined ? sql`f.updated_at < ${at(f.to)}` : undefined,
    cursor ? sql`(f.updated_at, f.message_id) < (${at(cursor.createdAt)}, ${cursor.id})` : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return rowsOf<FeedbackListRow>(
    db,
    sql`
    select f.message_id, m.conversation_id, f.key_id, f.rating, f.comment,
      (extract(epoch from f.updated_at) * 1000)::bigint as updated_ms,
      (extract(epoch from m.created_at) * 1000)::bigint as created_ms,
      (select u.content from messages u
        where u.conversation_id = m.conversation_id and u.role = 'user' and (u.created_at, u.id) < (m.created_at, m.id)
        order by u.created_at desc, u.id desc limit 1) as question,
      m.content as answer, m.sources, m.status
    from message_feedback f join messages m on m.id = f.message_id
    where ${sql.join(where, sql` and `)}
    order by f.updated_at desc, f.message_id desc
    limit ${limit + 1}`,
  );
}
