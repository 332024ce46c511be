/** GET /conversations, GET /conversations/:id, GET /conversations/:id/messages, DELETE /conversations/:id. */
import { Elysia } from "elysia";
import { type AdmissionDeps, admission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { ownerOf } from "../db/owner.ts";
import { requestIdsAndErrors, urlOf } from "../http/core.ts";
import { decodeCursor } from "../http/cursor.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { isId } from "../primitives.ts";
import type { Replies } from "../replies/index.ts";
import {
  ConversationDetail,
  ConversationList,
  IdParams,
  LIMIT_MESSAGE,
  ListQuery,
  MessageList,
  MessagesQuery,
  toMessage,
  toSummary,
} from "./model.ts";
import { deleteConversation, listConversations, MESSAGES_CAP, pageMessages, readableConversation } from "./service.ts";

const conversationNotFound = (id: string) => notFound("conversation", id, "id");

/** The schema coerces with Number() ("1e2", "0x10", " 5"); a page size is plain digits, given once. */
function plainLimit({ request }: { request: Request }) {
  const raw = urlOf(request).searchParams.getAll("limit");
  // Twice is ambiguous (and the schema would check only one of them): refuse it.
  if (raw.length > 1 || (raw.length === 1 && !/^\d{1,3}$/.test(raw[0]!))) {
    throw new ApiError("invalid_request", LIMIT_MESSAGE, { param: "limit" });
  }
}

export const conversationRoutes = (deps: AdmissionDeps & { logger: Logger; replies: Pick<Replies, "expireStale"> }) =>
  new Elysia({ prefix: "/conversations", tags: ["Conversations"] })
    .use(requestIdsAndErrors(deps.logger))
    // A visitor lists and reads its own conversations; deleting is its key's owner's business.
    .use(admission(deps, { visitors: (request) => request.method === "GET" || request.method === "HEAD" }))
    .get(
      "",
      async ({ query, apiKey }) => {
        const cursor = query.cursor === undefined ? null : await decodeCursor(deps.db, query.cursor);
        const page = await listConversations(deps.db, ownerOf(apiKey), query.limit ?? 20, cursor);
        return {
          data: page.rows.map(toSummary),
          pagination: { has_more: page.hasMore, next_cursor: page.nextCursor },
        };
      },
      {
        transform: plainLimit,
        query: ListQuery,
        response: { 200: ConversationList, ...ErrorResponses },
        detail: routeDoc("List conversations", "The caller's conversations, newest first, by keyset cursor.", {
          operationId: "listConversations",
          success: "ConversationList",
        }),
      },
    )
    .get(
      "/:id",
      async ({ params, apiKey }) => {
        const conv = isId("conv", params.id) ? await readableConversation(deps.db, apiKey, params.id) : null;
        if (!conv) throw conversationNotFound(params.id);
        let page = await pageMessages(deps.db, conv.id, MESSAGES_CAP, null);
        // A reply whose instance died reads as failed once its lease has passed (replies/statements.ts).
        if (await deps.replies.expireStale(page.rows)) page = await pageMessages(deps.db, conv.id, MESSAGES_CAP, null);
        return {
          ...toSummary(conv),
          messages: page.rows.map(toMessage),
          pagination: { has_more: page.hasMore, next_cursor: page.nextCursor },
        };
      },
      {
        params: IdParams,
        response: { 200: ConversationDetail, ...ErrorResponses },
        detail: routeDoc(
          "Get a conversation",
          `One conversation with its most recent messages (up to ${MESSAGES_CAP}), oldest first; older ones via /messages. An admin key may read any key's conversation.`,
          { operationId: "getConversation", success: "ConversationDetail" },
        ),
      },
    )
    .get(
      "/:id/messages",
      async ({ params, query, apiKey }) => {
        const conv = isId("conv", params.id) ? await readableConversation(deps.db, apiKey, params.id) : null;
        if (!conv) throw conversationNotFound(params.id);
        // After the owner check: a cursor says nothing about a conversation the caller cannot see.
        const cursor =
          query.cursor === undefined
            ? null
            : await decodeCursor(deps.db, query.cursor, { prefix: "msg", scope: conv.id });
        const page = await pageMessages(deps.db, conv.id, query.limit ?? MESSAGES_CAP, cursor);
        return { data: page.rows.map(toMessage), pagination: { has_more: page.hasMore, next_cursor: page.nextCursor } };
      },
      {
        transform: plainLimit,
        params: IdParams,
        query: MessagesQuery,
        response: { 200: MessageList, ...ErrorResponses },
        detail: routeDoc(
          "Page a conversation's messages",
          "Newest first by page, each page oldest first: without `cursor`, the most recent messages; with the previous page's `next_cursor`, the ones before them.",
          { operationId: "listMessages", success: "MessageList" },
        ),
      },
    )
    .delete(
      "/:id",
      async ({ params, apiKey }) => {
        if (!isId("conv", params.id) || !(await deleteConversation(deps.db, ownerOf(apiKey), params.id))) {
          throw conversationNotFound(params.id);
        }
        // An explicit empty Response: an empty handler result with status 204 makes Deno.serve
        // answer 500 (elysia#1277). Headers set earlier (request id, rate limits) are merged in.
        return new Response(null, { status: 204 }) as never;
      },
      {
        // A DELETE carries no body: never read one (nor answer 400 for it before the key is checked).
        parse: "none",
        params: IdParams,
        response: ErrorResponses,
        detail: routeDoc("Delete a conversation", "Deletes the conversation and its messages. 204 on success.", {
          operationId: "deleteConversation",
        }),
      },
    );
export {
  COMMENT_MAX,
  ConversationDetail,
  ConversationList,
  ConversationSummary,
  Feedback,
  LIMIT_MESSAGE,
  ListQuery,
  Message,
  MessageList,
  Pagination,
  Usage,
} from "./model.ts";
export { replyRoutes } from "./replies.ts";
export { Reply } from "./reply-model.ts";
export {
  deleteConversation,
  findConversation,
  insertConversation,
  insertEarlierTurns,
  insertUserMessage,
  lastQuestionOf,
  MESSAGES_CAP,
  pageMessages,
  titleFrom,
  touchConversation,
} from "./service.ts";
export { deleteTurn } from "./turns.ts";
