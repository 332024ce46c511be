/**
 * The write batcher: a reply's events reach the store in batches, never a write per token. An
 * event waits at most `flushMs` (or until `maxEvents` wait); one write runs at a time, in order;
 * a write queued and not yet started takes everything pending when it starts, so N events during
 * a slow write give one statement, not N. A failed write keeps its batch for the next one. The
 * store and the clock are injected (tests/unit/batcher.test.ts drives both).
 */

/** One stored event: its sequence number (SSE id) and the exact JSON of its data line. */
export interface StoredEvent {
  seq: number;
  data: string;
}

/** What one write stores: the events, the text they add, and the reply's last sequence number. */
export interface Batch {
  events: StoredEvent[];
  delta: string;
  lastSeq: number;
}

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface BatcherOptions {
  flushMs: number;
  /** Write at once when this many events wait, whatever the interval. */
  maxEvents?: number;
  /** The sequence number already stored (the `start` event: 1). */
  storedSeq?: number;
  clock?: Clock;
  /** A write failed (nothing was stored: one statement); its batch goes with the next one. */
  onError?: (error: unknown) => void;
}

export class WriteBatcher {
  private pending: StoredEvent[] = [];
  private delta = "";
  private storedSeq: number;
  private timer: unknown;
  private writing: Promise<void> = Promise.resolve();
  private queued = false;
  private closed = false;
  private readonly clock: Clock;

  constructor(
    private readonly write: (batch: Batch) => Promise<void>,
    private readonly options: BatcherOptions,
  ) {
    this.storedSeq = options.storedSeq ?? 0;
    this.clock = options.clock ?? realClock;
  }

  /** Queues an event (and the reply text it adds) for the next write. */
  add(event: StoredEvent, text = ""): void {
    if (this.closed) return;
    this.pending.push(event);
    this.delta += text;
    if (this.pending.length >= (this.options.maxEvents ?? 256)) void this.flush();
    else this.timer ??= this.clock.setTimeout(() => void this.flush(), this.options.flushMs);
  }

  /** Queues one write of what is pending; resolves when it is done. */
  flush(): Promise<void> {
    this.clearTimer();
    if (this.queued || this.closed) return this.writing;
    this.queued = true;
    this.writing = this.writing.then(() => this.writeNow());
    return this.writing;
  }

  /** Stops batching: waits for the write under way and hands back what was never written. */
  async close(): Promise<Batch> {
    this.clearTimer();
    await this.writing;
    this.closed = true;
    return this.take();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private take(): Batch {
    const batch = { events: this.pending, delta: this.delta, lastSeq: this.pending.at(-1)?.seq ?? this.storedSeq };
    this.pending = [];
    this.delta = "";
    return batch;
  }

  private async writeNow(): Promise<void> {
    this.queued = false;
    if (this.closed) return;
    const batch = this.take();
    try {
      await this.write(batch);
      this.storedSeq = batch.lastSeq;
    } catch (error) {
      this.pending = [...batch.events, ...this.pending];
      this.delta = batch.delta + this.delta;
      this.options.onError?.(error);
    }
  }
}
