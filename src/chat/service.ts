/**
 * Everything before generation: find the conversation (or make a new one) and read its history.
 * The conversation and the user message are written by the statement that creates the reply.
 */
import type { ChatTurn } from "../agent/types.ts";
import type { ApiKeyInfo } from "../auth/index.ts";
import {
  findConversation,
  insertConversation,
  insertEarlierTurns,
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
import { defaultKnowledgeBaseFor, mayUse, resolveKnowledgeBase } from "../knowledge/index.ts";
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
  /** What the reply may search and cite: the conversation's knowledge base, if the key may still use it. */
  knowledgeBaseId: string | null;
}

const notFound = (id: string) =>
  new ApiError("not_found", `No conversation '${clip(id)}'.`, { param: "conversation_id" });

/**
 * Finds the conversation (or makes a new one) and reads its history: what a reply needs before
 * its run. A new conversation takes `knowledgeBaseId` (which the key must be allowed: else 404,
 * as for an unknown id) or the key's default; an existing one keeps its own, and naming another
 * is a 400. A new conversation may bring `earlier` turns (a client that keeps its own history,
 * such as a Chat Completions `messages` array): stored before the message, and the agent's history.
 */
export async function prepareReply(
  db: Db,
  key: Pick<ApiKeyInfo, "id" | "role" | "knowledgeBaseIds">,
  message: string,
  conversationId: string | null | undefined,
  at: Date,
  knowledgeBaseId?: string,
  /** A new conversation's earlier turns, as the client had them; ignored when continuing one. */
  earlier: ChatTurn[] = [],
): Promise<PreparedReply> {
  const keyId = key.id;
  const named = knowledgeBaseId === undefined ? undefined : (await resolveKnowledgeBase(db, key, knowledgeBaseId)).id;
  if (conversationId == null) {
    const kbId = named ?? (await defaultKnowledgeBaseFor(db, key));
    const title = titleFrom(earlier.find((t) => t.role === "user")?.content ?? message);
    const conversation = { id: newId("conv"), keyId, kbId, title, createdAt: at, updatedAt: at };
    // The message's id is made after the conversation's: (created_at, id) orders the turn.
    return {
      conversation,
      history: earlier,
      writes: [
        insertConversation(conversation),
        ...(earlier.length ? [insertEarlierTurns(conversation.id, earlier, at)] : []),
        insertUserMessage(conversation.id, message, at),
      ],
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
    // A stopped reply is what the user chose to keep, a cut one (length) what they got; failed
    // and running ones are not history.
    .filter((m) => m.status === "completed" || m.status === "stopped" || m.status === "length")
    .map((m) => ({ role: m.role, content: m.content }));
  // The reply statement moves the conversation's updated_at (touchConversation): not this write.
  return { conversation, history, writes: [insertUserMessage(conversation.id, message, at)], knowledgeBaseId: kbId };
}
