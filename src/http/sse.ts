/**
 * Server-Sent Events framing. We return a Web ReadableStream of bytes rather than an Elysia
 * generator: bytes are what Deno's server needs (elysia#1845), and `cancel()` tells us the
 * moment a client leaves instead of at the generator's next yield.
 *
 * An open stream is one object (SseSource: the stream's underlying source, its tally and its
 * keep-alive entry) and one listener closure; keep-alives come from a shared timer
 * (keep-alive.ts). Idle streams are what a server holds most of (issue 23).
 */
import type { KeepAlive, KeptAlive } from "./keep-alive.ts";
import { StreamTally } from "./stream-tally.ts";

/** A source of events a response can follow: replay-then-live subscription, closed by `isLast`. */
export interface EventSource<E> {
  subscribe(listener: (e: E) => void): () => void;
}

/** The event's SSE `id:` (for Last-Event-ID) and its `data:` value. */
export type Encode<E> = (e: E) => { id?: number; data: unknown };

export interface SseOptions<E> {
  /** Comment keep-alives after a quiet interval (below the server's idle timeout), shared by the streams. */
  keepAlive: KeepAlive;
  /** The event after which the stream closes. */
  isLast: (e: E) => boolean;
  headers?: Record<string, string>;
  /** By default no id, the event itself as data. */
  encode?: Encode<E>;
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
const asData = <E>(data: E) => ({ data });

export function sseResponse<E>(
  source: EventSource<E>,
  { keepAlive, isLast, headers, encode }: SseOptions<E>,
): Response {
  const sse = new SseSource(source, keepAlive, isLast, encode ?? asData);
  // Counted from the first event, which `start` may already deliver (a replay).
  const body = sse.attach(new ReadableStream<Uint8Array>(sse));
  return new Response(body, { status: 200, headers: { ...headers, ...SSE_HEADERS } });
}

class SseSource<E> extends StreamTally implements UnderlyingDefaultSource<Uint8Array>, KeptAlive {
  lastWrite = Date.now();
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly source: EventSource<E>,
    private readonly keepAlive: KeepAlive,
    private readonly isLast: (e: E) => boolean,
    private readonly encode: Encode<E>,
  ) {
    super();
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.controller = controller;
    this.keepAlive.add(this);
    const unsubscribe = this.source.subscribe((e) => this.deliver(e));
    // The replay held the last event: `deliver` has ended the stream.
    if (this.closed) {
      unsubscribe();
      return;
    }
    this.unsubscribe = unsubscribe;
    // Bun sends the status and headers with the first bytes: a follower with nothing to replay
    // (a position past the end of a running reply) would otherwise wait a keep-alive for them.
    if (this.events === 0) this.write(OPEN, 0);
  }

  cancel(): void {
    this.stop();
    this.unsubscribe?.();
    this.end("client_closed");
  }

  ping(now: number): void {
    if (!this.closed) this.write(PING, 0, now);
  }

  private deliver(e: E): void {
    if (this.closed) return;
    const encoded = this.encode(e);
    const bytes = frame(encoded);
    const last = this.isLast(e);
    this.write(bytes, 1, Date.now(), last ? encoded.data : undefined);
    if (!last) return;
    this.stop();
    // Inside the source's delivery: unsubscribe once it is done.
    if (this.unsubscribe) queueMicrotask(this.unsubscribe);
    this.controller!.close();
    this.end("incomplete");
  }

  private write(bytes: Uint8Array, events: number, now = Date.now(), data?: unknown): void {
    this.lastWrite = now;
    this.controller!.enqueue(bytes);
    this.add(bytes.length, events, data);
  }

  private stop(): void {
    this.closed = true;
    this.keepAlive.delete(this);
  }
}
