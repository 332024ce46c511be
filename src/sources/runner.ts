/**
 * The syncs of one createParley: starts them (from a route or the schedule), keeps the running
 * ones so `close()` can stop them (their syncs end as cancelled, deleting nothing), and runs the
 * scheduler: every `scheduleEveryMs` it ends syncs whose instance died (lease passed) and starts
 * the syncs that are due, one source at a time per instance. The database decides who runs what
 * (store.ts), so any number of instances may run this.
 */
import type { SyncTrigger } from "../contract/sources.ts";
import { unrefTimer } from "../primitives.ts";
import { NOOP_TRACING, type Trace, type Tracing } from "../tracing/index.ts";
import { claimSync, expireSyncs, type SourceRow, type SyncRow, takeDueSource } from "./store.ts";
import type { SyncDeps } from "./sync.ts";

/** Scheduled syncs one instance runs at once (a sync asked for over HTTP always starts). */
const MAX_LOCAL_SYNCS = 2;

export interface SourceSyncs {
  /** Starts a sync of the source, or returns the running one; undefined when the source is gone. */
  start(source: SourceRow, trigger: SyncTrigger, trace?: Trace): Promise<SyncRow | undefined>;
  /** Stops the local sync of a source (its DELETE); resolves when it has ended. */
  stop(sourceId: string): Promise<void>;
  /** Runs the scheduler's work once (tests, and the timer). */
  tick(): Promise<void>;
  /** Resolves when the local syncs now running have ended (tests, the CLI). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `schedule: false`: no scheduler (the CLI running one source's sync in its own process must
 * not also start the scheduled syncs of others).
 */
export function createSourceSyncs(deps: SyncDeps & { tracing?: Tracing; schedule?: boolean }): SourceSyncs {
  const running = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  let closed = false;
  const tracing = deps.tracing ?? NOOP_TRACING;

  const start: SourceSyncs["start"] = async (source, trigger, trace) => {
    const claimed = await claimSync(deps.db, source.id, trigger, new Date(deps.now()), deps.sources.leaseMs);
    if (!claimed?.started || closed) return claimed?.sync;
    const controller = new AbortController();
    // A sync outlives the request that started it: its span is its own root unless one is given.
    // Loaded at the first sync (index.ts says why); later syncs get the cached module.
    const done = import("./sync.ts")
      .then(({ runSync }) =>
        runSync(deps, source, claimed.sync.id, controller.signal, trace ?? backgroundTrace(tracing)),
      )
      .catch((error) => deps.logger.error({ source_id: source.id, error }, "source sync crashed"))
      .finally(() => running.delete(source.id));
    running.set(source.id, { controller, done });
    return claimed.sync;
  };

  let ticking = false;
  const tick = async () => {
    if (ticking || closed) return;
    ticking = true;
    try {
      const now = new Date(deps.now());
      const ended = await expireSyncs(deps.db, now);
      if (ended.length)
        deps.logger.warn({ sync_ids: ended }, "source syncs whose instance stopped were ended as failed");
      // Due sources beyond this instance's share wait for the next tick (or another instance).
      while (!closed && running.size < MAX_LOCAL_SYNCS) {
        const due = await takeDueSource(deps.db, now);
        if (!due) break;
        await start(due, "scheduled");
      }
    } catch (error) {
      deps.logger.debug({ error }, "source schedule failed");
    } finally {
      ticking = false;
    }
  };
  // Often enough to end a dead instance's sync within a lease and a half, whatever the schedule.
  const every = Math.min(deps.sources.scheduleEveryMs, Math.max(500, deps.sources.leaseMs / 2));
  const timer = deps.schedule === false ? undefined : setInterval(tick, every);
  unrefTimer(timer);

  const idle = async () => {
    while (running.size) await Promise.all([...running.values()].map((r) => r.done));
  };
  return {
    start,
    tick,
    idle,
    async stop(sourceId) {
      const run = running.get(sourceId);
      run?.controller.abort();
      await run?.done;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const run of running.values()) run.controller.abort();
      await idle();
    },
  };
}

/** A new trace for work no request carries (a scheduled sync, or one outliving its request). */
function backgroundTrace(tracing: Tracing): Trace {
  return tracing.of(new Request("http://parley.invalid/sources/sync"));
}
