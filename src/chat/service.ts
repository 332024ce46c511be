/**
 * Everything before generation: find or create the conversation, read its history, store the
 * user message. Short statements only; the run that follows holds no transaction.
 */
import type { ChatTurn } from "../agent/types.ts";
import type { ApiKeyInfo } from "../auth/index.ts";
import {
  addMessage,
  createConversationWithMessage,
  findConversation,
  MESSAGES_CAP,
  pageMessages,
  titleFrom,
} from "../conversations/service.ts";
import type { Db } from "../db/client.ts";
import { SQLSTATE, sqlState } from "../db/errors.ts";
import type { ConversationRow } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { clip } from "../http/text.ts";
import { isId } from "../ids.ts";
import { defaultKnowledgeBaseFor, mayUse, resolveKnowledgeBase } from "../knowledge/index.ts";

/** Where the reply to a new message goes, and the turns the agent should know of. */
export interface PreparedReply {
  conversation: ConversationRow;
  history: ChatTurn[];
  /** What the reply may search and cite: the conversation's knowledge base, if the key may still use it. */
  knowledgeBaseId: string | null;
}

const notFound = (id: string) =>
  new ApiError("not_found", `No conversation '${clip(id)}'.`, { param: "conversation_id" });

/**
 * Finds (or creates) the conversation and stores the user message: what a reply needs before its
 * run. A new conversation takes `knowledgeBaseId` (which the key must be allowed: else 404, as
 * for an unknown id) or the key's default; an existing one keeps its own, and naming another is a 400.
 */
export async function prepareReply(
  db: Db,
  key: Pick<ApiKeyInfo, "id" | "role" | "knowledgeBaseIds">,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
  knowledgeBaseId?: string,
): Promise<PreparedReply> {
  const keyId = key.id;
  const named = knowledgeBaseId === undefined ? undefined : (await resolveKnowledgeBase(db, key, knowledgeBaseId)).id;
  if (conversationId == null) {
    const kbId = named ?? (await defaultKnowledgeBaseFor(db, key));
    // A new conversation comes with its first message in one statement: never one without the other.
    return {
      conversation: await createConversationWithMessage(db, keyId, titleFrom(message), message, at, kbId),
      history: [],
      knowledgeBaseId: kbId,
    };
  }
  const conversation = isId("conv", conversationId) ? await findConversation(db, keyId, conversationId) : null;
  if (!conversation) throw notFound(conversationId);
  if (named !== undefined && named !== conversation.kbId) {
    throw new ApiError(
      "invalid_request",
      "A conversation keeps the knowledge base it started with; start a new conversation for another one.",
      { param: "knowledge_base_id" },
    );
  }
  // A key whose grant was withdrawn since gets no passages from it (nothing is cited).
  const kbId = conversation.kbId && mayUse(key, conversation.kbId) ? conversation.kbId : null;
  // The agent sees the most recent messages only, like a read of the conversation: a turn's
  // cost must not grow with the conversation's length.
  const history: ChatTurn[] = (await pageMessages(db, conversation.id, MESSAGES_CAP, null)).rows
    // A stopped reply is what the user chose to keep; failed and running ones are not history.
    .filter((m) => m.status === "completed" || m.status === "stopped")
    .map((m) => ({ role: m.role, content: m.content }));
  try {
    await addMessage(db, {
      conversationId: conversation.id,
      role: "user",
      content: message,
      status: "completed",
      createdAt: at,
    });
  } catch (error) {
    // foreign_key_violation: a DELETE of this conversation won the race since we found it.
    if (sqlState(error) === SQLSTATE.foreignKeyViolation) throw notFound(conversationId);
    throw error;
  }
  return { conversation, history, knowledgeBaseId: kbId };
}
