/**
 * A postgres.js pool whose statements cannot wait without end. postgres.js bounds connecting
 * (connect_timeout) but not a statement queued behind a connection that lost its server, nor
 * the pool's waiters: around PostgreSQL outages requests waited 9–31 s. Here:
 * - every statement (and transaction) Drizzle sends fails after `waitMs` without an answer, with
 *   code DB_WAIT_TIMEOUT (a 503: db/errors.ts);
 * - such a timeout means the pool holds connections that will not answer: the pool is replaced
 *   by a fresh one (at most once per `waitMs`) and the old one closed without waiting;
 * - LISTEN (runs/notify.ts) has its own client, never replaced: postgres.js reconnects it.
 * docs/reliability.md states the bound.
 */
import type postgres from "postgres";

/** The default bound on one statement's wait for the database (queue, connect, answer). */
export const DB_WAIT_MS = 5_000;

/** What is used of a postgres.js query: a lazy promise (it runs when awaited) that can be rejected from outside. */
interface LazyQuery {
  then(onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown): Promise<unknown>;
  cancel(): unknown;
  active?: boolean;
  reject?: (e: Error) => void;
}

export interface BoundedPool {
  /** What Drizzle is given: forwards to the current pool. */
  readonly sql: postgres.Sql;
  /** Statements sent and not yet settled (the metrics' pool gauge). */
  inFlight(): number;
  end(): Promise<void>;
}

export function boundedPool(open: () => postgres.Sql, waitMs: number): BoundedPool {
  let current = open();
  let listener: postgres.Sql | undefined;
  let replacedAt = 0;
  let inFlight = 0;
  const timeout = () =>
    Object.assign(new Error(`the database did not answer within ${waitMs} ms`), { code: "DB_WAIT_TIMEOUT" });
  const replace = (stuck: postgres.Sql) => {
    if (stuck !== current || Date.now() - replacedAt < waitMs) return;
    replacedAt = Date.now();
    const next = open();
    // Drizzle set its type parsers on the first pool's options: the new pool gets the same.
    Object.assign(next.options.parsers, current.options.parsers);
    Object.assign(next.options.serializers, current.options.serializers);
    current = next;
    void stuck.end({ timeout: 0 }).catch(() => {});
  };

  const unsafe = (...args: Parameters<postgres.Sql["unsafe"]>) => {
    const pool = current;
    const q = pool.unsafe(...args) as unknown as LazyQuery;
    // Arm the deadline when the query runs (when awaited), not when it is built.
    const then = q.then.bind(q);
    // biome-ignore lint/suspicious/noThenProperty: the query is a thenable already; its own `then` is wrapped
    q.then = (onFulfilled, onRejected) => {
      inFlight++;
      const timer = setTimeout(() => {
        q.reject?.(timeout()); // first: cancelling a queued query rejects it too, as 57014
        // A queued query leaves the queue; a running one is not cancelled over the network (that
        // takes a new connection, in an outage too): replacing the pool ends its connection.
        if (!q.active) Promise.resolve(q.cancel()).catch(() => {});
        replace(pool);
      }, waitMs);
      return then(
        (v) => {
          inFlight--;
          clearTimeout(timer);
          return onFulfilled ? onFulfilled(v) : v;
        },
        (e) => {
          inFlight--;
          clearTimeout(timer);
          if (onRejected) return onRejected(e);
          throw e;
        },
      );
    };
    return q;
  };
  const begin = (...args: unknown[]) => {
    const pool = current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => {
          reject(timeout());
          replace(pool);
        }, waitMs)),
    );
    const run = (pool.begin as (...a: unknown[]) => Promise<unknown>)(...args);
    run.catch(() => {}); // settled after the deadline: nobody waits for it any more
    return Promise.race([run, late]).finally(() => clearTimeout(timer));
  };
  const listen = (...args: Parameters<postgres.Sql["listen"]>) => {
    listener ??= open();
    return listener.listen(...args);
  };
  const own: Record<string, unknown> = { unsafe, begin, listen };
  const sql = new Proxy(current, {
    apply: (_target, _this, args) => (current as unknown as (...a: unknown[]) => unknown)(...args),
    get(_target, prop) {
      if (typeof prop === "string" && prop in own) return own[prop];
      const value = (current as unknown as Record<PropertyKey, unknown>)[prop];
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
  return {
    sql,
    inFlight: () => inFlight,
    async end() {
      await Promise.all([current, ...(listener ? [listener] : [])].map((c) => c.end({ timeout: 5 })));
    },
  };
}
