/**
 * Terminal events. A reply ends with exactly one terminal event, the last one stored and
 * streamed: `end` (completed or stopped, with usage) or `error`. Every `error` event is built
 * here from an `ApiError`, so its body is the one errors have everywhere (contract/errors.ts);
 * the named constructors below are the ways a reply can fail outside its agent.
 */
import type { ReplyStatus, StreamEvent, Usage } from "../contract/events.ts";
import { ApiError } from "../http/errors.ts";

/** The conversation (and with it the reply) was deleted while the reply ran. */
export const conversationDeleted = (detail = "The conversation was deleted.") => new ApiError("not_found", detail);

/** The reply left `in_progress` under its run: deleted (`status` null), or swept after this instance stalled. */
export const replyLost = (status: string | null | undefined) =>
  status === null
    ? conversationDeleted("The conversation was deleted before the reply could be stored.")
    : new ApiError("generation_failed", "The reply's lease expired (this instance stalled); it was ended as failed.");

/** A swept reply: the instance generating it stopped before finishing it. */
export const orphaned = () =>
  new ApiError(
    "generation_failed",
    "The instance generating this reply stopped before finishing it; the reply is incomplete.",
  );

/** Shutdown cut the reply short. */
export const shuttingDown = () =>
  new ApiError("service_unavailable", "The server is shutting down; the reply was cut short.");

/** The `error` event of a failure (`param` is not part of an event's error). */
export function errorEvent(error: ApiError): StreamEvent {
  const { param: _param, ...payload } = error.toPayload();
  return { type: "error", error: payload };
}

export const endEvent = (messageId: string, status: ReplyStatus, usage: Usage | null): StreamEvent => ({
  type: "end",
  message_id: messageId,
  status,
  usage,
});

/** The exact JSON the sweep stores as a swept reply's last event. */
export const ORPHANED_EVENT = JSON.stringify(errorEvent(orphaned()));
