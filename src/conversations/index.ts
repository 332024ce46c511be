/** GET /conversations, GET /conversations/:id, DELETE /conversations/:id. */
import { Elysia } from "elysia";
import { guard, type GuardDeps } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { ApiError } from "../http/errors.ts";
import { clip, httpCore } from "../http/index.ts";
import { urlOf } from "../http/request-id.ts";
import { ErrorResponses } from "../http/model.ts";
import { isId } from "../ids.ts";
import { decodeCursor } from "./cursor.ts";
import { ConversationDetail, ConversationList, IdParams, LIMIT_MESSAGE, ListQuery, toMessage, toSummary } from "./model.ts";
import { deleteConversation, findConversation, listConversations, listMessages } from "./service.ts";
import { sweepStale } from "../runs/store.ts";

const notFound = (id: string) => new ApiError("not_found", `No conversation '${clip(id)}'.`, { param: "id" });

export const conversationRoutes = (deps: GuardDeps & { logger: Logger }) =>
  new Elysia({ prefix: "/conversations", tags: ["Conversations"] })
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .get(
      "",
      async ({ query, apiKey }) => {
        const cursor = query.cursor === undefined ? null : await decodeCursor(deps.db, query.cursor);
        const page = await listConversations(deps.db, apiKey.id, query.limit ?? 20, cursor);
        return {
          data: page.rows.map(toSummary),
          pagination: { has_more: page.hasMore, next_cursor: page.nextCursor },
        };
      },
      {
        // The schema coerces with Number() ("1e2", "0x10", " 5"); a page size is plain digits.
        transform({ request }) {
          const raw = urlOf(request).searchParams.getAll("limit");
          // Twice is ambiguous (and the schema would check only one of them): refuse it.
          if (raw.length > 1 || (raw.length === 1 && !/^\d{1,3}$/.test(raw[0]!))) {
            throw new ApiError("invalid_request", LIMIT_MESSAGE, { param: "limit" });
          }
        },
        query: ListQuery,
        response: { 200: ConversationList, ...ErrorResponses },
        detail: { summary: "List conversations", description: "The caller's conversations, newest first, by keyset cursor." },
      },
    )
    .get(
      "/:id",
      async ({ params, apiKey }) => {
        const conv = isId("conv", params.id) ? await findConversation(deps.db, apiKey.id, params.id) : null;
        if (!conv) throw notFound(params.id);
        let msgs = await listMessages(deps.db, conv.id);
        // A reply whose instance died reads as failed once its lease has passed (runs/store.ts).
        if (await sweepStale(deps.db, msgs, deps.now())) msgs = await listMessages(deps.db, conv.id);
        return { ...toSummary(conv), messages: msgs.map(toMessage) };
      },
      {
        params: IdParams,
        response: { 200: ConversationDetail, ...ErrorResponses },
        detail: { summary: "Get a conversation", description: "One conversation with its messages, oldest first." },
      },
    )
    .delete(
      "/:id",
      async ({ params, apiKey, set }) => {
        if (!isId("conv", params.id) || !(await deleteConversation(deps.db, apiKey.id, params.id))) {
          throw notFound(params.id);
        }
        set.status = 204;
      },
      {
        // A DELETE carries no body: never read one (nor answer 400 for it before the key is checked).
        parse: "none",
        params: IdParams,
        response: ErrorResponses,
        detail: { summary: "Delete a conversation", description: "Deletes the conversation and its messages. 204 on success." },
      },
    );
