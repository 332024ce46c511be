/**
 * Keeps the leases of the replies one Parley instance generates: ONE statement per beat (every
 * quarter lease) renews them all and reads back their stop flags, however many replies run —
 * 1,000 replies waiting on a slow model cost one write every 2.5 s, not 400 per second. A reply
 * that writes events renews its own lease with each flush as well.
 */
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { memo } from "../memo.ts";
import { renewLeases } from "./store.ts";

/** What the keeper needs of a run. */
export interface Leased {
  readonly id: string;
  /** The reply was asked to stop (its flag is set in the database). */
  stop(): void;
  /** The reply is no longer ours: deleted, or ended by a sweep after this instance stalled. */
  lost(): void;
}

export class LeaseKeeper {
  private readonly runs = new Map<string, Leased>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating = false;

  constructor(private readonly deps: { db: Db; now: () => number; logger: Logger; leaseMs: number }) {}

  add(run: Leased): void {
    this.runs.set(run.id, run);
    this.timer ??= setInterval(() => void this.beat(), Math.max(50, Math.floor(this.deps.leaseMs / 4)));
  }

  remove(id: string): void {
    this.runs.delete(id);
    if (this.runs.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async beat(): Promise<void> {
    if (this.beating || this.runs.size === 0) return;
    this.beating = true;
    const ids = [...this.runs.keys()];
    try {
      const rows = await renewLeases(this.deps.db, ids, this.deps.now() + this.deps.leaseMs);
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

const keepers = new WeakMap<object, LeaseKeeper>();

/** The keeper of one plugin instance (`owner`: its dependencies object). */
export function leaseKeeperFor(
  owner: object,
  deps: { db: Db; now: () => number; logger: Logger; leaseMs: number },
): LeaseKeeper {
  return memo(keepers, owner, () => new LeaseKeeper(deps));
}
