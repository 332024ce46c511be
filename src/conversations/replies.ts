/**
 * A reply's own routes, on any instance, whichever instance generates it:
 * - GET  /conversations/:conversation_id/messages/:message_id/events — its events after
 *   `Last-Event-ID` (or `?after=N`), then the live tail up to the terminal event;
 * - POST /conversations/:conversation_id/messages/:message_id/stop — stop it; answers the
 *   message once the reply has ended (or after STOP_WAIT_MS with what is stored by then).
 * Both find the message through its conversation and the caller's key: 404 otherwise.
 * (The router names the conversation parameter `:id`, as the conversation routes do: one
 * router node, one name.)
 */
import { Elysia } from "elysia";
import { type GuardDeps, guard } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import { httpCore } from "../http/core.ts";
import { ApiError } from "../http/errors.ts";
import { ErrorResponses } from "../http/model.ts";
import { urlOf } from "../http/request-id.ts";
import { isId } from "../ids.ts";
import { replyStream, waitForEnd } from "../runs/feed.ts";
import { notifierFor } from "../runs/notify.ts";
import type { RunRegistry } from "../runs/run.ts";
import { findOwnedReply, requestStop, sweepExpired } from "../runs/store.ts";
import { AFTER_MESSAGE, Reply, ReplyParams, toReply } from "./reply-model.ts";

/** How long POST …/stop waits for the generating instance to end the reply. */
export const STOP_WAIT_MS = 5_000;

export interface ReplyDeps extends GuardDeps {
  logger: Logger;
  runs: RunRegistry;
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

export const replyRoutes = (deps: ReplyDeps) => {
  const find = async (keyId: string, p: { id: string; message_id: string }) => {
    const reply =
      isId("conv", p.id) && isId("msg", p.message_id) ? await findOwnedReply(deps.db, keyId, p.id, p.message_id) : null;
    if (!reply) throw notFound();
    // A reply whose instance died ends here as failed if its lease has passed, not a poll later.
    if (reply.status === "in_progress" && (await sweepExpired(deps.db, deps.now(), reply.id)).length)
      reply.status = "failed";
    return reply;
  };

  return new Elysia({ prefix: "/conversations/:id/messages/:message_id", tags: ["Conversations"] })
    .use(httpCore(deps.logger))
    .use(guard(deps))
    .get(
      "/events",
      async ({ params, apiKey, request }) => {
        const after = afterOf(request);
        const reply = await find(apiKey.id, params);
        return replyStream(deps, reply.id, after, deps.options.keepAliveMs) as never;
      },
      {
        parse: "none",
        params: ReplyParams,
        response: ErrorResponses,
        detail: {
          summary: "Resume a reply's events",
          description:
            "The reply's SSE events after `Last-Event-ID` (header) or `after` (query), then live ones until `end` or `error`. For a finished reply, the rest at once. Any instance serves any reply.",
        },
      },
    )
    .post(
      "/stop",
      async ({ params, apiKey }) => {
        const reply = await find(apiKey.id, params);
        if (reply.status !== "in_progress") return toReply(reply); // already ended: nothing to do
        if (await requestStop(deps.db, reply.id)) {
          // This instance's own run stops at once; another instance hears the NOTIFY (or reads the flag at its next flush).
          deps.runs.get(reply.id)?.stop();
          notifierFor(deps.db).local(`s:${reply.id}`);
          await waitForEnd(deps, reply.id, STOP_WAIT_MS);
        }
        return toReply((await findOwnedReply(deps.db, apiKey.id, reply.conversationId, reply.id)) ?? reply);
      },
      {
        parse: "none",
        params: ReplyParams,
        response: { 200: Reply, ...ErrorResponses },
        detail: {
          summary: "Stop a reply",
          description:
            'Stops a running reply on whichever instance generates it: the partial reply is stored as `stopped`, and every stream of it ends with `end` (`status: "stopped"`). Answers once the reply has ended (up to 5 s). A reply that already ended is answered as it is.',
        },
      },
    );
};
