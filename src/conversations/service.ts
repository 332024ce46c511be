/**
 * Conversations and their messages. Every query names the owning key: another key's
 * conversation is indistinguishable from one that does not exist.
 */
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { type Owner, ownedBy, ownerOf } from "../db/owner.ts";
import { getOrCreate } from "../db/rows.ts";
import type { ConversationRow, MessageRow } from "../db/schema.ts";

/** A key as a conversation read sees it: an admin key reads any; others (and visitors) their own. */
type ReadingKey = { id: string; role: string; visitor?: { id: string } };

import { conversations, messageFeedback, messages } from "../db/schema.ts";
import { type Cursor, encodeCursor } from "../http/cursor.ts";
import { newId } from "../primitives.ts";
import type { ReplyWrite } from "../replies/index.ts";
import type { FeedbackRow } from "./model.ts";

/** A page of conversations, newest first. */
export interface ConversationPage {
  rows: ConversationRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

const TITLE_CHARS = 80;

/** A title from the first user message: its first line, cut at a word near 80 characters. */
export function titleFrom(message: string): string {
  // By code point, so an emoji is never cut in half.
  const line = [...message.trim().split("\n")[0]!.trim()];
  if (line.length <= TITLE_CHARS) return line.join("");
  const cut = line.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${cut
    .slice(0, space > 40 ? space : TITLE_CHARS)
    .join("")
    .trimEnd()}…`;
}

/**
 * A chat turn's own rows as parts of the statement that creates the reply (replies/statements.ts):
 * the conversation when the turn starts one, and the user message. One statement writes the
 * conversation, the user message and the running reply (one round trip and one commit
 * instead of three): none exists without the others, and there is no transaction to hold (PGlite
 * has one connection). A conversation deleted since it was found fails the statement (23503).
 */
export const insertConversation =
  (row: ConversationRow): ReplyWrite =>
  () =>
    sql`insert into ${conversations} (id, key_id, visitor_id, kb_id, title, created_at, updated_at)
      values (${row.id}, ${row.keyId}, ${row.visitorId}, ${row.kbId}, ${row.title}, ${row.createdAt.toISOString()}::timestamptz, ${row.updatedAt.toISOString()}::timestamptz)`;

export const insertUserMessage =
  (conversationId: string, content: string, at: Date): ReplyWrite =>
  () =>
    sql`insert into ${messages} (id, conversation_id, role, content, sources, status, created_at)
      values (${newId("msg")}, ${conversationId}, 'user', ${content}, '[]'::jsonb, 'completed', ${at.toISOString()}::timestamptz)`;

/**
 * A new conversation's earlier turns, as a client that sends its own history had them (a Chat
 * Completions `messages` array), stored before its first message a millisecond apart, so the
 * conversation reads back as the client had it. Written in the reply's statement, like the rest.
 * The turns go as ONE JSON parameter, whatever their number: a row of bind parameters per turn
 * passed the protocol's 65,535 at about 16,400 turns (the door bounds them far below that too).
 */
export const insertEarlierTurns =
  (conversationId: string, turns: readonly { role: "user" | "assistant"; content: string }[], at: Date): ReplyWrite =>
  () => {
    const rows = turns.map((t, i) => ({
      id: newId("msg"),
      role: t.role,
      content: t.content,
      created_at: new Date(at.getTime() - (turns.length - i)).toISOString(),
    }));
    return sql`insert into ${messages} (id, conversation_id, role, content, sources, status, created_at)
      select v.id, ${conversationId}, v.role, v.content, '[]'::jsonb, 'completed', v.created_at
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, role text, content text, created_at timestamptz)`;
  };

export async function findConversation(db: Db, owner: Owner, id: string): Promise<ConversationRow | null> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), ownedBy(owner)));
  return row ?? null;
}

/** Conversation `id` if `key` may read it: its own, or any for an admin key (it reads every key's feedback). */
export async function readableConversation(db: Db, key: ReadingKey, id: string) {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), key.role === "admin" ? undefined : ownedBy(ownerOf(key))));
  return row ?? null;
}

/**
 * The latest user message of conversation `id`, when `key` may read it (its own; an admin key
 * any, as it reads every key's feedback), else null: the context a search is run in.
 */
export async function lastQuestionOf(db: Db, key: ReadingKey, id: string): Promise<string | null> {
  const [row] = await db
    .select({ content: messages.content })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(
      and(
        eq(conversations.id, id),
        eq(messages.role, "user"),
        key.role === "admin" ? undefined : ownedBy(ownerOf(key)),
      ),
    )
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(1);
  return row?.content ?? null;
}

/**
 * Keyset page: a row comparison `(created_at, id) < cursor` is an index condition on
 * (key_id, created_at desc, id desc), so a page deep in the list costs what the first one does
 * (an OR of the two cases would only be a filter over every earlier row). Both shapes are
 * prepared once per database: this is the hot read.
 */
function pageStatements(db: Db) {
  const base = (visitor: boolean, after?: SQL) =>
    db
      .select()
      .from(conversations)
      .where(
        and(
          eq(conversations.keyId, sql.placeholder("key")),
          // A visitor's own range of its index (conversations_visitor_created_idx).
          visitor ? eq(conversations.visitorId, sql.placeholder("visitor")) : undefined,
          after,
        ),
      )
      .orderBy(desc(conversations.createdAt), desc(conversations.id))
      .limit(sql.placeholder("limit"));
  const after = sql`(${conversations.createdAt}, ${conversations.id}) < (${sql.placeholder("at")}::timestamptz, ${sql.placeholder("id")})`;
  return {
    first: base(false).prepare("parley_conversations_first"),
    after: base(false, after).prepare("parley_conversations_after"),
    visitorFirst: base(true).prepare("parley_conversations_visitor_first"),
    visitorAfter: base(true, after).prepare("parley_conversations_visitor_after"),
  };
}
const pages = new WeakMap<Db, ReturnType<typeof pageStatements>>();

export async function listConversations(
  db: Db,
  owner: Owner,
  limit: number,
  cursor: Cursor | null,
): Promise<ConversationPage> {
  const statements = getOrCreate(pages, db, () => pageStatements(db));
  const who = { key: owner.keyId, visitor: owner.visitorId ?? undefined, limit: limit + 1 };
  const [first, after] = owner.visitorId
    ? [statements.visitorFirst, statements.visitorAfter]
    : [statements.first, statements.after];
  const rows = cursor
    ? await after.execute({ ...who, at: new Date(cursor.createdAt).toISOString(), id: cursor.id })
    : await first.execute(who);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    hasMore,
    nextCursor: hasMore && last ? await encodeCursor(db, { createdAt: last.createdAt.getTime(), id: last.id }) : null,
  };
}

/** Messages a conversation read returns at most; older ones are paged (docs/api.md). */
export const MESSAGES_CAP = 100;

/** A page of a conversation's messages: the newest before the cursor, in chronological order. */
export interface MessagePage {
  /** Each with its rating (null when none). */
  rows: (MessageRow & { feedback: FeedbackRow | null })[];
  hasMore: boolean;
  /** Cursor for the page of older messages; null when there are none. */
  nextCursor: string | null;
}

/**
 * The `limit` most recent messages of a conversation before `cursor` (all when null), walking
 * back by `(created_at, id)` on the (conversation_id, created_at, id) index; the page comes back
 * oldest first, as a conversation is read. The caller has checked the conversation's owner.
 */
export async function pageMessages(
  db: Db,
  conversationId: string,
  limit: number,
  cursor: Cursor | null,
): Promise<MessagePage> {
  const before = cursor
    ? sql`(${messages.createdAt}, ${messages.id}) < (${new Date(cursor.createdAt).toISOString()}::timestamptz, ${cursor.id})`
    : undefined;
  const joined = await db
    .select({
      m: messages,
      f: { rating: messageFeedback.rating, comment: messageFeedback.comment, updatedAt: messageFeedback.updatedAt },
    })
    .from(messages)
    .leftJoin(messageFeedback, eq(messageFeedback.messageId, messages.id))
    .where(and(eq(messages.conversationId, conversationId), before))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(limit + 1);
  const rows = joined.map(({ m, f }) => ({ ...m, feedback: f }));
  const hasMore = rows.length > limit;
  const page = (hasMore ? rows.slice(0, limit) : rows).reverse();
  const oldest = page[0];
  return {
    rows: page,
    hasMore,
    nextCursor:
      hasMore && oldest
        ? await encodeCursor(db, { createdAt: oldest.createdAt.getTime(), id: oldest.id }, conversationId)
        : null,
  };
}

/** Deletes a conversation (its messages cascade); false when the key has no such conversation. */
export async function deleteConversation(db: Db, owner: Owner, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), ownedBy(owner)))
    .returning({ id: conversations.id });
  return rows.length === 1;
}

/**
 * The conversation's part of a reply statement (replies/statements.ts): moves its `updated_at` to
 * `at` (never back), in the statement that creates or ends the reply, so both change together.
 */
export const touchConversation =
  (at: number): ReplyWrite =>
  (reply) =>
    sql`update ${conversations} set updated_at = greatest(updated_at, ${new Date(at).toISOString()}::timestamptz) where id in (select conversation_id from ${reply})`;
