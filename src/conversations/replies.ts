/**
 * A reply's own routes, on any instance, whichever instance generates it:
 * - GET  /conversations/:conversation_id/messages/:message_id/events — its events after
 *   `Last-Event-ID` (or `?after=N`), then the live tail up to the terminal event;
 * - POST /conversations/:conversation_id/messages/:message_id/stop — stop it; answers the
 *   message once the reply has ended (or after STOP_WAIT_MS with what is stored by then).
 * Both find the message through its conversation and the caller's key: 404 otherwise. The events
 * route also takes the reply's resume token (its `start` event's) as `?token=` instead of the
 * Authorization header, for a browser's EventSource: the request is then the reply's key's.
 * (The router names the conversation parameter `:id`, as the conversation routes do: one
 * router node, one name.)
 */
import { Elysia } from "elysia";
import { type AdmissionDeps, admission, type Credential } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { type Owner, ownerOf } from "../db/owner.ts";
import { requestIdsAndErrors, urlOf } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorResponses } from "../http/model.ts";
import { routeDoc } from "../http/route-doc.ts";
import { isId } from "../primitives.ts";
import type { Replies } from "../replies/index.ts";
import { AFTER_MESSAGE, Reply, ReplyParams, toReply } from "./reply-model.ts";

export interface ReplyDeps extends AdmissionDeps {
  logger: Logger;
  replies: Replies;
}

const notFound = () => new ApiError("not_found", "No such message in this conversation.");

/** The event id to resume after: the Last-Event-ID header (what EventSource sends) wins over ?after. */
function afterOf(request: Request): number {
  const header = request.headers.get("last-event-id");
  const query = urlOf(request).searchParams.getAll("after");
  if (query.length > 1) throw new ApiError("invalid_request", AFTER_MESSAGE, { param: "after" });
  const raw = header ?? query[0];
  if (raw === undefined || (header !== null && header.trim() === "")) return 0;
  if (!/^\d{1,9}$/.test(raw.trim()))
    throw new ApiError("invalid_request", AFTER_MESSAGE, { param: header !== null ? "Last-Event-ID" : "after" });
  return Number(raw.trim());
}

const badToken = (message: string) =>
  new ApiError("unauthorized", message, { headers: { "www-authenticate": 'Bearer realm="parley"' }, param: "token" });

/** `?token=`, a reply's resume token, names the reply's key for its own events route only. */
const resumeToken =
  (replies: Replies): Credential =>
  async ({ request, params }) => {
    const given = urlOf(request).searchParams.getAll("token");
    if (given.length === 0) return undefined;
    if (given.length > 1) throw new ApiError("invalid_request", "Give the token once.", { param: "token" });
    const token = given[0]!;
    if (token.startsWith("prl_"))
      throw badToken("An API key is never accepted in a URL; send it as 'Authorization: Bearer <API key>'.");
    const [conversationId, messageId] = [params.id ?? "", params.message_id ?? ""];
    const check =
      isId("conv", conversationId) && isId("msg", messageId)
        ? await replies.checkToken(token, messageId, conversationId)
        : ({ ok: false, why: "invalid" } as const);
    if (!check.ok)
      throw badToken(
        check.why === "expired"
          ? `This resume token expired at ${check.at.toISOString()}; resume with 'Authorization: Bearer <API key>'.`
          : "Invalid resume token: pass the resume_token of this reply's start event, as it is, on this reply's events route.",
      );
    if (!check.keyId) throw notFound(); // the reply was deleted with its conversation
    return check.keyId;
  };

export const replyRoutes = (deps: ReplyDeps) => {
  const find = async (owner: Owner, p: { id: string; message_id: string }) => {
    // A reply whose instance died ends here as failed if its lease has passed, not a poll later.
    const reply =
      isId("conv", p.id) && isId("msg", p.message_id) ? await deps.replies.findState(owner, p.message_id, p.id) : null;
    if (!reply) throw notFound();
    return reply;
  };

  // Two plugins: each route's admission is its own (only the events route takes a resume token).
  const route = (credential?: Credential) =>
    new Elysia({ prefix: "/conversations/:id/messages/:message_id", tags: ["Conversations"] })
      .use(requestIdsAndErrors(deps.logger))
      .use(admission(deps, { credential, visitors: true }));
  const events = route(resumeToken(deps.replies)).get(
    "/events",
    async ({ params, apiKey, request }) => {
      const after = afterOf(request);
      const reply = await find(ownerOf(apiKey), params);
      // At or past the end of an ended reply: 204, so an EventSource stops reconnecting.
      const stream = await deps.replies.resume(reply, after);
      return (stream ? stream.response() : new Response(null, { status: 204 })) as never;
    },
    {
      parse: "none",
      params: ReplyParams,
      response: ErrorResponses,
      detail: routeDoc(
        "Resume a reply's events",
        "The reply's SSE events after `Last-Event-ID` (header) or `after` (query), then live ones until `end` or `error`. For a finished reply, the rest at once; at or past its terminal event, 204 No Content (so an `EventSource` stops reconnecting). Any instance serves any reply. Without an Authorization header, `token` (the `resume_token` of this reply's `start` event) names the reply's key, for an `EventSource`.",
        {
          operationId: "replyEvents",
          events: "StreamEvent",
          eventsOnly: true,
          parameters: [
            {
              name: "after",
              in: "query",
              description: "Event id to resume after (0: from `start`).",
              schema: { type: "integer", minimum: 0, examples: [0] },
            },
            {
              name: "Last-Event-ID",
              in: "header",
              description: "Event id to resume after; wins over `after`.",
              schema: { type: "string", examples: ["0"] },
            },
            {
              name: "token",
              in: "query",
              description:
                "The `resume_token` of this reply's `start` event, instead of the Authorization header (which wins when both are sent): valid for this reply's events only, for 1 h from its start, and counted against its key's limits like any request of that key.",
              schema: { type: "string" },
            },
          ],
        },
      ),
    },
  );
  const stop = route().post(
    "/stop",
    async ({ params, apiKey }) => {
      const state = await find(ownerOf(apiKey), params);
      if (state.status === "in_progress") await deps.replies.stop(state.id); // else ended: nothing to do
      const reply = await deps.replies.find(ownerOf(apiKey), state.id, state.conversationId);
      if (!reply) throw notFound(); // its conversation was deleted meanwhile
      return toReply(reply);
    },
    {
      parse: "none",
      params: ReplyParams,
      response: { 200: Reply, ...ErrorResponses },
      detail: routeDoc(
        "Stop a reply",
        'Stops a running reply on whichever instance generates it: the partial reply is stored as `stopped`, and every stream of it ends with `end` (`status: "stopped"`). Answers once the reply has ended (up to 5 s). A reply that already ended is answered as it is.',
        { operationId: "stopReply", success: "Reply" },
      ),
    },
  );
  return new Elysia().use(events).use(stop);
};
