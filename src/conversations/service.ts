/**
 * Conversations and their messages. Every query names the owning key: another key's
 * conversation is indistinguishable from one that does not exist.
 */
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { conversations, messages } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { type Cursor, encodeCursor } from "./cursor.ts";

/** A stored conversation. */
export type ConversationRow = typeof conversations.$inferSelect;
/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;

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
  return `${cut.slice(0, space > 40 ? space : TITLE_CHARS).join("").trimEnd()}…`;
}

export async function createConversation(db: Db, keyId: string, title: string, at: Date): Promise<ConversationRow> {
  const row = { id: newId("conv"), keyId, title, createdAt: at, updatedAt: at };
  await db.insert(conversations).values(row);
  return row;
}

export async function findConversation(db: Db, keyId: string, id: string): Promise<ConversationRow | null> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.keyId, keyId)));
  return row ?? null;
}

/**
 * Keyset page: a row comparison `(created_at, id) < cursor` is an index condition on
 * (key_id, created_at desc, id desc), so a page deep in the list costs what the first one does
 * (an OR of the two cases would only be a filter over every earlier row). Both shapes are
 * prepared once per database: this is the hot read.
 */
function pageStatements(db: Db) {
  const base = (after?: SQL) =>
    db
      .select()
      .from(conversations)
      .where(and(eq(conversations.keyId, sql.placeholder("key")), after))
      .orderBy(desc(conversations.createdAt), desc(conversations.id))
      .limit(sql.placeholder("limit"));
  return {
    first: base().prepare("parley_conversations_first"),
    after: base(
      sql`(${conversations.createdAt}, ${conversations.id}) < (${sql.placeholder("at")}::timestamptz, ${sql.placeholder("id")})`,
    ).prepare("parley_conversations_after"),
  };
}
const pages = new WeakMap<Db, ReturnType<typeof pageStatements>>();

export async function listConversations(
  db: Db,
  keyId: string,
  limit: number,
  cursor: Cursor | null,
): Promise<ConversationPage> {
  let statements = pages.get(db);
  if (!statements) pages.set(db, (statements = pageStatements(db)));
  const rows = cursor
    ? await statements.after.execute({ key: keyId, limit: limit + 1, at: new Date(cursor.createdAt).toISOString(), id: cursor.id })
    : await statements.first.execute({ key: keyId, limit: limit + 1 });
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    hasMore,
    nextCursor: hasMore && last ? await encodeCursor(db, { createdAt: last.createdAt.getTime(), id: last.id }) : null,
  };
}

export async function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(asc(messages.createdAt), asc(messages.id));
}

/** Deletes a conversation (its messages cascade); false when the key has no such conversation. */
export async function deleteConversation(db: Db, keyId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.keyId, keyId)))
    .returning({ id: conversations.id });
  return rows.length === 1;
}

/** Stores a message and moves the conversation's updated_at forward, in one round trip each. */
export async function addMessage(
  db: Db,
  m: Pick<MessageRow, "conversationId" | "role" | "content" | "status" | "createdAt"> & { id?: string; sources?: string[] },
): Promise<MessageRow> {
  // The run columns (lease, stop flag, last event) only matter to replies being generated (runs/).
  const row: MessageRow = { ...m, id: m.id ?? newId("msg"), sources: m.sources ?? [], leaseUntil: null, stopRequested: false, lastSeq: 0 };
  await db.insert(messages).values(row);
  await db
    .update(conversations)
    .set({ updatedAt: sql`greatest(${conversations.updatedAt}, ${m.createdAt.toISOString()}::timestamptz)` })
    .where(eq(conversations.id, m.conversationId));
  return row;
}
