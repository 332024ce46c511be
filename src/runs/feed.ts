/**
 * A reply's events as a response: from this process's run when it generates the reply (no
 * added latency), else from the database (runs/tail.ts). Either way each event carries its
 * sequence number as the SSE `id:`, so any client can resume on any instance.
 */

import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { sseResponse } from "../http/sse.ts";
import type { ReplyFeed, RunRegistry, Sequenced } from "./run.ts";
import { isTerminal } from "./run.ts";
import { followReply } from "./tail.ts";

export interface FeedDeps {
  db: Db;
  now: () => number;
  logger: Logger;
  runs: RunRegistry;
}

export const replyFeed = (deps: FeedDeps, id: string): ReplyFeed => deps.runs.get(id) ?? followReply(deps, id);

/** The SSE response of reply `id` after event `after`, up to and including its terminal event. */
export function replyStream(deps: FeedDeps, id: string, after: number, keepAliveMs: number): Response {
  const feed = replyFeed(deps, id);
  return sseResponse<Sequenced>(
    { subscribe: (listener) => feed.subscribe(listener, after) },
    { keepAliveMs, isLast: (e) => isTerminal(e.event), encode: (e) => ({ id: e.seq, data: e.event }) },
  );
}

/** Waits until reply `id` has ended (true) or `ms` passed (false). */
export function waitForEnd(deps: FeedDeps, id: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let unsubscribe = () => {};
    let settled = false;
    const settle = (ended: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      queueMicrotask(() => unsubscribe());
      resolve(ended);
    };
    const timer = setTimeout(() => settle(false), ms);
    unsubscribe = replyFeed(deps, id).subscribe((e) => isTerminal(e.event) && settle(true));
    if (settled) unsubscribe();
  });
}
