/**
 * Reading a reply's event stream, and following it across breaks: whenever a stream breaks
 * once the reply is known (its `start` carried `message_id`), reconnect to the reply's events
 * endpoint with `Last-Event-ID` = the last id received, so the caller sees every event once.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ParleyError, requestIdOf } from "./errors.ts";
import type { ChatEvent } from "./types.ts";
import { describe, invalid, isWire, sleep, toEvent } from "./wire.ts";

/** Where a follower is: the reply and the last event id received. */
export interface ReplyPosition {
  conversationId: string;
  messageId: string;
  after: number;
}

/** What following needs from the client. */
export interface StreamDeps {
  request(method: string, path: string, body?: unknown, signal?: AbortSignal, extra?: Record<string, string>): Promise<Response>;
  replyPath(conversationId: string, messageId: string): string;
  maxResumes: number;
}

/** The events of one response, as they come; throws `stream_interrupted` if it ends without end/error. */
export async function* readStream(res: Response, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
  const type = res.headers.get("content-type") ?? "";
  if (!res.body || !/^text\/event-stream\b/i.test(type)) {
    await res.body?.cancel().catch(() => {});
    throw invalid(res, `expected an event stream, got ${type ? `'${type}'` : "no content type"}`);
  }
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof events.read>>;
      try {
        next = await events.read();
      } catch (error) {
        if (signal?.aborted) return;
        const message = `The stream broke before its end or error event: ${describe(error)}`;
        throw new ParleyError(0, "stream_interrupted", message, { requestId: requestIdOf(res), cause: error });
      }
      if (next.done) break;
      let data: unknown;
      try {
        data = JSON.parse(next.value.data);
      } catch {
        data = undefined;
      }
      if (!isWire(data) || typeof data.type !== "string") {
        throw invalid(res, `an event that is not a JSON object: '${next.value.data.slice(0, 60)}'`);
      }
      const event = toEvent(data, next.value.id);
      yield event;
      if (event.type === "end" || event.type === "error") return;
    }
  } finally {
    await events.cancel().catch(() => {});
  }
  if (signal?.aborted) return;
  throw new ParleyError(0, "stream_interrupted", "The stream closed before its end or error event.", { requestId: requestIdOf(res) });
}

/**
 * Follows a reply: `open()` (the POST) first when given, else the events endpoint; whenever
 * the stream breaks once the reply is known (its `start` carried `message_id`), reconnects to
 * the events endpoint after the last event id received.
 */
export async function* followReply(
  deps: StreamDeps,
  open: (() => Promise<Response>) | null,
  signal: AbortSignal | undefined,
  at: ReplyPosition | null = null,
  /** The POST may be sent again (it carries an Idempotency-Key: a retry cannot start a second reply). */
  reopen = false,
): AsyncGenerator<ChatEvent> {
  let failures = 0;
  for (;;) {
    let res: Response;
    try {
      res =
        open && !at
          ? await open()
          : await deps.request("GET", `${deps.replyPath(at!.conversationId, at!.messageId)}/events`, undefined, signal, { "last-event-id": String(at!.after) });
    } catch (error) {
      if (signal?.aborted) return;
      // A reply we already follow survives a failed reconnect (instance restarting, network blip).
      const transient = error instanceof ParleyError && (error.status === 0 || error.status >= 500 || error.code === "idempotency_in_progress");
      if (!(at || reopen) || !transient || ++failures > deps.maxResumes) throw error;
      await sleep(250 * failures, signal);
      continue;
    }
    try {
      for await (const event of readStream(res, signal)) {
        if (event.type === "start" && event.messageId && !at) at = { conversationId: event.conversationId, messageId: event.messageId, after: 0 };
        if (at && event.id !== undefined) {
          if (event.id <= at.after && event.type !== "end" && event.type !== "error") continue; // already yielded
          at.after = Math.max(at.after, event.id);
        }
        failures = 0;
        yield event;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      if (!(at || reopen) || !(error instanceof ParleyError) || error.code !== "stream_interrupted" || ++failures > deps.maxResumes) throw error;
      await sleep(250 * (failures - 1), signal);
    }
  }
}
