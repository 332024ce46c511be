/**
 * One Drizzle type over two drivers: PGlite (embedded default, one process owns the folder)
 * and postgres.js (DATABASE_URL, many instances). Library code only sees `Store`.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { boundedPool, DB_WAIT_MS } from "./bounded-pool.ts";
import { pgArrayTypes } from "./pg-arrays.ts";
import * as schema from "./schema.ts";

/** The Drizzle database every service takes; identical API on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database plus what it takes to close it. */
export interface Store {
  readonly kind: "pglite" | "postgres";
  readonly db: Db;
  /**
   * Runs `fn` holding an exclusive lock across instances (PostgreSQL advisory lock), on a
   * connection of its own outside the pool's per-statement bound (migrations, archives).
   */
  withLock<T>(lockId: number, fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Whether the store can write now: a cheap, rate-limited probe /readyz adds to its `select 1`
   * (the server's PGlite on a data folder checks the folder; see runtime/recovering-pglite.ts).
   */
  writable?(): Promise<boolean>;
  /**
   * Why requests that change data are refused now, or undefined: the server's PGlite says so while
   * the disk holding it is nearly full (runtime/disk-room.ts). Read on every such request: cheap.
   */
  writesRefused?(): string | undefined;
  close(): Promise<void>;
  /** PostgreSQL: the pool's size and the queries in flight now (the metrics' pool gauge). */
  pool?(): { max: number; inFlight: number };
}

/**
 * Opens PGlite in `dataDir` (in memory when omitted), creating the folder and its parents when
 * missing, private to its owner (PGlite itself makes only the last level). `options` reach
 * PGlite as they are. A folder on disk is locked for this process until `close()`, with the lock
 * `parley serve` and the CLI take (runtime/folder-lock.ts: a folder named `pg` is locked in its
 * parent, DATA_DIR): PGlite allows one writer per folder, so while another process holds it
 * this throws, naming that process (pid, host, command); after close() (or the process's end)
 * the next one may open it.
 */
export async function openPglite(dataDir?: string, options: PGliteOptions = {}): Promise<Store> {
  if (!dataDir || /^[a-z]+:\/\//.test(dataDir)) return pgliteStore(await PGlite.create({ ...options, dataDir }));
  // A file-system path (not memory:// or idb://): node:fs, as PGlite's own NodeFS uses it there
  // (Bun, Deno and Node all have it), and the lock of the runtime running now. Imported only
  // then, so a browser never loads them.
  const { lockPgliteFolder } = await import("../runtime/folder-lock.ts");
  const unlock = await lockPgliteFolder(dataDir);
  try {
    if (!options.fs) {
      const { mkdir } = await import("node:fs/promises");
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
    }
    const client = await PGlite.create({ ...options, dataDir });
    const store = pgliteStore(client);
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        try {
          await client.close();
        } finally {
          unlock();
        }
      })());
    return { ...store, close };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** A store over a PGlite client (or a stand-in that forwards to one). */
export function pgliteStore(client: PGlite): Store {
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    // One connection in one process: nothing else can interleave.
    withLock: (_id, fn) => fn(db),
    close: () => client.close(),
  };
}

/** What every postgres.js connection here is opened with. */
const CONNECTION_OPTIONS = {
  onnotice: () => {},
  // A dead database must surface as an error (503), not as a request that hangs.
  connect_timeout: 5,
  // Not asked per connection (its failure is an unhandled rejection): db/pg-arrays.ts reads arrays.
  fetch_types: false,
  types: pgArrayTypes,
};

/** Opens a postgres.js pool on `url`. `waitMs` bounds every statement's wait (db/bounded-pool.ts). */
export function openPostgres(url: string, options: { max?: number; waitMs?: number } = {}): Store {
  const pool = boundedPool(
    () => postgres(url, { ...CONNECTION_OPTIONS, max: options.max ?? 10 }),
    options.waitMs ?? DB_WAIT_MS,
  );
  const db = drizzlePostgres({ client: pool.sql, schema }) as unknown as Db;
  const max = options.max ?? 10;
  return {
    kind: "postgres",
    db,
    pool: () => ({ max, inFlight: pool.inFlight() }),
    async withLock(lockId, fn) {
      // A session-level advisory lock belongs to one connection: a pool of one holds it.
      const single = postgres(url, { ...CONNECTION_OPTIONS, max: 1 });
      try {
        await single`select pg_advisory_lock(${lockId})`;
        return await fn(drizzlePostgres({ client: single, schema }) as unknown as Db);
      } finally {
        await single.end({ timeout: 5 }); // closing the session releases the lock
      }
    },
    close: () => pool.end(),
  };
}
