/**
 * Feedback on replies: PUT/DELETE /v1/conversations/:id/messages/:message_id/feedback (the conversation's
 * key), and GET /v1/feedback (admins): rated replies with their question, answer and sources,
 * newest first, so a docs team can find what its knowledge base lacks.
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, adminAdmission, admission } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { Feedback } from "../conversations/index.ts";
import { ownerOf } from "../db/owner.ts";
import { jsonBody } from "../http/body.ts";
import { requestIdsAndErrors } from "../http/core.ts";
import { decodeCursor, encodeCursor } from "../http/cursor.ts";
import { ApiError, clip } from "../http/errors.ts";
import { ErrorBody, ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { isId } from "../primitives.ts";
import { FeedbackBody, FeedbackList, FeedbackParams, FeedbackQuery } from "./model.ts";
import { deleteFeedback, listFeedback, putFeedback, type Refusal } from "./service.ts";

/** One cursor scope for the feedback list (a conversation's message cursor does not fit it). */
const SCOPE = "feedback";

function refused(why: Refusal, mid: string): ApiError {
  if (why === "not_assistant")
    return new ApiError("invalid_request", "Only assistant replies can be rated, not user messages.", {
      param: "message_id",
    });
  if (why === "in_progress")
    return new ApiError("reply_in_progress", "This reply is still being generated; rate it once it has ended.");
  // Unknown, another conversation's, or another key's: the same 404.
  return new ApiError("not_found", `No reply '${clip(mid)}' in this conversation.`, { param: "message_id" });
}

function instant(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) {
    throw new ApiError(
      "invalid_request",
      `Invalid query parameter '${name}': expected an ISO 8601 date or date-time.`,
      {
        param: name,
      },
    );
  }
  return ms;
}

const ownedIds = (p: { id: string; message_id: string }) => isId("conv", p.id) && isId("msg", p.message_id);

export const feedbackRoutes = (deps: AdmissionDeps & { logger: Logger }) =>
  new Elysia({ tags: ["Feedback"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(admission(deps, { visitors: true }))
    .delete(
      "/conversations/:id/messages/:message_id/feedback",
      async ({ params, apiKey }) => {
        const r = { owner: ownerOf(apiKey), conversationId: params.id, messageId: params.message_id };
        const out = ownedIds(params) ? await deleteFeedback(deps.db, r) : "not_found";
        // in_progress cannot come back here (a running reply has no rating to remove): 204.
        if (out === "not_found" || out === "not_assistant") throw refused(out, params.message_id);
        return new Response(null, { status: 204 }) as never;
      },
      {
        parse: "none",
        params: FeedbackParams,
        response: ErrorResponses,
        detail: routeDoc(
          "Remove a reply's rating",
          "204 whether or not it had one; 404 for an unknown or foreign reply.",
          {
            operationId: "deleteFeedback",
          },
        ),
      },
    )
    // JSON bodies only for the routes after this point (a DELETE or GET never reads one).
    .use(jsonBody(deps.options.maxBodyBytes))
    .put(
      "/conversations/:id/messages/:message_id/feedback",
      async ({ params, body, apiKey }) => {
        const at = new Date(deps.now());
        const r = { owner: ownerOf(apiKey), conversationId: params.id, messageId: params.message_id };
        const out = ownedIds(params)
          ? await putFeedback(deps.db, { ...r, rating: body.rating, comment: body.comment ?? null, at })
          : "not_found";
        if (typeof out === "string") throw refused(out, params.message_id);
        return { rating: out.rating, comment: out.comment, updated_at: at.toISOString() };
      },
      {
        params: FeedbackParams,
        body: FeedbackBody,
        response: { 200: Feedback, ...ErrorResponses, 409: ErrorBody, 413: ErrorBody, 415: ErrorBody },
        detail: routeDoc(
          "Rate a reply",
          "One rating per assistant reply; a new one replaces it. A user message is 400, a running reply 409 reply_in_progress, an unknown or foreign one 404.",
          { operationId: "putFeedback", success: "Feedback", body: "FeedbackBody" },
        ),
      },
    );

/**
 * GET /v1/feedback: admins only (a chat key gets 403 permission_denied from the gate). Its own
 * plugin: adminAdmission's scoped derives would reach the ratings routes if they shared a parent.
 */
export const feedbackListRoutes = (deps: AdmissionDeps & { logger: Logger }) =>
  new Elysia({ tags: ["Feedback"] })
    .use(requestIdsAndErrors(deps.logger))
    .use(adminAdmission(deps))
    .get(
      "/feedback",
      async ({ query }) => {
        const limit = query.limit ?? 20;
        const cursor =
          query.cursor === undefined
            ? null
            : await decodeCursor(deps.db, query.cursor, { prefix: "msg", scope: SCOPE });
        const rows = await listFeedback(
          deps.db,
          { rating: query.rating, keyId: query.key_id, from: instant(query.from, "from"), to: instant(query.to, "to") },
          limit,
          cursor,
        );
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          data: page.map((r) => ({
            message_id: r.message_id,
            conversation_id: r.conversation_id,
            key_id: r.key_id,
            rating: r.rating,
            comment: r.comment,
            updated_at: new Date(Number(r.updated_ms)).toISOString(),
            question: r.question,
            answer: r.answer,
            sources: typeof r.sources === "string" ? (JSON.parse(r.sources) as string[]) : r.sources,
            reply_status: r.status,
            reply_created_at: new Date(Number(r.created_ms)).toISOString(),
          })),
          pagination: {
            has_more: rows.length > limit,
            next_cursor:
              rows.length > limit && last
                ? await encodeCursor(deps.db, { createdAt: Number(last.updated_ms), id: last.message_id }, SCOPE)
                : null,
          },
        };
      },
      {
        query: FeedbackQuery,
        response: { 200: FeedbackList, ...ErrorResponses, 403: ErrorBody },
        detail: routeDoc(
          "List feedback (admin)",
          "Rated replies, newest rating first, each with the question, the answer and its sources. Filters: rating, key_id, from, to.",
          { operationId: "listFeedback", success: "FeedbackList" },
        ),
      },
    );
export { FeedbackBody, FeedbackItem, FeedbackList } from "./model.ts";
