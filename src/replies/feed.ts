/**
 * A reply's events as a response: from this process's run when it generates the reply (no
 * added latency), else from the database (replies/tail.ts). Either way each event carries its
 * sequence number as the SSE `id:`, so any client can resume on any instance.
 */
import type { KeepAlive } from "../http/keep-alive.ts";
import { type EventSource, sseResponse } from "../http/sse.ts";
import { isTerminal, type ReplyFeed, type Sequenced } from "./event-log.ts";

/** `feed` from after event `after` (a class, not a closure per stream: issue 23 counts them). */
class FeedAfter implements EventSource<Sequenced> {
  constructor(
    private readonly feed: ReplyFeed,
    private readonly after: number,
  ) {}

  subscribe(listener: (e: Sequenced) => void): () => void {
    return this.feed.subscribe(listener, this.after);
  }
}

const isLast = (e: Sequenced) => isTerminal(e.event);
const encode = (e: Sequenced) => ({ id: e.seq, data: e.event });

/** The SSE response of `feed` after event `after`, up to and including its terminal event. */
export function streamOf(feed: ReplyFeed, after: number, keepAlive: KeepAlive): Response {
  return sseResponse(new FeedAfter(feed, after), { keepAlive, isLast, encode });
}

/** Waits until `feed` has ended (true) or `ms` passed (false). */
export function waitForEnd(feed: ReplyFeed, ms: number): Promise<boolean> {
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
    unsubscribe = feed.subscribe((e) => isTerminal(e.event) && settle(true));
    if (settled) unsubscribe();
  });
}
