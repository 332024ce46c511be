/**
 * Everything before generation: find the conversation (or make a new one) and read its history.
 * The conversation and the user message are written by the statement that creates the reply.
 */
import type { ChatTurn } from "../agent/types.ts";
import {
  findConversation,
  insertConversation,
  insertUserMessage,
  MESSAGES_CAP,
  pageMessages,
  titleFrom,
} from "../conversations/service.ts";
import type { Db } from "../db/client.ts";
import type { ConversationRow } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { clip } from "../http/text.ts";
import { isId, newId } from "../ids.ts";
import type { ReplyWrite } from "../replies/index.ts";

/**
 * Where the reply to a new message goes, the turns the agent should know of, and the turn's own
 * writes (the conversation when it is new, the user message), which run in the statement that
 * creates the reply.
 */
export interface PreparedReply {
  conversation: ConversationRow;
  history: ChatTurn[];
  writes: ReplyWrite[];
}

const notFound = (id: string) =>
  new ApiError("not_found", `No conversation '${clip(id)}'.`, { param: "conversation_id" });

/** Finds the conversation (or makes a new one) and reads its history: what a reply needs before its run. */
export async function prepareReply(
  db: Db,
  keyId: string,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
): Promise<PreparedReply> {
  if (conversationId == null) {
    const conversation = { id: newId("conv"), keyId, title: titleFrom(message), createdAt: at, updatedAt: at };
    // The message's id is made after the conversation's: (created_at, id) orders the turn.
    return {
      conversation,
      history: [],
      writes: [insertConversation(conversation), insertUserMessage(conversation.id, message, at)],
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
  // The reply statement moves the conversation's updated_at (touchConversation): not this write.
  return { conversation, history, writes: [insertUserMessage(conversation.id, message, at)] };
}
