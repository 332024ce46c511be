/**
 * Everything before generation: find or create the conversation, read its history, store the
 * user message. Short statements only; the run that follows holds no transaction.
 */
import type { ChatTurn } from "../agent/types.ts";
import {
  type ConversationRow,
  createConversation,
  findConversation,
  listMessages,
  addMessage,
  titleFrom,
} from "../conversations/service.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { isId } from "../ids.ts";

/** The conversation a new message goes to, and what the agent should know of it. */
export interface Turn {
  conversation: ConversationRow;
  history: ChatTurn[];
}

export async function beginTurn(
  db: Db,
  keyId: string,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
): Promise<Turn> {
  let conversation: ConversationRow | null;
  let history: ChatTurn[] = [];
  if (conversationId != null) {
    conversation = isId("conv", conversationId) ? await findConversation(db, keyId, conversationId) : null;
    if (!conversation) {
      throw new ApiError("not_found", `No conversation '${conversationId}'.`, { param: "conversation_id" });
    }
    history = (await listMessages(db, conversation.id))
      .filter((m) => m.status === "completed")
      .map((m) => ({ role: m.role, content: m.content }));
  } else {
    conversation = await createConversation(db, keyId, titleFrom(message), at);
  }
  await addMessage(db, { conversationId: conversation.id, role: "user", content: message, status: "completed", createdAt: at });
  return { conversation, history };
}
