/**
 * Following a reply across broken connections: once the reply is known (its `start` carried
 * `message_id`), a stream that breaks is reopened on the reply's events endpoint (any instance)
 * with `Last-Event-ID` = the last id received, so the caller sees every event exactly once.
 */
import { ParleyError } from "./errors.ts";
import { readEvents } from "./stream.ts";
import { backoffMs, type Call, DEFAULTS, type Send, sleep } from "./transport.ts";
import type { ChatEvent, RequestOptions } from "./types.ts";

/** A reply and the last event id received from it. */
export interface ReplyPosition {
  conversationId: string;
  messageId: string;
  after: number;
}

export const replyPath = (conversationId: string, messageId: string) =>
  `/conversations/${encodeURIComponent(conversationId)}/messages/${encodeURIComponent(messageId)}`;

export interface FollowOptions {
  /** The POST that starts the reply; none for `resume`, which starts from `at`. */
  open?: () => Promise<Call>;
  at?: ReplyPosition;
  /** The POST may be sent again when its stream breaks before `start` (it carries an Idempotency-Key). */
  reopen?: boolean;
  /** Failed reconnections in a row before giving up with `stream_interrupted`. */
  maxResumes: number;
  /** The first backoff (ms), doubling per failed reconnection; default the transport's. */
  retryBaseDelay?: number;
  opts: RequestOptions;
}

/** A failed (re)connection that may succeed a moment later: no answer, a 5xx, or a key still in use. */
const transient = (e: unknown) =>
  e instanceof ParleyError &&
  (e.code === "connection_error" ||
    e.code === "idempotency_in_progress" ||
    (e.status >= 500 && e.code !== "generation_failed"));

const interrupted = (cause: unknown, tries: number) =>
  new ParleyError(
    0,
    "stream_interrupted",
    `The stream broke and ${tries} reconnections in a row failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    {
      cause,
      requestId: cause instanceof ParleyError ? cause.requestId : undefined,
    },
  );

/** Yields the reply's events, reconnecting after a break; ends quietly when the caller aborts. */
export async function* followReply(send: Send, f: FollowOptions): AsyncGenerator<ChatEvent> {
  const { signal } = f.opts;
  let at = f.at ? { ...f.at } : undefined;
  let failures = 0;
  const baseDelay = f.retryBaseDelay ?? DEFAULTS.retryBaseDelay;
  const pause = async (ms: number) => {
    await sleep(ms, signal).catch(() => {}); // an abort: the caller sees the loop end
    return !signal?.aborted;
  };
  for (;;) {
    let call: Call;
    try {
      if (at) {
        const path = `${replyPath(at.conversationId, at.messageId)}/events`;
        call = await send("GET", path, undefined, f.opts, { headers: { "last-event-id": String(at.after) } });
      } else {
        call = await f.open!();
      }
    } catch (error) {
      if (signal?.aborted) return;
      // The first POST keeps the transport's rules (its own retries); only a reply already
      // followed, or a keyed POST still in progress elsewhere, is tried again here.
      const again = at
        ? transient(error)
        : f.reopen && error instanceof ParleyError && error.code === "idempotency_in_progress";
      if (!again) throw error;
      if (++failures > f.maxResumes) throw at ? interrupted(error, failures - 1) : error;
      const wait =
        error instanceof ParleyError && error.retryAfter !== undefined
          ? error.retryAfter * 1000
          : backoffMs(failures - 1, baseDelay);
      if (!(await pause(wait))) return;
      continue;
    }
    if (call.res.status === 204) {
      // At or past the terminal event of an ended reply: nothing more will come (the server says
      // so with 204, as it tells an EventSource to stop reconnecting).
      call.end();
      return;
    }
    try {
      for await (const event of readEvents(call, signal)) {
        if (event.type === "start" && event.messageId && !at)
          at = { conversationId: event.conversationId, messageId: event.messageId, after: 0 };
        if (at && event.id !== undefined) {
          // Already yielded before the break (the terminal event is always passed on).
          if (event.id <= at.after && event.type !== "end" && event.type !== "error") continue;
          at.after = Math.max(at.after, event.id);
        }
        failures = 0;
        yield event;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      const resumable = (at || f.reopen) && error instanceof ParleyError && error.code === "stream_interrupted";
      if (!resumable || ++failures > f.maxResumes) throw error;
      // The first reconnection at once (a dropped connection, the usual case), then backing off.
      if (failures > 1 && !(await pause(backoffMs(failures - 2, baseDelay)))) return;
    }
  }
}
