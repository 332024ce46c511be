/**
 * Keeps a crawl polite to each site: at most `maxInFlightPerHost` requests open at once on a host,
 * and when the site asked for a Crawl-delay, that many seconds between the starts of two requests.
 * Hosts are independent: a slow site does not slow the others.
 *
 * A class the caller owns rather than module state: two crawls (or two tests) never share queues,
 * and close() ends everything this instance started: pending delays are cleared, waiters rejected,
 * so no timer outlives the crawl.
 */

export interface HostLimiterOptions {
  /** Default 2: enough to overlap one request's latency with another's transfer. */
  maxInFlightPerHost?: number;
  /** False turns politeness off (benchmarks against our own server): schedule() just runs the task. */
  enabled?: boolean;
  /** Clock and delay, injectable so tests check Crawl-delay without waiting for it. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface HostState {
  inFlight: number;
  /** Tasks waiting for a slot, in arrival order. */
  waiting: Array<{ start: () => void; fail: (error: Error) => void }>;
  /** Earliest time the next request may start (Crawl-delay). */
  nextStartAt: number;
  delayMs: number;
}

export class LimiterClosedError extends Error {
  constructor() {
    super("the host limiter was closed");
    this.name = "LimiterClosedError";
  }
}

export class HostLimiter {
  readonly #max: number;
  readonly #enabled: boolean;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #hosts = new Map<string, HostState>();
  readonly #timers = new Set<{ id: ReturnType<typeof setTimeout>; fail: (error: Error) => void }>();
  #closed = false;

  constructor(options: HostLimiterOptions = {}) {
    this.#max = Math.max(1, options.maxInFlightPerHost ?? 2);
    this.#enabled = options.enabled ?? true;
    this.#now = options.now ?? (() => Date.now());
    this.#sleep = options.sleep ?? ((ms) => this.#timer(ms));
  }

  /** Sets the Crawl-delay (seconds, from robots.txt) for the host of `url`; undefined clears it. */
  setCrawlDelay(url: string | URL, seconds: number | undefined): void {
    const delay = seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
    this.#state(new URL(url).host).delayMs = delay;
  }

  /** Runs `task` when the host of `url` has a free slot and its Crawl-delay has passed. */
  async schedule<T>(url: string | URL, task: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new LimiterClosedError();
    if (!this.#enabled) return task();
    const state = this.#state(new URL(url).host);
    await this.#acquire(state);
    try {
      // close() may have come while this task waited for its slot.
      if (this.#closed) throw new LimiterClosedError();
      // The start time is reserved before waiting, so two tasks never claim the same moment.
      const now = this.#now();
      const startAt = Math.max(now, state.nextStartAt);
      state.nextStartAt = startAt + state.delayMs;
      if (startAt > now) await this.#sleep(startAt - now);
      if (this.#closed) throw new LimiterClosedError();
      return await task();
    } finally {
      this.#release(state);
    }
  }

  /** Requests running now on the host of `url`. */
  inFlight(url: string | URL): number {
    return this.#hosts.get(new URL(url).host)?.inFlight ?? 0;
  }

  /** Clears pending delays and rejects every task still waiting; tasks already running finish on their own. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) {
      clearTimeout(timer.id);
      timer.fail(new LimiterClosedError());
    }
    this.#timers.clear();
    for (const state of this.#hosts.values()) {
      for (const waiter of state.waiting.splice(0)) waiter.fail(new LimiterClosedError());
    }
  }

  #state(host: string): HostState {
    let state = this.#hosts.get(host);
    if (!state) {
      state = { inFlight: 0, waiting: [], nextStartAt: 0, delayMs: 0 };
      this.#hosts.set(host, state);
    }
    return state;
  }

  #acquire(state: HostState): Promise<void> {
    if (state.inFlight < this.#max && state.waiting.length === 0) {
      state.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // The slot is handed over by #release, which counts it before calling start.
      state.waiting.push({ start: resolve, fail: reject });
    });
  }

  #release(state: HostState): void {
    const next = state.waiting.shift();
    if (next) next.start();
    else state.inFlight--;
  }

  #timer(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(new LimiterClosedError());
      const timer = {
        id: setTimeout(() => {
          this.#timers.delete(timer);
          resolve();
        }, ms),
        fail: reject,
      };
      this.#timers.add(timer);
    });
  }
}
