/**
 * Keep-alive comments for every open SSE stream from one timer. A timer per stream cost each
 * idle stream a Timeout, two closures and a rescheduling every interval (10,000 idle
 * streams); here one timer ticks every quarter interval while any stream is open and pings the
 * streams that have been quiet long enough. The gap between two writes of a stream stays below
 * the interval: a stream is pinged at the first tick at least `intervalMs - tickMs` after its
 * last write, and there is a tick in every `tickMs`. The owner (replies/, one per
 * `createReplies`) closes it; it also stops by itself when its last stream leaves.
 */

/** A stream kept alive: when it last wrote, and how to write a keep-alive comment. */
export interface KeptAlive {
  /** Date.now() of the stream's last write. */
  lastWrite: number;
  ping(now: number): void;
}

export class KeepAlive {
  private readonly streams = new Set<KeptAlive>();
  private timer: ReturnType<typeof setInterval> | undefined;
  readonly tickMs: number;

  constructor(readonly intervalMs: number) {
    this.tickMs = Math.max(5, Math.floor(intervalMs / 4));
  }

  get size(): number {
    return this.streams.size;
  }

  /** Whether the timer runs (only while a stream is open). */
  get ticking(): boolean {
    return this.timer !== undefined;
  }

  add(stream: KeptAlive): void {
    this.streams.add(stream);
    this.timer ??= setInterval(() => this.tick(), this.tickMs);
  }

  delete(stream: KeptAlive): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.close();
  }

  /** Pings every stream that would otherwise stay quiet past the interval before the next tick. */
  tick(now = Date.now()): void {
    const due = now - (this.intervalMs - this.tickMs);
    for (const stream of this.streams) {
      if (stream.lastWrite > due) continue;
      try {
        stream.ping(now);
      } catch {
        // A stream that cannot take a write any more is its own problem; the others go on.
        this.streams.delete(stream);
      }
    }
    if (this.streams.size === 0) this.close();
  }

  /** Stops the timer (the streams still open get no more pings). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
