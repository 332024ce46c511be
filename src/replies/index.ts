/**
 * replies/: the reply — the assistant message a run generates — from its start to its terminal
 * event, on any instance. `createReplies(deps)` is the one front door other folders use; it
 * builds the long-lived objects once (notifier, lease keeper, tails, registry, the replay pager,
 * the keep-alive timer) and `close()` ends them. What it gives a reader is one thing, a
 * `ReplyStream` (stream.ts): the reply's events from a position, whatever they come from, and
 * the transforms every answer is made of. The protocols are described where they live: lease
 * (statements.ts, live-runs.ts), stop (below, `stop`), notify (notify.ts), terminal events (event-log.ts).
 */
import type { Owner } from "../db/owner.ts";
import type { MessageRow } from "../db/schema.ts";
import { KeepAlive } from "../http/keep-alive.ts";
import { COMPACT_BATCH } from "./compact.ts";
import { checkResumeToken, ORPHANED_EVENT } from "./event-log.ts";
import { LeaseKeeper, RunRegistry } from "./live-runs.ts";
import { createNotifier, listenerOf } from "./notify.ts";
import type { RunInput, RunOutcome } from "./outcome.ts";
import { findOwnedReply, findOwnedReplyState, lastEvent, type ReplyState, readPage, replyOwner } from "./reads.ts";
import { ReplayPager } from "./replay.ts";
import { Run } from "./run.ts";
import { createReplyStore } from "./statements.ts";
import { type Origins, ReplyStream, sseOf } from "./stream.ts";
import { Tails } from "./tail.ts";
import type { RepliesDeps } from "./types.ts";

/** How long `stop` waits for the generating instance to end the reply. */
export const STOP_WAIT_MS = 5_000;

/** A reply being generated in this process. */
export interface ReplyHandle {
  readonly id: string;
  readonly conversationId: string;
  readonly createdAt: Date;
  readonly done: Promise<RunOutcome>;
}

/** A reply to stream: its id, and its status when it was read (an ended one is replayed from the store). */
export type StreamedReply = Pick<MessageRow, "id"> & Partial<Pick<MessageRow, "status">>;

export type Replies = ReturnType<typeof createReplies>;

export function createReplies(deps: RepliesDeps) {
  const notifier = createNotifier(listenerOf(deps.db));
  const store = createReplyStore(deps.db, notifier);
  const leases = new LeaseKeeper({ ...deps, renew: store.renew, leaseMs: deps.options.replyLeaseMs });
  const shared = { ...deps, store, notifier, leases };
  const tails = new Tails(shared);
  const registry = new RunRegistry();
  const origins: Origins = {
    live: (id) => registry.get(id) ?? tails.follow(id),
    pager: new ReplayPager((id, after, limit) => readPage(deps.db, id, after, limit)),
    // One keep-alive timer for every stream of these replies, not one per stream (http/keep-alive.ts).
    sse: sseOf(new KeepAlive(deps.options.keepAliveMs)),
  };
  /** The events of `reply` after `after`: its run here, a tail of the database, or (ended) its stored pages. */
  const stream = (reply: StreamedReply, after = 0) =>
    new ReplyStream(origins, reply.id, after, reply.status !== undefined && reply.status !== "in_progress");

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
    stream,
    /**
     * A reconnection's stream: the events after `after`, or null when the client is at or past
     * the terminal event of an ended reply (answer 204: EventSource stops reconnecting). A swept
     * reply's terminal event carries a smaller id than a live client may have seen from the dead
     * instance, so it is sent whatever the position (followed through a tail, which always
     * delivers the terminal event).
     */
    async resume(reply: Pick<MessageRow, "id" | "status" | "lastSeq">, after: number): Promise<ReplyStream | null> {
      if (reply.status === "in_progress" || after < reply.lastSeq) return stream(reply, after);
      if ((await lastEvent(deps.db, reply.id))?.data !== ORPHANED_EVENT) return null;
      return stream({ id: reply.id }, after);
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
      await stream({ id }).ended(waitMs);
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
    async find(owner: Owner, id: string, conversationId?: string): Promise<MessageRow | null> {
      const reply = await findOwnedReply(deps.db, owner, id, conversationId);
      if (reply && (await expireStale([reply]))) return findOwnedReply(deps.db, owner, id, conversationId);
      return reply;
    },
    /** `find` without the message's text (resume, stop): a long reply's text is large. */
    async findState(owner: Owner, id: string, conversationId?: string): Promise<ReplyState | null> {
      const reply = await findOwnedReplyState(deps.db, owner, id, conversationId);
      if (reply && (await expireStale([reply]))) return findOwnedReplyState(deps.db, owner, id, conversationId);
      return reply;
    },
    /**
     * What `token` (a `start` event's `resume_token`) is worth for reply `id` of `conversationId`
     * now, and the key it stands for: the reply's owner (null once the reply is gone).
     */
    async checkToken(token: string, id: string, conversationId: string) {
      const check = await checkResumeToken(deps.db, token, conversationId, id, deps.now());
      return check.ok ? { ...check, keyId: await replyOwner(deps.db, id, conversationId) } : check;
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
      origins.sse.keepAlive.close();
      await notifier.close();
      origins.pager.clear();
    },
    /** The runs generated here now (shutdown logs, tests). */
    live: () => registry.all(),
  };
}

export { RESUME_TOKEN_TTL_MS } from "./event-log.ts";
export type { RunInput, RunOutcome } from "./outcome.ts";
export type { ReplyState } from "./reads.ts";
export type { ReplyWrite } from "./statements.ts";
export { type FinalReply, ReplyFold, ReplyStream } from "./stream.ts";
