/**
 * Conversations and messages written straight into the store, for tests that need history the
 * API would take long to build (pages of conversations, odd messages). The product writes them
 * only through a reply's statement (conversations/ and replies/); these are fixtures.
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import type { ConversationRow, MessageRow } from "../../src/db/schema.ts";
import { conversations, messages } from "../../src/db/schema.ts";
import { newId } from "../../src/primitives.ts";

/** An empty conversation. */
export async function createConversation(
  db: Db,
  keyId: string,
  title: string,
  at: Date,
  kbId: string | null = null,
): Promise<ConversationRow> {
  const row = { id: newId("conv"), keyId, visitorId: null, kbId, title, createdAt: at, updatedAt: at };
  await db.insert(conversations).values(row);
  return row;
}

/** Stores a message and moves the conversation's updated_at forward, in one round trip each. */
export async function addMessage(
  db: Db,
  m: Omit<
    MessageRow,
    | "id"
    | "sources"
    | "inputTokens"
    | "outputTokens"
    | "leaseUntil"
    | "stopRequested"
    | "lastSeq"
    | "tokenOffsets"
    | "compactedEvents"
    | "certainty"
  > &
    Partial<Pick<MessageRow, "id" | "sources" | "inputTokens" | "outputTokens" | "certainty">>,
): Promise<MessageRow> {
  // The run columns (lease, stop flag, last event) only matter to replies being generated (replies/).
  const row: MessageRow = {
    ...m,
    id: m.id ?? newId("msg"),
    sources: m.sources ?? [],
    inputTokens: m.inputTokens ?? null,
    outputTokens: m.outputTokens ?? null,
    certainty: m.certainty ?? null,
    leaseUntil: null,
    stopRequested: false,
    lastSeq: 0,
    tokenOffsets: null,
    compactedEvents: null,
  };
  await db.insert(messages).values(row);
  await db
    .update(conversations)
    .set({ updatedAt: sql`greatest(${conversations.updatedAt}, ${m.createdAt.toISOString()}::timestamptz)` })
    .where(eq(conversations.id, m.conversationId));
  return row;
}
