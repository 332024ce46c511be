/**
 * The runs alive in this process. The lease keeper: the leases of the replies one Parley instance generates (the lease protocol
 * itself: replies/statements.ts). ONE statement per beat (every quarter lease) renews them all
 * and reads back their stop flags, however many replies run — 1,000 replies waiting on a slow
 * model cost one write every 2.5 s, not 400 per second. A reply that writes events renews its
 * own lease with each flush as well. The timer runs only while some reply is kept.
 *
 * And the registry of the runs alive in this process: stop and resume find them by id,
 * shutdown drains them.
 */
import type { Logger } from "../config/logger.ts";
import type { ApiError } from "../http/errors.ts";
import { withTimeout } from "../primitives.ts";
import { shuttingDown } from "./event-log.ts";
import type { Run } from "./run.ts";

/** What the keeper needs of a run. */
export interface Leased {
  readonly id: string;
  /** The reply was asked to stop (its flag is set in the database). */
  stop(): void;
  /** The reply is no longer ours: deleted, or ended by a sweep after this instance stalled. */
  lost(): void;
}

export interface LeaseKeeperDeps {
  /** Renews the running replies among `ids`; returns those still running, with their stop flags. */
  renew(ids: string[], leaseUntil: number): Promise<{ id: string; stop_requested: boolean }[]>;
  now: () => number;
  logger: Logger;
  leaseMs: number;
}

export class LeaseKeeper {
  private readonly runs = new Map<string, Leased>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating = false;

  constructor(private readonly deps: LeaseKeeperDeps) {}

  /** The beat's period: a quarter lease, so a lease outlasts three missed beats. */
  get everyMs(): number {
    return Math.max(50, Math.floor(this.deps.leaseMs / 4));
  }

  get size(): number {
    return this.runs.size;
  }

  add(run: Leased): void {
    this.runs.set(run.id, run);
    this.timer ??= setInterval(() => void this.beat(), this.everyMs);
  }

  remove(id: string): void {
    this.runs.delete(id);
    if (this.runs.size === 0) this.close();
  }

  /** Stops the timer (the replies it kept are ended by their runs). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One renewal of every kept lease (the timer calls it; tests call it directly). */
  async beat(): Promise<void> {
    if (this.beating || this.runs.size === 0) return;
    this.beating = true;
    const ids = [...this.runs.keys()];
    try {
      const rows = await this.deps.renew(ids, this.deps.now() + this.deps.leaseMs);
      const stopFlags = new Map(rows.map((r) => [r.id, r.stop_requested]));
      for (const id of ids) {
        const run = this.runs.get(id); // a run that finished meanwhile is left alone
        if (!run) continue;
        if (!stopFlags.has(id)) run.lost();
        else if (stopFlags.get(id)) run.stop();
      }
    } catch (error) {
      // The next beat tries again; the lease outlasts three missed beats.
      this.deps.logger.warn({ replies: ids.length, error }, "renewing the replies' leases failed");
    } finally {
      this.beating = false;
    }
  }
}

/** The runs alive in this process, so shutdown can let them finish (or end them). */
export class RunRegistry {
  private readonly runs = new Map<string, Run>();
  private cutOff: ApiError | null = null;

  /** One function for every run, not a closure per run. */
  private readonly forget = (run: Run) => void this.runs.delete(run.id);

  track(run: Run): Run {
    if (run.finished) return run;
    this.runs.set(run.id, run);
    run.ended = this.forget;
    // A request already inside the handler when shutdown cut runs off still gets cut off.
    if (this.cutOff) run.cancel(this.cutOff);
    return run;
  }

  /** The run of reply `id`, if it is generated in this process. */
  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  all(): Run[] {
    return [...this.runs.values()];
  }

  get size(): number {
    return this.runs.size;
  }

  /**
   * Waits up to `graceMs` for runs to finish, then cancels the rest and gives them up to
   * `storeMs` to store what they have (a cancelled run ends at once; only its write remains).
   */
  async drain(graceMs: number, storeMs = 5_000): Promise<void> {
    if (await this.settled(graceMs)) return;
    this.cutOff = shuttingDown();
    for (const run of this.runs.values()) run.cancel(this.cutOff);
    await this.settled(storeMs);
  }

  /** Whether every run (including ones started meanwhile) finished within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    const all = async (): Promise<true> => {
      while (this.runs.size) await Promise.all([...this.runs.values()].map((r) => r.done));
      return true;
    };
    return withTimeout(all(), ms, false);
  }
}
