/**
 * The one Server-Sent Events writer. Every SSE body Parley sends — a reply's events (live, or
 * replayed from the store page by page), the OpenAI-compatible chunks — is an `SseWriter`: the
 * underlying source of a Web ReadableStream of bytes, with its stages written once here:
 * - framing: `frame(data, id?)` (the dialect chooses what a frame holds and when it closes);
 * - keep-alive: `: ping` comments from the shared timer (keep-alive.ts) while the stream is quiet;
 * - the tally: bytes, events and how the reply ended, which the access log, the stream metrics
 *   and the request's span read at the end from the answer itself (`SseResponse.tally`).
 *
 * Why bytes and not an Elysia generator with `sse()`: Deno's server needs byte chunks
 * (elysia#1845), and `cancel()` reports a departed client at once rather than at the
 * generator's next `yield`. An open stream is one writer, one tally and its subscription: idle
 * streams are what a server holds most of.
 */
import type { KeepAlive, KeptAlive } from "./keep-alive.ts";

/** The headers of every SSE response Parley writes (no caching, no proxy buffering). */
const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

/** One event's frame: its `id:` (for Last-Event-ID) when it has one, and its `data:` line (JSON text). */
export const frame = (data: string, id?: number) => `${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`;

const encoder = new TextEncoder();
const PING = encoder.encode(": ping\n\n");
const OPEN = encoder.encode(": open\n\n");

/** How a stream ended. `reply_status`: from its terminal event, or `client_closed` when the client left first. */
export interface StreamSummary {
  bytes: number;
  events: number;
  reply_status: string;
}

/** The status a terminal event names (`end`: its status, `error`: failed with its code); tokens are none. */
export function terminalStatus(data: unknown): string | undefined {
  const e = data as { type?: unknown; status?: unknown; error?: { code?: unknown } } | null;
  if (e?.type === "end") return typeof e.status === "string" ? e.status : "completed";
  if (e?.type === "error") return `failed:${typeof e.error?.code === "string" ? e.error.code : "unknown"}`;
  return undefined;
}

/** What an SSE body says about itself, counted as it is written. */
export class SseTally {
  bytes = 0;
  events = 0;
  status: string | undefined;
  #ended: StreamSummary | undefined;
  #onEnd: ((s: StreamSummary) => void) | undefined;

