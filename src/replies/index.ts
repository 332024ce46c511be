/**
 * replies/: the reply — the assistant message a run generates — from its start to its terminal
 * event, on any instance. `createReplies(deps)` is the one front door other folders use; it
 * builds the long-lived objects once (notifier, lease keeper, tails, registry) and `close()`
 * ends them. The protocols are described where they live: lease (statements.ts, lease.ts),
 * stop (below, `stop`), notify (notify.ts), terminal events (terminal.ts).
 */
import type { MessageRow } from "../db/schema.ts";
import { KeepAlive } from "../http/keep-alive.ts";
import { COMPACT_BATCH } from "./compact.ts";
import type { Sequenced } from "./event-log.ts";
import { streamOf, waitForEnd } from "./feed.ts";
import { LeaseKeeper } from "./lease.ts";
import { createNotifier, listenerOf } from "./notify.ts";
import type { RunInput, RunOutcome } from "./outcome.ts";
import { findOwnedReply, findOwnedReplyState, lastEvent, type ReplyState, readFrames } from "./reads.ts";
import { RunRegistry } from "./registry.ts";
import { ReplayPager } from "./replay.ts";
import { Run } from "./run.ts";
import { createReplyStore } from "./store.ts";
import { Tails } from "./tail.ts";
import { ORPHANED_EVENT } from "./terminal.ts";
import type { RepliesDeps } from "./types.ts";

/** How long `stop` waits for the generating instance to end the reply. */
export const STOP_WAIT_MS = 5_000;

/** A reply being generated in this process. */
export interface ReplyHandle {
  readonly id: string;
  readonly done: Promise<RunOutcome>;
}

export type Replies = ReturnType<typeof createReplies>;

export function createReplies(deps: RepliesDeps) {
  const notifier = createNotifier(listenerOf(deps.db));
  const store = createReplyStore(deps.db, notifier);
  const leases = new LeaseKeeper({ ...deps, renew: store.renew, leaseMs: deps.options.replyLeaseMs });
  const shared = { ...deps, store, notifier, leases };
  const tails = new Tails(shared);
  const registry = new RunRegistry();
  // One keep-alive timer for every stream of these replies, not one per stream (http/keep-alive.ts).
  const keepAlive = new KeepAlive(deps.options.keepAliveMs);
  const replays = new ReplayPager((id, after, limit) => readFrames(deps.db, id, after, limit));

  /** The reply's events: the local run when it is generated here, else a tail of the database. */
  const feed = (id: string) => registry.get(id) ?? tails.follow(id);

  /** Expires the running replies among `rows` whose lease passed; true when one was ended (read again). */
  async function expireStale(rows: Pick<MessageRow, "id" | "status" | "leaseUntil">[]): Promise<boolean> {
    const now = deps.now();
    let swept = false;
    for (const m of rows) {
      if (m.status === "in_progress" && m.leaseUntil && m.leaseUntil.getTime() < now)
        swept = (await store.expire(now, m.id)).length > 0 || swept;
    }
    return swept;
  }

  return {
    /** Stores the reply `in_progress` and generates it (the run outlives any HTTP connection). */
    async start(input: RunInput): Promise<ReplyHandle> {
      return registry.track(await Run.start(shared, input));
    },
    feed,
    /** The SSE response of reply `id` after event `after`, up to and including its terminal event. */
    stream: (id: string, after = 0) => streamOf(feed(id), after, keepAlive),
    /**
     * A reconnection's answer: the stream after `after`, or null when the client is at or past
     * the terminal event of an ended reply (answer 204: EventSource stops reconnecting). A swept
     * reply's terminal event carries a smaller id than a live client may have seen from the dead
     * instance, so it is sent whatever the position.
     */
    async resume(reply: Pick<MessageRow, "id" | "status" | "lastSeq">, after: number): Promise<Response | null> {
      if (reply.status !== "in_progress" && after >= reply.lastSeq) {
        if ((await lastEvent(deps.db, reply.id))?.data !== ORPHANED_EVENT) return null;
      }
      // An ended reply's events are all stored: paged from the database as the client reads.
      if (reply.status !== "in_progress" && after < reply.lastSeq) return replays.response(reply.id, after);
      return streamOf(feed(reply.id), after, keepAlive);
    },
    /**
     * The stop protocol: set the reply's stop flag (one conditional UPDATE that also NOTIFYs
     * `stopTopic`); the generating run stops at once when it is here, else on the notification,
     * or at worst at its next flush or lease beat, which read the flag back. Its partial text is
     * stored as `stopped` and every stream ends with `end`. Waits up to STOP_WAIT_MS for the
     * terminal event; false when the reply was not running.
     */
    async stop(id: string, waitMs = STOP_WAIT_MS): Promise<boolean> {
      if (!(await store.requestStop(id))) return false;
      registry.get(id)?.stop();
      await waitForEnd(feed(id), waitMs);
      return true;
    },
    /** Ends as failed the replies whose lease passed (all, or only `id`); the ids ended. */
    expire: (id?: string) => store.expire(deps.now(), id),
    expireStale,
    /**
     * Compacts the events of ended replies older than the retention (compact.ts), up to `batches`
     * bounded statements while they come back full; the number of replies compacted.
     */
    async compact(batches = 4): Promise<number> {
      const cutoff = deps.now() - deps.options.replyEventsRetentionS * 1_000;
      let total = 0;
      for (let i = 0; i < batches; i++) {
        const { replies } = await store.compact(cutoff, COMPACT_BATCH);
        total += replies;
        if (replies < COMPACT_BATCH) break;
      }
      return total;
    },
    /** The assistant message `id` if the key owns it; a running one whose lease passed is ended first. */
    async find(keyId: string, id: string, conversationId?: string): Promise<MessageRow | null> {
      const reply = await findOwnedReply(deps.db, keyId, id, conversationId);
      if (reply && (await expireStale([reply]))) return findOwnedReply(deps.db, keyId, id, conversationId);
      return reply;
    },
    /** `find` without the message's text (resume, stop): a long reply's text is large. */
    async findState(keyId: string, id: string, conversationId?: string): Promise<ReplyState | null> {
      const reply = await findOwnedReplyState(deps.db, keyId, id, conversationId);
      if (reply && (await expireStale([reply]))) return findOwnedReplyState(deps.db, keyId, id, conversationId);
      return reply;
    },
    /** The reply's terminal event, once it has ended. */
    async terminal(id: string): Promise<Sequenced | null> {
      const last = await lastEvent(deps.db, id);
      const event = last && (JSON.parse(last.data) as Sequenced["event"]);
      return event && (event.type === "end" || event.type === "error") ? { seq: last.seq, event } : null;
    },
    /** Replies generated in this process now. */
    get running(): number {
      return registry.size;
    },
    /** Shutdown: lets runs finish for `graceMs`, then cuts the rest off (see docs/architecture.md). */
    drain: (graceMs: number, storeMs?: number) => registry.drain(graceMs, storeMs),
    /** Ends the lifetimes: runs drained at once, tails, the lease and keep-alive timers stopped, LISTEN ended. */
    async close(): Promise<void> {
      await registry.drain(0);
      tails.close();
      leases.close();
      keepAlive.close();
      await notifier.close();
      replays.clear();
    },
    /** The runs generated here now (shutdown logs, tests). */
    live: () => registry.all(),
  };
}

export type { ReplyFeed, Sequenced } from "./event-log.ts";
export { isTerminal } from "./event-log.ts";
export type { RunInput, RunOutcome } from "./outcome.ts";
export type { ReplyState } from "./reads.ts";
export type { ReplyWrite } from "./statements.ts";
