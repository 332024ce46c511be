/**
 * Everything before generation: find or create the conversation, read its history, store the
 * user message. Short statements only; the run that follows holds no transaction.
 */
import type { ChatTurn } from "../agent/types.ts";
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

/** Where the reply to a new message goes, and the turns the agent should know of. */
export interface PreparedReply {
  conversation: ConversationRow;
  history: ChatTurn[];
}

const notFound = (id: string) =>
  new ApiError("not_found", `No conversation '${clip(id)}'.`, { param: "conversation_id" });

/** Finds (or creates) the conversation and stores the user message: what a reply needs before its run. */
export async function prepareReply(
  db: Db,
  keyId: string,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
): Promise<PreparedReply> {
  if (conversationId == null) {
    // A new conversation comes with its first message in one statement: never one without the other.
    return {
      conversation: await createConversationWithMessage(db, keyId, titleFrom(message), message, at),
      history: [],
    };
  }
  const conversation = isId("conv", conversationId) ? await findConversation(db, keyId, conversationId) : null;
  if (!conversation) throw notFound(conversationId);
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
  return { conversation, history };
}
