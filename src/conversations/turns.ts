/**
 * One turn forgotten: a reply and the question it answered. The Responses door deletes single
 * responses (DELETE /responses/:id, and `store: false`), while Parley stores conversations: the
 * turn goes, and the conversation with it once nothing is left, so no empty conversation stays.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { type Owner, ownedBy } from "../db/owner.ts";
import { rowsOf } from "../db/rows.ts";
import { conversations, messages } from "../db/schema.ts";

/** Deletes reply `id` of `owner` and its question; false when the owner has no such reply. */
export async function deleteTurn(
  db: Db,
  owner: Owner,
  reply: { id: string; conversationId: string; createdAt: Date },
): Promise<boolean> {
  const [conv] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, reply.conversationId), ownedBy(owner)));
  if (!conv) return false;
  // The question is the latest user message up to the reply (both written by one statement).
  const deleted = await rowsOf<{ id: string }>(
    db,
    sql`
    delete from ${messages} where conversation_id = ${conv.id} and (id = ${reply.id} or id = (
      select id from ${messages} where conversation_id = ${conv.id} and role = 'user'
        and created_at <= ${reply.createdAt.toISOString()}::timestamptz
      order by created_at desc, id desc limit 1))
    returning id`,
  );
  await db.execute(sql`
    delete from ${conversations} where id = ${conv.id}
      and not exists (select 1 from ${messages} where conversation_id = ${conv.id})`);
  return deleted.length > 0;
}
