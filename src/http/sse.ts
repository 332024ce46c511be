/**
 * Server-Sent Events framing. We return a Web ReadableStream of bytes rather than an Elysia
 * generator: bytes are what Deno's server needs (elysia#1845), and `cancel()` tells us the
 * moment a client leaves instead of at the generator's next yield.
 */

/** A source of events a response can follow: replay-then-live subscription, closed by `isLast`. */
export interface EventSource<E> {
  subscribe(listener: (e: E) => void): () => void;
}

export interface SseOptions<E> {
  /** Comment keep-alive after this long without an event (below the server's idle timeout). */
  keepAliveMs: number;
  /** The event after which the stream closes. */
  isLast: (e: E) => boolean;
  headers?: Record<string, string>;
}

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
const PING = encoder.encode(": ping\n\n");

export function sseResponse<E>(source: EventSource<E>, { keepAliveMs, isLast, headers }: SseOptions<E>): Response {
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    unsubscribe();
    clearInterval(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let quiet = true;
      let closed = false;
      timer = setInterval(() => {
        if (quiet && !closed) controller.enqueue(PING);
        quiet = true;
      }, keepAliveMs);
      unsubscribe = source.subscribe((e) => {
        if (closed) return;
        quiet = false;
        controller.enqueue(frame(e));
        if (isLast(e)) {
          closed = true;
          // The subscription may deliver synchronously, before `unsubscribe` is assigned.
          queueMicrotask(stop);
          controller.close();
        }
      });
    },
    cancel: stop,
  });
  return new Response(body, {
    status: 200,
    headers: {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
