/**
 * What an SSE response we produce says about itself at its end (bytes, events, how the reply
 * ended), for the access log's second line, the stream metrics and the request's span. Our own
 * producers (http/sse.ts, replies/replay.ts) keep the tally as they enqueue, so the app does not
 * wrap their bodies in a second stream to watch them: at 10,000 idle streams that wrapper was
 * ~6 KiB and 40 objects a stream, and it re-read every chunk (issue 23). A body without a tally
 * (another producer's) is still watched by stream-watch.ts.
 */

/** How a stream ended. `reply_status`: from its terminal event, or `client_closed` when the client left first. */
export interface StreamSummary {
  bytes: number;
  events: number;
  reply_status: string;
}

const tallies = new WeakMap<ReadableStream, StreamTally>();

export class StreamTally {
  bytes = 0;
  events = 0;
  status: string | undefined;
  #ended: StreamSummary | undefined;
  #onEnd: ((s: StreamSummary) => void) | undefined;

  /** Makes this the tally of `body` (found again by `tallyOf`); it may have counted already. */
  attach<T extends ReadableStream>(body: T): T {
    tallies.set(body, this);
    return body;
  }

  /** Counts a chunk of `events` events; `data`, when it is a terminal event's, names the status. */
  add(bytes: number, events: number, data?: unknown): void {
    this.bytes += bytes;
    this.events += events;
    const status = data === undefined ? undefined : terminalStatus(data);
    if (status) this.status = status;
  }

  /** The stream is over: closed after its last event (`ended`), cancelled (`client_closed`) or failed. */
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

/** The tally a response's body keeps, if one of our producers made it. */
export const tallyOf = (response: Response): StreamTally | undefined =>
  response.body ? tallies.get(response.body) : undefined;

/** The status a terminal event names (`end`: its status, `error`: failed with its code); tokens are none. */
export function terminalStatus(data: unknown): string | undefined {
  const e = data as { type?: unknown; status?: unknown; error?: { code?: unknown } } | null;
  if (e?.type === "end") return typeof e.status === "string" ? e.status : "completed";
  if (e?.type === "error") return `failed:${typeof e.error?.code === "string" ? e.error.code : "unknown"}`;
  return undefined;
}