  /** The stream is over: closed after its last event (`incomplete` unless a status was seen), cancelled or failed. */
  end(fallback: string): void {
    if (this.#ended) return;
    this.#ended = { bytes: this.bytes, events: this.events, reply_status: this.status ?? fallback };
    this.#onEnd?.(this.#ended);
  }

  /** Calls `fn` once, when the stream ends (at once if it has). */
  onEnd(fn: (s: StreamSummary) => void): void {
    this.#onEnd = fn;
    if (this.#ended) fn(this.#ended);
  }
}

/** An SSE answer: the Response carries its body's tally, so whoever sends it (the access log) reads how it ended. */
export class SseResponse extends Response {
  constructor(
    body: ReadableStream<Uint8Array>,
    headers: Record<string, string>,
    readonly tally: SseTally,
  ) {
    super(body, { status: 200, headers: { ...headers, ...SSE_HEADERS } });
  }
}

/** What a dialect adds to the writer: reading on demand (a replay), hearing the client leave, or a ping. */
export interface WriterHooks {
  /** Called when the client wants more: write some (a replay's next page), or close. */
  pull?(writer: SseWriter): Promise<void>;
  /** The client left. */
  cancel?(): void;
  /** A keep-alive is about to be written (the stream has been quiet for the interval). */
  ping?(): void;
}

export class SseWriter implements UnderlyingDefaultSource<Uint8Array>, KeptAlive {
  readonly tally = new SseTally();
  lastWrite = Date.now();
  /** What was written before the body started (a response not sent yet). */
  #early: Uint8Array[] | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #closed = false;
  /** Only a writer that reads on demand has a `pull` (a ReadableStream calls it after every read). */
  readonly pull?: () => Promise<void>;

  constructor(
    private readonly keepAlive: KeepAlive | null,
    private readonly hooks: WriterHooks = {},
  ) {
    keepAlive?.add(this);
    if (hooks.pull) this.pull = () => this.#pull();
  }

  get closed(): boolean {
    return this.#closed;
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    for (const bytes of this.#early ?? []) controller.enqueue(bytes);
    this.#early = undefined;
    if (this.#closed) controller.close();
  }

  cancel(): void {
    this.#stop();
    this.hooks.cancel?.();
    this.tally.end("client_closed");
  }

  ping(now: number): void {
    if (this.#closed) return;
    this.hooks.ping?.();
    this.write(PING, 0, undefined, now);
  }

  /** Writes a frame (text or bytes) counting `events`; `status`: the reply's, when the frame ends it. */
  write(chunk: string | Uint8Array, events = 1, status?: string, now = Date.now()): void {
    if (this.#closed) return;
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    this.lastWrite = now;
    if (this.#controller) this.#controller.enqueue(bytes);
    else if (this.#early) this.#early.push(bytes);
    else this.#early = [bytes];
    this.tally.bytes += bytes.byteLength;
    this.tally.events += events;
    if (status) this.tally.status = status;
  }

  /**
   * Bun sends the status and headers with the first bytes: a stream with nothing to write yet
   * (a position past the end of a running reply) would otherwise wait a keep-alive for them.
   */
  open(): void {
    if (this.tally.bytes === 0) this.write(OPEN, 0);
  }

  /** The last frame is written: the body ends (at once, or when it starts). */
  close(): void {
    if (this.#closed) return;
    this.#stop();
    this.#controller?.close();
    this.tally.end("incomplete");
  }

  /** The answer: this writer's body (started now), with `headers`. */
  response(headers: Record<string, string> = {}): SseResponse {
    // A reader on demand asks for one chunk at a time: a slow client holds one page, not the reply.
    const body = new ReadableStream<Uint8Array>(this, this.pull ? { highWaterMark: 1 } : undefined);
    return new SseResponse(body, headers, this.tally);
  }

  async #pull(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.hooks.pull!(this);
    } catch (error) {
      this.#stop();
      this.tally.end("error"); // the stream errors, and an errored stream is never cancelled
      throw error;
    }
  }

  #stop(): void {
    this.#closed = true;
    this.keepAlive?.delete(this);
  }
}

/** A source of events a response can follow: replay then live, ending itself after its last event. */
export interface Subscription<E> {
  subscribe(listener: (e: E) => void): () => void;
}

export interface SseOptions<E> {
  /** Comment keep-alives after a quiet interval (below the server's idle timeout), shared by the streams. */
  keepAlive: KeepAlive;
  /** The event after which the stream closes. */
  isLast: (e: E) => boolean;
  headers?: Record<string, string>;
  /** The event's `id:` and its `data:` value; by default no id, the event itself as data. */
  encode?: (e: E) => { id?: number; data: unknown };
}

/** The SSE answer following `source` until its last event: each event one frame. */
export function sseResponse<E>(source: Subscription<E>, o: SseOptions<E>): SseResponse {
  return new Follower(source, o).writer.response(o.headers);
}

/** One response following a source: the writer's hooks and the source's listener, in one object. */
class Follower<E> implements WriterHooks {
  readonly writer: SseWriter;
  readonly #unsubscribe: () => void;

  constructor(
    source: Subscription<E>,
    private readonly o: SseOptions<E>,
  ) {
    this.writer = new SseWriter(o.keepAlive, this);
    this.#unsubscribe = source.subscribe((e) => this.#write(e));
    this.writer.open();
  }

  cancel(): void {
    this.#unsubscribe();
  }

  #write(e: E): void {
    const { id, data } = this.o.encode ? this.o.encode(e) : { data: e };
    const last = this.o.isLast(e);
    this.writer.write(frame(JSON.stringify(data), id), 1, last ? terminalStatus(data) : undefined);
    if (last) this.writer.close();
  }
}
