/**
 * Server-Sent Events framing. We return a Web ReadableStream of bytes rather than an Elysia
 * generator: bytes are what Deno's server needs (elysia#1845), and `cancel()` tells us the
 * moment a client leaves instead of at the generator's next yield.
 */
import { StreamTally } from "./stream-tally.ts";

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
  /** The event's SSE `id:` (for Last-Event-ID) and its `data:` value; by default no id, the event itself. */
  encode?: (e: E) => { id?: number; data: unknown };
}

/** The headers of every SSE response Parley writes (no caching, no proxy buffering). */
export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

const encoder = new TextEncoder();
const frame = ({ id, data }: { id?: number; data: unknown }) =>
  encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
const PING = encoder.encode(": ping\n\n");
const OPEN = encoder.encode(": open\n\n");

export function sseResponse<E>(
  source: EventSource<E>,
  { keepAliveMs, isLast, headers, encode = (data) => ({ data }) }: SseOptions<E>,
): Response {
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Counted from the first event, which `start` may already deliver (a replay), before `body` exists.
  const tally = new StreamTally();
  const stop = () => {
    unsubscribe();
    clearTimeout(timer);
  };
  const body = tally.attach(
    new ReadableStream<Uint8Array>({
      start(controller) {
        let lastWrite = Date.now();
        let wrote = false;
        let closed = false;
        // One timer per stream, due exactly `keepAliveMs` after the last write: the gap between
        // two writes never exceeds the interval, however events and pings interleave.
        const schedule = (delay: number) => {
          timer = setTimeout(() => {
            if (closed) return;
            const quietFor = Date.now() - lastWrite;
            if (quietFor >= keepAliveMs) {
              controller.enqueue(PING);
              tally.add(PING.length, 0);
              lastWrite = Date.now();
              schedule(keepAliveMs);
            } else {
              schedule(keepAliveMs - quietFor);
            }
          }, delay);
        };
        schedule(keepAliveMs);
        unsubscribe = source.subscribe((e) => {
          if (closed) return;
          lastWrite = Date.now();
          wrote = true;
          const encoded = encode(e);
          const bytes = frame(encoded);
          controller.enqueue(bytes);
          const last = isLast(e);
          tally.add(bytes.length, 1, last ? encoded.data : undefined);
          if (last) {
            closed = true;
            // The subscription may deliver synchronously, before `unsubscribe` is assigned.
            queueMicrotask(stop);
            controller.close();
            tally.end("incomplete");
          }
        });
        // Bun sends the status and headers with the first bytes: a follower with nothing to replay
        // (a position past the end of a running reply) would otherwise wait a keep-alive for them.
        if (!wrote) {
          controller.enqueue(OPEN);
          tally.add(OPEN.length, 0);
        }
      },
      cancel: () => {
        stop();
        tally.end("client_closed");
      },
    }),
  );
  return new Response(body, { status: 200, headers: { ...headers, ...SSE_HEADERS } });
}
