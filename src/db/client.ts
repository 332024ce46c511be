/**
 * One Drizzle type over two drivers: PGlite (embedded default, one process owns the folder)
 * and postgres.js (DATABASE_URL, many instances). Library code only sees `Store`.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema.ts";

/** The Drizzle database every service takes; identical API on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database plus what it takes to close it. */
export interface Store {
  readonly kind: "pglite" | "postgres";
  readonly db: Db;
  /** Runs `fn` holding an exclusive lock across instances (PostgreSQL advisory lock). */
  withLock<T>(lockId: number, fn: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PostgreSQL: the pool's size and the queries in flight now (the metrics' pool gauge). */
  pool?(): { max: number; inFlight: number };
}

/** Opens PGlite in `dataDir` (in memory when omitted). `options` reach PGlite as they are. */
export async function openPglite(dataDir?: string, options: PGliteOptions = {}): Promise<Store> {
  const client = await PGlite.create({ ...options, dataDir });
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    // One connection in one process: nothing else can interleave.
    withLock: (_id, fn) => fn(db),
    close: () => client.close(),
  };
}

/** Opens a postgres.js pool on `url`. */
export function openPostgres(url: string, options: { max?: number } = {}): Store {
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // A dead database must surface as an error (503), not as a request that hangs.
    connect_timeout: 5,
  });
  // postgres.js keeps its queues private: count the queries Drizzle sends until they settle.
  // Promise.prototype.then observes a query without starting it (its own then() would).
  let inFlight = 0;
  const settle = () => void inFlight--;
  const unsafe = client.unsafe.bind(client);
  client.unsafe = ((...args: Parameters<typeof unsafe>) => {
    const query = unsafe(...args);
    inFlight++;
    Promise.prototype.then.call(query, settle, settle);
    return query;
  }) as typeof client.unsafe;
  const db = drizzlePostgres({ client, schema }) as unknown as Db;
  const max = options.max ?? 10;
  return {
    kind: "postgres",
    db,
    pool: () => ({ max, inFlight }),
    async withLock(lockId, fn) {
      // A session-level advisory lock belongs to one connection: a pool of one holds it.
      const single = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        await single`select pg_advisory_lock(${lockId})`;
        return await fn(drizzlePostgres({ client: single, schema }) as unknown as Db);
      } finally {
        await single.end({ timeout: 5 }); // closing the session releases the lock
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
