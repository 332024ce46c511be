/**
 * The periodic sweep: ends replies whose lease has passed (their instance died) as `failed`
 * (`replies.expire`, which notifies their followers like every reply write), and drops expired
 * Idempotency-Key records, and compacts the events of ended replies past REPLY_EVENTS_RETENTION
 * (replies/compact.ts). One sweeper per `createParley`, stopped by its `close()`; the
 * statements are conditional, so instances sweeping at once do each thing once. The timer never
 * keeps a process alive on its own.
 */
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { unrefTimer } from "../primitives.ts";
import type { Replies } from "../replies/index.ts";
import { purgeExpired } from "./idempotency.ts";

export interface Sweeper {
  stop(): void;
}

export function startSweeper(
  deps: { db: Db; now: () => number; logger: Logger; replies: Pick<Replies, "expire" | "compact"> },
  everyMs: number,
  /** Other features' expired rows to drop on the same beat (the widget's counters and spent proofs). */
  also: ((db: Db, now: number) => Promise<void>)[] = [],
): Sweeper {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const ended = await deps.replies.expire();
      if (ended.length) deps.logger.warn({ message_ids: ended }, "replies whose instance stopped were ended as failed");
      await purgeExpired(deps.db, deps.now());
      await deps.replies.compact();
      for (const forget of also) await forget(deps.db, deps.now());
    } catch (error) {
      // The store may be closing or down; the next sweep (or any reader) tries again.
      deps.logger.debug({ error }, "sweep failed");
    } finally {
      running = false;
    }
  }, everyMs);
  unrefTimer(timer);
  return { stop: () => clearInterval(timer) };
}
