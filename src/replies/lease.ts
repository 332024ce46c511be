/**
 * The lease keeper: the leases of the replies one Parley instance generates (the lease protocol
 * itself: replies/statements.ts). ONE statement per beat (every quarter lease) renews them all
 * and reads back their stop flags, however many replies run — 1,000 replies waiting on a slow
 * model cost one write every 2.5 s, not 400 per second. A reply that writes events renews its
 * own lease with each flush as well. The timer runs only while some reply is kept.
 */
import type { Logger } from "../config/logger.ts";

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
