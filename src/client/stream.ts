/**
 * Reading a reply's Server-Sent Events. Every byte restarts the call's timeout (the server's
 * keep-alive comments included), and once the caller aborts nothing more is yielded, not even
 * events already buffered.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ParleyError, requestIdOf } from "./errors.ts";
import type { Call } from "./transport.ts";
import type { ChatEvent } from "./types.ts";
import { invalid, isWire, usage, type Wire } from "./wire.ts";

/** The wire's event (and its SSE `id:`, the sequence number) in camelCase. */
function toEvent(e: Wire, id: string | undefined): ChatEvent {
  const seq = id !== undefined && /^\d+$/.test(id) ? { id: Number(id) } : {};
  switch (e.type) {
    case "start":
      return {
        ...seq,
        type: "start",
        conversationId: e.conversation_id as string,
        ...(typeof e.message_id === "string" ? { messageId: e.message_id } : {}),
        ...(typeof e.resume_token === "string" ? { resumeToken: e.resume_token } : {}),
      };
    case "end":
      // A server from before `stop` sends no status: its replies could only complete.
      return {
        ...seq,
        type: "end",
        messageId: e.message_id as string,
        status: e.status === "stopped" || e.status === "length" ? e.status : "completed",
        usage: usage(e.usage),
        ...(e.certainty === "answered" || e.certainty === "uncertain" || e.certainty === "no_sources"
          ? { certainty: e.certainty }
          : {}),
      };
    default:
      return { ...seq, ...e } as ChatEvent; // token, sources and error share the wire's field names
  }
}

/** The events of `call` (a 2xx event stream) until `end`/`error`, the caller's abort, or a failure. */
export async function* readEvents(call: Call, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
  const { res } = call;
  const type = res.headers.get("content-type") ?? "";
  if (!res.body || !/^text\/event-stream\b/i.test(type)) {
    call.end();
    await res.body?.cancel().catch(() => {});
    throw invalid(res, `expected an event stream, got ${type ? `'${type}'` : "no content type"}`);
  }
  const touched = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
    transform(chunk, c) {
      call.touch();
      c.enqueue(chunk);
    },
  });
  const events = res.body
    .pipeThrough(touched)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  // The caller's abort also aborts the fetch (call.signal), which errors the pending read at once.
  const aborted = () => signal?.aborted === true;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof events.read>>;
      try {
        next = await events.read();
      } catch (error) {
        if (aborted()) return;
        const failure = call.failure(error);
        if (failure instanceof ParleyError && failure.code === "timeout") throw failure;
        const message = `The stream broke before its end or error event: ${error instanceof Error ? error.message : String(error)}`;
        throw new ParleyError(0, "stream_interrupted", message, { requestId: requestIdOf(res), cause: error });
      }
      if (aborted()) return;
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
      // The loop body may have aborted: nothing after that, buffered or not.
      if (aborted() || event.type === "end" || event.type === "error") return;
    }
  } finally {
    call.end();
    await events.cancel().catch(() => {});
  }
  throw new ParleyError(0, "stream_interrupted", "The stream closed before its end or error event.", {
    requestId: requestIdOf(res),
  });
}
